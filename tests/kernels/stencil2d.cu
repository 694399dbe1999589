// 2D five-point stencil on a row-major height x width grid (2D grid of 2D blocks): interior points
// get 0.25*(west + east + north + south) - centre, boundary points are copied unchanged.
extern "C" __global__ void stencil2d(const float* __restrict__ in, float* __restrict__ out,
                                     int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int idx = y * width + x;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        out[idx] = in[idx];
        return;
    }
    out[idx] = 0.25f * (in[idx - 1] + in[idx + 1] + in[idx - width] + in[idx + width]) - in[idx];
}
