// The Instruction Mix kernel of the pipeline-model papers (after Volkov): each repetition is
// BETA = 4 dependent ALU instructions (fma x = x*0.999 + 0.001) followed by one SFU instruction
// (cos.approx through __cosf); `reps` repetitions, outer loop unrolled by 8. data[i] is updated in
// place; no bounds check, so launch exactly one thread per element.
#define BETA 4

extern "C" __global__ void mix_alu_sfu(float* data, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = data[i];
#pragma unroll 8
    for (int r = 0; r < reps; ++r) {
#pragma unroll
        for (int j = 0; j < BETA; ++j) x = fmaf(x, 0.999f, 0.001f);
        x = __cosf(x);
    }
    data[i] = x;
}
