// 1D stencil of radius 3 through a shared tile with halo: out[i] = sum_{k=-3..3} (k+4) * in[i+k],
// in[j] taken as 0 outside [0, n). Requires blockDim.x == 256 (> 2*radius).
#define R 3
#define BLOCK 256

extern "C" __global__ void stencil1d(const float* in, float* out, int n)
{
    __shared__ float s[BLOCK + 2 * R];
    int g = blockIdx.x * BLOCK + threadIdx.x;
    int l = threadIdx.x + R;
    s[l] = (g < n) ? in[g] : 0.0f;
    if (threadIdx.x < R) {
        int left = g - R;
        int right = g + BLOCK;
        s[l - R] = (left >= 0 && left < n) ? in[left] : 0.0f;
        s[l + BLOCK] = (right < n) ? in[right] : 0.0f;
    }
    __syncthreads();
    if (g < n) {
        float acc = 0.0f;
#pragma unroll
        for (int k = -R; k <= R; ++k) acc += (float)(k + R + 1) * s[l + k];
        out[g] = acc;
    }
}
