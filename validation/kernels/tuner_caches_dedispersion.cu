// Re-written for pipeperf (not copied) from AutoTuningAssociation/benchmark_hub
//   https://github.com/AutoTuningAssociation/benchmark_hub  commit 8eeb99e7179e6838af95d392ac6c60cebfd8c434
//   files kernels/dedisp_milo/dedispersion.cu and kernels/dedisp_milo/dedispersion.h (MIT licence);
//   dedispersion.cu is byte-identical in every commit of that repository (since 8e6defa,
//   2025-03-07) and to NTNU-HPC-Lab/BAT batbench/benchmarks/dedisp/dedispersion.cu (present
//   there since e258f7c, 2023-06-04), i.e. the same kernel before and after both measured runs
//   (A100: 2023-06-26, RTX A6000: 2025-03-11/12).
//
// Entry: dedispersion_kernel mirrors
//   `extern "C" __global__ void dedispersion_kernel(const unsigned char *input, float *output,
//    const float *shifts)`.
// Radio-astronomy incoherent dedispersion: for each dispersion measure dm (2048) and time sample
// (25000) the kernel sums 1536 frequency channels of 8-bit input, each channel read at the sample
// delayed by shift = (dm_first + dm*dm_step) * shifts[channel] (float product truncated to
// unsigned). A thread computes tile_size_x samples x tile_size_y DMs, adjacent (tile_stride 0) or
// block_size apart (tile_stride 1). Tunable parameters are preprocessor constants (Kernel Tuner
// puts "#define name value" lines in front of the source; here -Dname=value in the cases'
// nvcc_flags). The launch of every measured configuration: Kernel Tuner's default grid divisors
// (the tuning script passes none), grid (ceil(25000 / block_size_x), ceil(2048 / block_size_y), 1),
// block (block_size_x, block_size_y, 1): with tile_size_x/y > 1 the grid is NOT shrunk, so the
// blocks past sample 25000 / dm 2048 only evaluate their bounds checks (as measured).
//
// What differs from the original, and why it does not change the measured path's code:
// - the problem-size constants of dedispersion.h (which the original #includes through the
//   script's -I option) are written inline with the same values and types.
// - the unused naive kernel (dedispersion_naive) of the original file is dropped; host code was
//   not in the file.
// - the original's `#pragma unroll loop_unroll_factor_channel` line is absent: the only tuned value
//   is 0, and for a parameter named loop_unroll_factor* with value 0 Kernel Tuner deletes that
//   pragma line from the source before compiling (kernel_tuner/util.py, since 2020: "using 0 to
//   disable specifying a loop unrolling factor for this loop"), so the measured kernels were
//   compiled without it, i.e. with nvcc's default unrolling of the channel loop, as here.
// - `blocks_per_sm` is not a tuned parameter of these runs (default 0: no __launch_bounds__).

// ---- dedispersion.h (problem size of the benchmark)
#define nr_dms 2048
#define nr_samples 25000
#define nr_channels 1536
#define max_shift 650
#define nr_samples_per_channel (nr_samples + max_shift)
#define dm_first 0.0f
#define dm_step 0.02f

// ---- tunables and their defaults (block_size_x/y/z have no default in the original, which is
// always compiled with them; the defaults here only let the file compile on its own)
#ifndef block_size_x
#define block_size_x 32
#endif
#ifndef block_size_y
#define block_size_y 32
#endif
#ifndef block_size_z
#define block_size_z 1
#endif
#ifndef tile_size_x
#define tile_size_x 1
#endif
#ifndef tile_size_y
#define tile_size_y 1
#endif
#ifndef tile_stride_x
#define tile_stride_x 1
#endif
#ifndef tile_stride_y
#define tile_stride_y 1
#endif

// stride between a thread's samples (x) / DMs (y), and the per-thread start offset factor
#if tile_stride_x == 0
#define step_x 1
#define start_mul_x tile_size_x
#else
#define step_x block_size_x
#define start_mul_x 1
#endif
#if tile_stride_y == 0
#define step_y 1
#define start_mul_y tile_size_y
#else
#define step_y block_size_y
#define start_mul_y 1
#endif

#ifndef blocks_per_sm
#define blocks_per_sm 0
#endif

extern "C" __global__ void
#if blocks_per_sm > 0
__launch_bounds__(block_size_x * block_size_y * block_size_z, blocks_per_sm)
#endif
dedispersion_kernel(const unsigned char *input, float *output, const float *shifts) {
    int sx = blockIdx.x * block_size_x * tile_size_x + threadIdx.x * start_mul_x;
    int sy = blockIdx.y * block_size_y * tile_size_y + threadIdx.y * start_mul_y;

    for (int i = 0; i < tile_size_x; i++) {
        int t = sx + i * step_x;                // time sample
        if (t < nr_samples) {
            for (int j = 0; j < tile_size_y; j++) {
                int d = sy + j * step_y;        // dispersion measure index
                if (d < nr_dms) {
                    float total = 0.0f;
                    for (int ch = 0; ch < nr_channels; ch++) {
                        unsigned int delay = (dm_first + d * dm_step) * shifts[ch];
                        total += input[(ch * nr_samples_per_channel) + (t + delay)];
                    }
                    output[(d * nr_samples) + t] = total;
                }
            }
        }
    }
}
