// Re-written for pipeperf (not copied): the tunable 2D convolution kernel of Kernel Tuner's
// examples ("convolution_kernel"), as timed by three independent tuning campaigns whose result
// files are quoted by cases/tuner_caches_*.yaml:
//
//   1. AutoTuningAssociation/benchmark_hub  kernels/convolution_milo.cu
//        commit 8eeb99e7179e6838af95d392ac6c60cebfd8c434 (the file is byte-identical in every
//        commit of that repository since 8e6defa, 2025-03-07), MIT licence;
//        measured on an RTX A6000 (cachefiles/convolution_milo/A6000_original.json.gz)
//   2. NTNU-HPC-Lab/BAT  benchmarks/convolution/convolution.cu  commit 6a3e8ed (2023-02-07; the
//        same file as 1. wrapped in extern "C" { ... }), MIT licence; measured on an RTX 3090
//        (benchmark_hub cachefiles/KernelTuner data/convolution/RTX_3090.json.gz)
//   3. benvanwerkhoven/kernel_tuner_paper  convolution/convolution.cu
//        commit 4bf533fff72f7346dde67667d1aafa322af40ff8 (byte-identical to 1.), no licence file
//        in that repository (the kernel is Kernel Tuner's Apache-2.0 example); measured on a GTX
//        Titan X (Maxwell) (convolution/convolution_brute_force.json)
//
// Entry: convolution_kernel mirrors `convolution_kernel(float *output, float *input, float *filter)`.
// The launch: grid (ceil(4096 / (block_size_x*tile_size_x)), ceil(4096 / (block_size_y*tile_size_y))),
// block (block_size_x, block_size_y); every tunable parameter is a preprocessor constant, given by
// Kernel Tuner as "#define name value" lines in front of the source and here as -Dname=value
// (nvcc_flags of each case). Each thread block stages a (block_size_y*tile_size_y + 2*(fh/2)) x
// (block_size_x*tile_size_x + 2*(fw/2) [+ padding]) input tile in shared memory (optionally through
// __ldg), then every thread accumulates tile_size_y x tile_size_x outputs over the fully unrolled
// filter_height x filter_width filter, read from the __constant__ array d_filter.
//
// What differs from the original, and why it does not change the measured path's code:
// - the kernel is declared extern "C" here (campaign 2's file already is; campaigns 1 and 3 are
//   compiled by Kernel Tuner/PyCUDA, which gives the kernel C linkage as well): only the symbol.
// - macros are re-spelled with the same values and the same preprocessor decisions (defaults
//   filter 17 x 17, use_padding 1 when not given; padding columns only when block_size_x is not a
//   multiple of 32 and the halo-plus-tile width beyond block_size_x is not either; bounds checks
//   only when the tile does not divide the 4096 x 4096 image).
// - the kernel's third parameter (the filter pointer, unused by the original as well) is kept so
//   the argument list is the measured one; d_filter is filled by Kernel Tuner's cmem_args in the
//   measured runs and left zero here (its values steer nothing).
// - the unused naive reference kernel of the original file and all host code are dropped.

#define image_height 4096
#define image_width 4096

#ifndef filter_height
#define filter_height 17
#endif
#ifndef filter_width
#define filter_width 17
#endif

#define border_height ((filter_height / 2) * 2)
#define border_width ((filter_width / 2) * 2)
#define input_height (image_height + border_height)
#define input_width (image_width + border_width)

#ifndef block_size_x
#define block_size_x 16
#endif
#ifndef block_size_y
#define block_size_y 16
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

// rows / columns of the staged input tile (capped at the input's extent, as in the original)
#define rows_to_stage min(block_size_y * tile_size_y + border_height, input_height)
#define cols_to_stage min(block_size_x * tile_size_x + border_width, input_width)

// read_only == 1: global loads of the input through the read-only data cache (__ldg)
#if read_only == 1
#define LOAD_INPUT(ptr, idx) __ldg(ptr + idx)   // textual, as the original: ptr + a*w + b
#elif read_only == 0
#define LOAD_INPUT(ptr, idx) ptr[idx]
#endif

__constant__ float d_filter[33 * 33];  // room for the largest filter, as in the original

// optional padding columns against shared-memory bank conflicts (on by default)
#define smem_row_len (block_size_x * tile_size_x + border_width)
#ifndef use_padding
#define use_padding 1
#endif
#if use_padding == 1
#if (((block_size_x % 32) != 0) && (((smem_row_len - block_size_x) % 32) != 0))
#define pad_cols ((32 - (border_width + block_size_x * tile_size_x - block_size_x)) & 31)
#undef smem_row_len
#define smem_row_len (block_size_x * tile_size_x + border_width + pad_cols)
#endif
#endif

#if ((image_height % (block_size_y * tile_size_y) != 0) || (image_width % (block_size_x * tile_size_x) != 0))
#define NEEDS_BOUNDS 1
#else
#define NEEDS_BOUNDS 0
#endif

extern "C" __global__ void convolution_kernel(float *output, float *input, float *filter) {
    int ly = threadIdx.y;
    int lx = threadIdx.x;
    int row0 = blockIdx.y * block_size_y * tile_size_y;
    int col0 = blockIdx.x * block_size_x * tile_size_x;

    __shared__ float tile_in[block_size_y * tile_size_y + border_height][smem_row_len];

    // stage the block's input tile (with its halo) in shared memory
#pragma unroll
    for (int r = ly; r < rows_to_stage; r += block_size_y) {
#pragma unroll
        for (int c = lx; c < cols_to_stage; c += block_size_x) {
#if NEEDS_BOUNDS
            int gy = row0 + r;
            int gx = col0 + c;
            if (gy < input_height && gx < input_width) {
                tile_in[r][c] = LOAD_INPUT(input, gy * input_width + gx);
            }
#else
            tile_in[r][c] = LOAD_INPUT(input, (row0 + r) * input_width + (col0 + c));
#endif
        }
    }
    __syncthreads();

    // per-thread accumulators for its tile_size_y x tile_size_x outputs
    float acc[tile_size_y][tile_size_x];
#pragma unroll
    for (int a = 0; a < tile_size_y; a++) {
#pragma unroll
        for (int b = 0; b < tile_size_x; b++) {
            acc[a][b] = 0.0f;
        }
    }

    // loop over the filter taps, outer row, inner column; each tap feeds every output of the thread
#pragma unroll
    for (int fr = 0; fr < filter_height; fr++) {
#pragma unroll
        for (int fc = 0; fc < filter_width; fc++) {
#pragma unroll
            for (int a = 0; a < tile_size_y; a++) {
#pragma unroll
                for (int b = 0; b < tile_size_x; b++) {
                    acc[a][b] += tile_in[ly + a * block_size_y + fr][lx + b * block_size_x + fc] *
                                 d_filter[fr * filter_width + fc];
                }
            }
        }
    }

    // write the outputs
#pragma unroll
    for (int a = 0; a < tile_size_y; a++) {
#pragma unroll
        for (int b = 0; b < tile_size_x; b++) {
#if NEEDS_BOUNDS
            int oy = row0 + ly + a * block_size_y;
            int ox = col0 + lx + b * block_size_x;
            if (oy < image_height && ox < image_width) {
                output[oy * image_width + ox] = acc[a][b];
            }
#else
            output[(row0 + ly + a * block_size_y) * image_width + col0 + lx + b * block_size_x] = acc[a][b];
#endif
        }
    }
}
