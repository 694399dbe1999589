// CFD solver's step-factor and time-step kernels, re-written for pipeperf (not copied).
//
// Original: yuhc/gpu-rodinia (Rodinia 3.1; licence: the University of Virginia's Rodinia licence, LICENSE
// at the repository root), opencl/cfd/Kernels.cl, kernel(s) compute_step_factor, time_step (and the inline helpers compute_velocity, compute_speed_sqd, compute_pressure, compute_speed_of_sound), as of commit 9c10d3ea16ddba2ba057cc3951a9efc4c2cc18a4.
// The Pipeline-model paper (Lemeire et al., Table 9) evaluated the OpenCL versions, so these follow
// the OpenCL kernels: get_global_id/get_group_id/get_local_id become blockIdx/blockDim/threadIdx,
// __local becomes __shared__ (dynamic __local arguments become static arrays of the size the host
// passes), barrier() becomes __syncthreads(), and each kernel is extern "C" so the PTX entry keeps
// its name. Memory accesses, arithmetic and control flow are kept; host code is dropped.
// Launch (host: opencl/cfd/euler3d.cpp, util.h BLOCK_SIZE_1/4 = 192): one work-item per element,
// groups of 192 (6 warps, Table 9's minimum). nelr = the element count rounded up to 192.

#define GAMMA (1.4f)
#define NDIM 3
#define RK 3
#define VAR_DENSITY 0
#define VAR_MOMENTUM 1
#define VAR_DENSITY_ENERGY (VAR_MOMENTUM + NDIM)
#define NVAR (VAR_DENSITY_ENERGY + 1)

typedef struct {
  float x;
  float y;
  float z;
} FLOAT3;

__device__ inline void compute_velocity(float density, FLOAT3 momentum, FLOAT3 *velocity) {
  velocity->x = momentum.x / density;
  velocity->y = momentum.y / density;
  velocity->z = momentum.z / density;
}
__device__ inline float compute_speed_sqd(FLOAT3 velocity) {
  return velocity.x * velocity.x + velocity.y * velocity.y + velocity.z * velocity.z;
}
__device__ inline float compute_pressure(float density, float density_energy, float speed_sqd) {
  return ((float)(GAMMA) - (float)(1.0f)) * (density_energy - (float)(0.5f) * density * speed_sqd);
}
__device__ inline float compute_speed_of_sound(float density, float pressure) {
  return sqrtf((float)(GAMMA) * pressure / density);
}

extern "C" __global__ void compute_step_factor(float *variables, float *areas, float *step_factors, int nelr) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nelr) return;
  float density = variables[i + VAR_DENSITY * nelr];
  FLOAT3 momentum;
  momentum.x = variables[i + (VAR_MOMENTUM + 0) * nelr];
  momentum.y = variables[i + (VAR_MOMENTUM + 1) * nelr];
  momentum.z = variables[i + (VAR_MOMENTUM + 2) * nelr];
  float density_energy = variables[i + VAR_DENSITY_ENERGY * nelr];
  FLOAT3 velocity;
  compute_velocity(density, momentum, &velocity);
  float speed_sqd = compute_speed_sqd(velocity);
  float pressure = compute_pressure(density, density_energy, speed_sqd);
  float speed_of_sound = compute_speed_of_sound(density, pressure);
  step_factors[i] = (float)(0.5f) / (sqrtf(areas[i]) * (sqrtf(speed_sqd) + speed_of_sound));
}

extern "C" __global__ void time_step(int j, int nelr, float *old_variables, float *variables, float *step_factors,
                                     float *fluxes) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nelr) return;
  float factor = step_factors[i] / (float)(RK + 1 - j);
  variables[i + VAR_DENSITY * nelr] = old_variables[i + VAR_DENSITY * nelr] + factor * fluxes[i + VAR_DENSITY * nelr];
  variables[i + VAR_DENSITY_ENERGY * nelr] =
      old_variables[i + VAR_DENSITY_ENERGY * nelr] + factor * fluxes[i + VAR_DENSITY_ENERGY * nelr];
  variables[i + (VAR_MOMENTUM + 0) * nelr] =
      old_variables[i + (VAR_MOMENTUM + 0) * nelr] + factor * fluxes[i + (VAR_MOMENTUM + 0) * nelr];
  variables[i + (VAR_MOMENTUM + 1) * nelr] =
      old_variables[i + (VAR_MOMENTUM + 1) * nelr] + factor * fluxes[i + (VAR_MOMENTUM + 1) * nelr];
  variables[i + (VAR_MOMENTUM + 2) * nelr] =
      old_variables[i + (VAR_MOMENTUM + 2) * nelr] + factor * fluxes[i + (VAR_MOMENTUM + 2) * nelr];
}
