// SRAD's diffusion kernels (Table 9's opt_srad1 and opt_srad2), re-written for pipeperf (not copied).
//
// Original: yuhc/gpu-rodinia (Rodinia 3.1; licence: the University of Virginia's Rodinia licence, LICENSE
// at the repository root), opencl/srad/kernel/kernel_gpu_opencl.cl, kernel(s) srad_kernel (opt_srad1), srad2_kernel (opt_srad2), as of commit 9c10d3ea16ddba2ba057cc3951a9efc4c2cc18a4.
// The Pipeline-model paper (Lemeire et al., Table 9) evaluated the OpenCL versions, so these follow
// the OpenCL kernels: get_global_id/get_group_id/get_local_id become blockIdx/blockDim/threadIdx,
// __local becomes __shared__ (dynamic __local arguments become static arrays of the size the host
// passes), barrier() becomes __syncthreads(), and each kernel is extern "C" so the PTX entry keeps
// its name. Memory accesses, arithmetic and control flow are kept; host code is dropped.
// Launch (host: opencl/srad/kernel/kernel_gpu_opencl_wrapper.c, main.h NUMBER_THREADS 256): one
// work-item per pixel, groups of 256 (8 warps, Table 9's minimum); fp is float (main.h). The entry
// names are Table 9's (opt_srad1/opt_srad2) for srad_kernel/srad2_kernel. The long d_Ne becomes
// long long (OpenCL's long is 64-bit). The double constants (0.5, 1.0/16.0, 0.25, 1.0) are kept:
// in OpenCL C, as here, they make the expressions double precision.

#define fp float
#define NUMBER_THREADS 256

extern "C" __global__ void opt_srad1(fp d_lambda, int d_Nr, int d_Nc, long long d_Ne, int *d_iN, int *d_iS,
                                     int *d_jE, int *d_jW, fp *d_dN, fp *d_dS, fp *d_dE, fp *d_dW, fp d_q0sqr,
                                     fp *d_c, fp *d_I) {
  int bx = blockIdx.x;
  int tx = threadIdx.x;
  int ei = bx * NUMBER_THREADS + tx;
  int row;
  int col;
  fp d_Jc;
  fp d_dN_loc, d_dS_loc, d_dW_loc, d_dE_loc;
  fp d_c_loc;
  fp d_G2, d_L, d_num, d_den, d_qsqr;
  row = (ei + 1) % d_Nr - 1;
  col = (ei + 1) / d_Nr + 1 - 1;
  if ((ei + 1) % d_Nr == 0) {
    row = d_Nr - 1;
    col = col - 1;
  }
  if (ei < d_Ne) {
    d_Jc = d_I[ei];
    d_dN_loc = d_I[d_iN[row] + d_Nr * col] - d_Jc;
    d_dS_loc = d_I[d_iS[row] + d_Nr * col] - d_Jc;
    d_dW_loc = d_I[row + d_Nr * d_jW[col]] - d_Jc;
    d_dE_loc = d_I[row + d_Nr * d_jE[col]] - d_Jc;
    d_G2 = (d_dN_loc * d_dN_loc + d_dS_loc * d_dS_loc + d_dW_loc * d_dW_loc + d_dE_loc * d_dE_loc) / (d_Jc * d_Jc);
    d_L = (d_dN_loc + d_dS_loc + d_dW_loc + d_dE_loc) / d_Jc;
    d_num = (0.5 * d_G2) - ((1.0 / 16.0) * (d_L * d_L));
    d_den = 1 + (0.25 * d_L);
    d_qsqr = d_num / (d_den * d_den);
    d_den = (d_qsqr - d_q0sqr) / (d_q0sqr * (1 + d_q0sqr));
    d_c_loc = 1.0 / (1.0 + d_den);
    if (d_c_loc < 0) {
      d_c_loc = 0;
    } else if (d_c_loc > 1) {
      d_c_loc = 1;
    }
    d_dN[ei] = d_dN_loc;
    d_dS[ei] = d_dS_loc;
    d_dW[ei] = d_dW_loc;
    d_dE[ei] = d_dE_loc;
    d_c[ei] = d_c_loc;
  }
}

extern "C" __global__ void opt_srad2(fp d_lambda, int d_Nr, int d_Nc, long long d_Ne, int *d_iN, int *d_iS,
                                     int *d_jE, int *d_jW, fp *d_dN, fp *d_dS, fp *d_dE, fp *d_dW, fp *d_c,
                                     fp *d_I) {
  int bx = blockIdx.x;
  int tx = threadIdx.x;
  int ei = bx * NUMBER_THREADS + tx;
  int row;
  int col;
  fp d_cN, d_cS, d_cW, d_cE;
  fp d_D;
  row = (ei + 1) % d_Nr - 1;
  col = (ei + 1) / d_Nr + 1 - 1;
  if ((ei + 1) % d_Nr == 0) {
    row = d_Nr - 1;
    col = col - 1;
  }
  if (ei < d_Ne) {
    d_cN = d_c[ei];
    d_cS = d_c[d_iS[row] + d_Nr * col];
    d_cW = d_c[ei];
    d_cE = d_c[row + d_Nr * d_jE[col]];
    d_D = d_cN * d_dN[ei] + d_cS * d_dS[ei] + d_cW * d_dW[ei] + d_cE * d_dE[ei];
    d_I[ei] = d_I[ei] + 0.25 * d_lambda * d_D;
  }
}
