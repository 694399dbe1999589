// Cooperative-groups reduction: cg::reduce over 32-thread tiles, then tile 0 reduces the
// per-tile sums kept in shared memory. out[blockIdx.x] = sum of the block's inputs (0 past n).
// Integer data, so the result does not depend on the order of the additions.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void reduce_cg(const int* in, int* out, int n)
{
    __shared__ int tile_sums[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    v = cg::reduce(tile, v, cg::plus<int>());
    if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        int w = (tile.thread_rank() < tile.meta_group_size()) ? tile_sums[tile.thread_rank()] : 0;
        w = cg::reduce(tile, w, cg::plus<int>());
        if (tile.thread_rank() == 0) out[blockIdx.x] = w;
    }
}
