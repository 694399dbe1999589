// K-means' kmeans_kernel_c and kmeans_swap, re-written for pipeperf (not copied).
//
// Original: yuhc/gpu-rodinia (Rodinia 3.1; licence: the University of Virginia's Rodinia licence, LICENSE
// at the repository root), opencl/kmeans/kmeans.cl, kernel(s) kmeans_kernel_c, kmeans_swap, as of commit 9c10d3ea16ddba2ba057cc3951a9efc4c2cc18a4.
// The Pipeline-model paper (Lemeire et al., Table 9) evaluated the OpenCL versions, so these follow
// the OpenCL kernels: get_global_id/get_group_id/get_local_id become blockIdx/blockDim/threadIdx,
// __local becomes __shared__ (dynamic __local arguments become static arrays of the size the host
// passes), barrier() becomes __syncthreads(), and each kernel is extern "C" so the PTX entry keeps
// its name. Memory accesses, arithmetic and control flow are kept; host code is dropped.
// Launch (host: opencl/kmeans/kmeans.cpp): one work-item per point, work groups of BLOCK_SIZE
// (256 = 8 warps, Table 9's minimum for kmeans_kernel_c); kmeans_swap runs with 64-item groups
// here (2 warps, Table 9's minimum for kmeans_swap).

#define FLT_MAX 3.40282347e+38f

extern "C" __global__ void kmeans_kernel_c(float *feature, float *clusters, int *membership, int npoints,
                                           int nclusters, int nfeatures, int offset, int size) {
  unsigned int point_id = blockIdx.x * blockDim.x + threadIdx.x;
  int index = 0;
  if (point_id < npoints) {
    float min_dist = FLT_MAX;
    for (int i = 0; i < nclusters; i++) {
      float dist = 0;
      float ans = 0;
      for (int l = 0; l < nfeatures; l++) {
        ans += (feature[l * npoints + point_id] - clusters[i * nfeatures + l]) *
               (feature[l * npoints + point_id] - clusters[i * nfeatures + l]);
      }
      dist = ans;
      if (dist < min_dist) {
        min_dist = dist;
        index = i;
      }
    }
    membership[point_id] = index;
  }
}

extern "C" __global__ void kmeans_swap(float *feature, float *feature_swap, int npoints, int nfeatures) {
  unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < npoints) {
    for (int i = 0; i < nfeatures; i++)
      feature_swap[i * npoints + tid] = feature[tid * nfeatures + i];
  }
}
