// pipeperf micro-benchmark harness: runs the generated kernels (pp_bench_*.cu) and writes CSV.
//
// Usage: pipeperf-bench --out-dir DIR [--reps N] [--only a,b] [--kinds chain,mix,barrier,peak]
//                       [--quick] [--max-seconds S] [--label TEXT] | --list | --info
// (--label: the command that asked for this run, recorded in every CSV header)
// Exit codes: 0 done, 2 bad usage, 3 CUDA error, 4 no CUDA device.
//
// Method (see pipeperf/measure/harness.py for the why):
// * occupancy: every SM gets exactly W warps: blocks of g warps, m = W / g blocks per SM, grid =
//   SMs * m; dynamic shared memory (found by bisection against the occupancy API, with the
//   shared-memory carve-out at its maximum) caps the resident blocks at m, so no block waits;
// * cycles: lane 0 of each warp reads %clock64 before and after its chain; per SM the run takes
//   max(after) - min(before) cycles (the counter is per SM, so cycles are exact whatever the boost
//   clock does); the launch's figure is the median over SMs, and a point's the median over reps;
// * start gate: warps count themselves in per SM and wait until all W have arrived before reading
//   the clock, so block dispatch skew stays out of the timed region;
// * checks: %smid says where each warp ran: every SM used must hold exactly W warps whose timed
//   regions all overlap, else the row is flagged (overlap_ok = 0, sm_warps_min/max);
// * clock: %clock64 cycles per %globaltimer ns over 50 ms on every SM, at the start and the end;
// * timing: CUDA events around every launch, one warm-up launch per point, L2 flushed (a read of
//   twice its size) before every launch of the streaming memory chains; half a second of work on
//   every SM first, so the clocks are up (memory latencies in SM cycles depend on the SM clock).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "bench_common.cuh"

static std::vector<PPBench>& registry() {
  static std::vector<PPBench> r;
  return r;
}
int pp_register(const PPBench& b) {
  registry().push_back(b);
  return (int)registry().size();
}

#define CK(call)                                                                               \
  do {                                                                                         \
    cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) {                                                                   \
      fprintf(stderr, "pipeperf-bench: CUDA error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
              cudaGetErrorString(e_));                                                         \
      exit(3);                                                                                 \
    }                                                                                          \
  } while (0)

static double now_s() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  return tv.tv_sec + 1e-6 * tv.tv_usec;
}

// ------------------------------------------------------------------ NVML, loaded if present
struct Nvml {
  void* lib = nullptr;
  void* dev = nullptr;
  int (*getClock)(void*, int, unsigned*) = nullptr;
  bool ok() const { return dev != nullptr; }
  unsigned clock(int type) const {  // 0 graphics, 1 SM, 2 memory (nvmlClockType_t)
    unsigned v = 0;
    if (ok() && getClock(dev, type, &v) == 0) return v;
    return 0;
  }
};

static Nvml open_nvml(const char* pci_bus_id, std::string& driver, unsigned& max_sm, unsigned& max_mem) {
  Nvml n;
  n.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (!n.lib) return n;
  auto init = (int (*)())dlsym(n.lib, "nvmlInit_v2");
  auto by_pci = (int (*)(const char*, void**))dlsym(n.lib, "nvmlDeviceGetHandleByPciBusId_v2");
  auto drv = (int (*)(char*, unsigned))dlsym(n.lib, "nvmlSystemGetDriverVersion");
  auto maxclk = (int (*)(void*, int, unsigned*))dlsym(n.lib, "nvmlDeviceGetMaxClockInfo");
  n.getClock = (int (*)(void*, int, unsigned*))dlsym(n.lib, "nvmlDeviceGetClockInfo");
  if (!init || !by_pci || !n.getClock || init() != 0) return n;
  char buf[96] = {0};
  if (drv && drv(buf, sizeof buf) == 0) driver = buf;
  void* dev = nullptr;
  if (by_pci(pci_bus_id, &dev) != 0) return n;
  n.dev = dev;
  if (maxclk) {
    maxclk(dev, 1, &max_sm);
    maxclk(dev, 2, &max_mem);
  }
  return n;
}

// ------------------------------------------------------------------ device
struct Dev {
  cudaDeviceProp p;
  int sms = 0, max_warps = 0, max_blocks = 0, clock_khz = 0, mem_clock_khz = 0, bus_width = 0;
  int driver = 0, runtime = 0;
  size_t smem_optin = 0, l2 = 0;
  std::string nvml_driver, pci;
  unsigned nvml_max_sm = 0, nvml_max_mem = 0;
  Nvml nvml;
};

struct Options {
  std::string out_dir, only, kinds;
  int reps = 5;
  bool quick = false, list = false, info = false;
  double max_seconds = 480;
  std::string command, label;
};

static void usage(FILE* f) {
  fprintf(f,
          "usage: pipeperf-bench --out-dir DIR [--reps N] [--only NAMES] [--kinds KINDS] [--quick]\n"
          "                      [--max-seconds S] [--label TEXT] | --list | --info\n");
}

static std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

static const char* kind_name(int k) {
  switch (k) {
    case PP_CHAIN: return "chain";
    case PP_MIX: return "mix";
    case PP_BARRIER: return "barrier";
    default: return "peak";
  }
}

// ------------------------------------------------------------------ buffers
__global__ void pp_init_chase(unsigned* a, unsigned long long words, unsigned long long chunk,
                              unsigned long long step, int ring, unsigned long long base) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < words;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    unsigned long long next;
    if (ring) {
      const unsigned long long c0 = (i / chunk) * chunk;
      next = c0 + (i - c0 + step) % chunk;
    } else {
      next = i + step;
    }
    a[i] = (unsigned)(base + 4ull * next);  // low half of the next element's address
  }
}

__global__ void pp_init_pattern(unsigned* a, unsigned long long words) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < words;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    unsigned x = (unsigned)i * 2654435761u + 0x9e3779b9u;  // never all zeros: zeros can time faster
    a[i] = (x & 0x007fffffu) | 0x3f800000u;                // a float in [1, 2)
  }
}

// L2 flush by reading (not writing: written lines would be written back to DRAM during the next
// timed kernel and steal bandwidth from it) a buffer of twice the L2's size.
__global__ void pp_flush_read(const uint4* p, unsigned long long n, unsigned* sink) {
  unsigned acc = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x12345678u) sink[0] = acc;  // practically never: keeps the loads alive
}

// Keeps every SM busy for `ns` nanoseconds so the clocks leave their idle state before measuring.
__global__ void pp_spin(unsigned long long ns, unsigned* sink) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  float x = threadIdx.x;
  do {
    for (int i = 0; i < 256; ++i) x = x * 0.999f + 0.5f;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
  if (x == 12345.0f) sink[0] = 1;
}

// The SM clock as it runs: one warp per SM counts %clock64 cycles over `ns` of %globaltimer.
__global__ void pp_clock_probe(unsigned long long ns, unsigned long long* out) {
  unsigned long long g0, g, c0, c1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0) :: "memory");
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
  } while (g - g0 < ns);
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c1) :: "memory");
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = c1 - c0;
    out[2 * blockIdx.x + 1] = g - g0;
  }
}

// A device buffer whose [ptr, ptr + bytes) lies in one 4 GiB window, so 32-bit chain values
// plus a constant high half address it.
struct WindowBuf {
  void* raw = nullptr;
  unsigned char* ptr = nullptr;
  size_t bytes = 0;
};

static WindowBuf alloc_window(size_t bytes) {
  WindowBuf w;
  w.bytes = bytes;
  CK(cudaMalloc(&w.raw, 2 * bytes + 256));
  unsigned long long p = ((unsigned long long)w.raw + 255) & ~255ull;
  if ((p >> 32) != ((p + bytes - 1) >> 32)) p = ((p >> 32) + 1) << 32;
  w.ptr = (unsigned char*)p;
  return w;
}

// ------------------------------------------------------------------ one launch
struct LaunchStats {
  double cycles = 0, ms = 0;
  int sm_used = 0, warps_min = 0, warps_max = 0;
  bool overlap = true;
};

struct Ctx {
  Dev d;
  Options o;
  unsigned long long* rec = nullptr;
  size_t rec_words = 0;
  unsigned* gate = nullptr;  // per-SM start-gate counters
  float* sink = nullptr;
  void* flush = nullptr;
  size_t flush_bytes = 0;
  cudaEvent_t e0, e1;
  std::vector<unsigned long long> host_rec;
  double t_start = 0;
  bool truncated = false, complete = false;
  double clock_start = 0, clock_end = 0;  // GHz, from pp_clock_probe
};

static const int PP_GATE_SLOTS = 4096;  // > %nsmid on any GPU

static PPArgs base_args(Ctx& c) {
  PPArgs a;
  memset(&a, 0, sizeof a);
  a.rec = c.rec;
  a.sink = c.sink;
  a.f1 = 1.0f;
  a.f2 = 1.0001f;
  a.f3 = 0.5f;
  a.d1 = 1.0;
  a.d2 = 1.0000001;
  a.d3 = 0.5;
  a.u1 = 3u;
  a.u2 = 5u;
  a.u3 = 0x7fffffffu;
  return a;
}

static LaunchStats launch_timed(Ctx& c, const PPBench& b, PPArgs a, int g, int m, int dyn, bool flush) {
  const int grid = c.d.sms * m, block = 32 * g;
  const size_t warps = (size_t)grid * g;
  if (3 * warps > c.rec_words) {
    fprintf(stderr, "pipeperf-bench: internal error: record buffer too small\n");
    exit(3);
  }
  CK(cudaMemsetAsync(c.rec, 0, 3 * warps * sizeof(unsigned long long)));
  CK(cudaMemsetAsync(c.gate, 0, PP_GATE_SLOTS * sizeof(unsigned)));
  a.gate = c.gate;
  a.gate_warps = (unsigned)(g * m);
  if (flush) {
    pp_flush_read<<<c.d.sms * 4, 256>>>((const uint4*)c.flush, c.flush_bytes / 16, (unsigned*)c.sink);
    CK(cudaGetLastError());
  }
  void* params[] = {&a};
  CK(cudaEventRecord(c.e0));
  CK(cudaLaunchKernel(b.func, dim3(grid), dim3(block), params, (size_t)dyn, 0));
  CK(cudaGetLastError());
  CK(cudaEventRecord(c.e1));
  CK(cudaEventSynchronize(c.e1));
  LaunchStats s;
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, c.e0, c.e1));
  s.ms = ms;
  c.host_rec.resize(3 * warps);
  CK(cudaMemcpy(c.host_rec.data(), c.rec, 3 * warps * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  struct Sm { int n = 0; unsigned long long t0min = ~0ull, t0max = 0, t1min = ~0ull, t1max = 0; };
  std::map<unsigned, Sm> per;
  for (size_t w = 0; w < warps; ++w) {
    const unsigned long long t0 = c.host_rec[3 * w], t1 = c.host_rec[3 * w + 1];
    if (t1 == 0 || t1 < t0) {
      fprintf(stderr, "pipeperf-bench: %s: warp %zu recorded no time (kernel did not finish?)\n", b.name, w);
      exit(3);
    }
    Sm& sm = per[(unsigned)(c.host_rec[3 * w + 2] & 0xffffffffu)];
    sm.n++;
    sm.t0min = std::min(sm.t0min, t0);
    sm.t0max = std::max(sm.t0max, t0);
    sm.t1min = std::min(sm.t1min, t1);
    sm.t1max = std::max(sm.t1max, t1);
  }
  std::vector<double> spans;
  s.warps_min = 1 << 30;
  for (auto& kv : per) {
    spans.push_back((double)(kv.second.t1max - kv.second.t0min));
    s.warps_min = std::min(s.warps_min, kv.second.n);
    s.warps_max = std::max(s.warps_max, kv.second.n);
    if (kv.second.t0max >= kv.second.t1min) s.overlap = false;
  }
  std::sort(spans.begin(), spans.end());
  const size_t n = spans.size();
  s.cycles = n % 2 ? spans[n / 2] : 0.5 * (spans[n / 2 - 1] + spans[n / 2]);
  s.sm_used = (int)n;
  return s;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// GHz: median over SMs of clock64 cycles per globaltimer nanosecond over 50 ms.
static double probe_clock(Ctx& c) {
  const int n = c.d.sms;
  pp_clock_probe<<<n, 32>>>(50000000ull, c.rec);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<unsigned long long> h(2 * n);
  CK(cudaMemcpy(h.data(), c.rec, 2 * n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  std::vector<double> ghz;
  for (int i = 0; i < n; ++i)
    if (h[2 * i + 1] > 0) ghz.push_back((double)h[2 * i] / (double)h[2 * i + 1]);
  return ghz.empty() ? 0.0 : median(ghz);
}

// ------------------------------------------------------------------ occupancy control
struct FuncInfo {
  int regs = 0, static_smem = 0, max_dyn = 0;
};

static FuncInfo prepare(Ctx& c, const PPBench& b) {
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, b.func));
  FuncInfo fi;
  fi.regs = fa.numRegs;
  fi.static_smem = (int)fa.sharedSizeBytes;
  fi.max_dyn = (int)c.d.smem_optin - fi.static_smem;
  CK(cudaFuncSetAttribute(b.func, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  CK(cudaFuncSetAttribute(b.func, cudaFuncAttributeMaxDynamicSharedMemorySize, fi.max_dyn));
  return fi;
}

static int occupancy(const PPBench& b, int block, int dyn) {
  int n = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, b.func, block, (size_t)dyn));
  return n;
}

// Smallest dynamic shared memory (>= need) that leaves exactly m resident blocks; -1 if none.
static int dyn_for(const PPBench& b, const FuncInfo& fi, int g, int m, int need) {
  const int block = 32 * g;
  if (need > fi.max_dyn) return -1;
  int lo = need, hi = fi.max_dyn;
  const int at_lo = occupancy(b, block, lo);
  if (at_lo < m) return -1;
  if (at_lo == m) return lo;
  if (occupancy(b, block, hi) > m) return -1;
  while (hi - lo > 1) {  // occupancy(lo) > m >= occupancy(hi)
    const int mid = lo + (hi - lo) / 2;
    if (occupancy(b, block, mid) > m) lo = mid; else hi = mid;
  }
  return occupancy(b, block, hi) == m ? hi : -1;
}

// (warps per block, blocks per SM) for each occupancy; mirrors microbench.occupancy_plan.
static std::vector<std::pair<int, int>> plan(const Dev& d, bool quick) {
  std::vector<std::pair<int, int>> out;
  std::vector<int> keep;
  for (int v = 1; v <= d.max_warps; v *= 2) {
    keep.push_back(v);
    if (v >= 2) keep.push_back(v + v / 2);
  }
  keep.push_back(d.max_warps);
  for (int w = 1; w <= d.max_warps; ++w) {
    if (quick && std::find(keep.begin(), keep.end(), w) == keep.end()) continue;
    for (int g = 1; g <= std::min(w, 32); ++g)
      if (w % g == 0 && w / g <= d.max_blocks) {
        out.push_back({g, w / g});
        break;
      }
  }
  return out;
}

// ------------------------------------------------------------------ CSV
static const char* SWEEP_HEADER =
    "bench,kind,class,class2,subsystem,param,group_warps,blocks_per_sm,warps_per_sm,dyn_smem,n1,n2,reps,"
    "cycles_median,cycles_min,cycles_max,ms_median,sm_used,sm_warps_min,sm_warps_max,overlap_ok,regs,"
    "nvml_sm_mhz,cycles_per_instr_warp\n";
static const char* PEAK_HEADER =
    "bench,parameter,value,unit,ms_median,ms_min,ms_max,reps,iters,grid,block,amount,ptx\n";

static std::string iso_date() {
  time_t t = time(nullptr);
  struct tm g;
  gmtime_r(&t, &g);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &g);
  return buf;
}

static void write_meta(FILE* f, const Ctx& c, const std::string& date) {
  const Dev& d = c.d;
  fprintf(f, "# pipeperf micro-benchmarks, harness version 1\n");
  fprintf(f, "# gpu: %s\n", d.p.name);
  fprintf(f, "# compute_capability: %d.%d\n", d.p.major, d.p.minor);
  fprintf(f, "# sms: %d\n", d.sms);
  fprintf(f, "# max_warps_per_sm: %d\n", d.max_warps);
  fprintf(f, "# max_blocks_per_sm: %d\n", d.max_blocks);
  fprintf(f, "# shared_per_sm: %zu\n", (size_t)d.p.sharedMemPerMultiprocessor);
  fprintf(f, "# shared_per_block_optin: %zu\n", d.smem_optin);
  fprintf(f, "# reserved_shared_per_block: %zu\n", (size_t)d.p.reservedSharedMemPerBlock);
  fprintf(f, "# l2_bytes: %zu\n", d.l2);
  fprintf(f, "# global_bytes: %zu\n", (size_t)d.p.totalGlobalMem);
  fprintf(f, "# clock_khz: %d\n", d.clock_khz);
  fprintf(f, "# memory_clock_khz: %d\n", d.mem_clock_khz);
  fprintf(f, "# memory_bus_bits: %d\n", d.bus_width);
  fprintf(f, "# nvml_max_sm_clock_mhz: %u\n", d.nvml_max_sm);
  fprintf(f, "# nvml_max_memory_clock_mhz: %u\n", d.nvml_max_mem);
  fprintf(f, "# driver: %s\n", d.nvml_driver.empty() ? "unknown" : d.nvml_driver.c_str());
  fprintf(f, "# cuda_driver_version: %d\n", d.driver);
  fprintf(f, "# cuda_runtime_version: %d\n", d.runtime);
  fprintf(f, "# pci_bus_id: %s\n", d.pci.c_str());
  fprintf(f, "# date: %s\n", date.c_str());
  fprintf(f, "# reps: %d\n", c.o.reps);
  fprintf(f, "# quick: %d\n", c.o.quick ? 1 : 0);
  fprintf(f, "# truncated: %d\n", c.truncated ? 1 : 0);
  fprintf(f, "# complete: %d\n", c.complete ? 1 : 0);
  fprintf(f, "# sm_clock_ghz_start: %.4f\n", c.clock_start);
  fprintf(f, "# sm_clock_ghz_end: %.4f\n", c.clock_end);
  fprintf(f, "# command: %s\n", c.o.command.c_str());
  if (!c.o.label.empty()) fprintf(f, "# pipeperf_command: %s\n", c.o.label.c_str());
}

static std::string fmt(const char* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

// One sweep point: warm-up, reps, one CSV row. Returns false if the occupancy cannot be set.
static bool run_point(Ctx& c, const PPBench& b, const FuncInfo& fi, PPArgs a, int g, int m, bool flush,
                      std::vector<std::string>& rows) {
  const int dyn = dyn_for(b, fi, g, m, b.smem_bytes);
  if (dyn < 0) {
    fprintf(stderr, "pipeperf-bench: %s: cannot hold exactly %d blocks of %d warps per SM; point skipped\n",
            b.name, m, g);
    return false;
  }
  launch_timed(c, b, a, g, m, dyn, flush);  // warm-up
  std::vector<double> cyc, ms;
  int wmin = 1 << 30, wmax = 0, used = 1 << 30;
  bool overlap = true;
  for (int r = 0; r < c.o.reps; ++r) {
    LaunchStats s = launch_timed(c, b, a, g, m, dyn, flush);
    cyc.push_back(s.cycles);
    ms.push_back(s.ms);
    wmin = std::min(wmin, s.warps_min);
    wmax = std::max(wmax, s.warps_max);
    used = std::min(used, s.sm_used);
    overlap = overlap && s.overlap;
  }
  const long long n1 = (long long)b.n1_per_iter * a.iters, n2 = (long long)b.n2_per_iter * a.iters;
  // t / (N W): Eq. 1's time per instruction per warp (Lambda at W = 1, lambda when saturated)
  const double per = median(cyc) / ((double)(n1 + n2) * g * m);
  rows.push_back(fmt("%s,%s,%s,%s,%s,%d,%d,%d,%d,%d,%lld,%lld,%d,%.1f,%.1f,%.1f,%.6f,%d,%d,%d,%d,%d,%u,%.5f\n",
                     b.name, kind_name(b.kind), b.cls, b.cls2, b.subsystem, b.param, g, m, g * m, dyn, n1,
                     n2, c.o.reps, median(cyc), *std::min_element(cyc.begin(), cyc.end()),
                     *std::max_element(cyc.begin(), cyc.end()), median(ms), used, wmin, wmax, overlap ? 1 : 0,
                     fi.regs, c.d.nvml.clock(1), per));
  return true;
}

// Global buffer of a memory chain; returns the args with buf/chunk/iters set.
static PPArgs setup_memory(Ctx& c, const PPBench& b, PPArgs a, WindowBuf& wb) {
  if (b.memory == PP_MEM_NONE) return a;
  const unsigned long long max_warps = (unsigned long long)c.d.sms * c.d.max_warps;
  const unsigned long long stride = b.param > 0 ? b.param : 1;
  size_t free_b = 0, total_b = 0;
  CK(cudaMemGetInfo(&free_b, &total_b));
  const unsigned long long budget = std::min<unsigned long long>(free_b / 4, 3ull << 29);  // <= 1.5 GiB
  unsigned long long chunk = 0, words = 0;
  int ring = 0;
  if (b.memory == PP_MEM_WORDS) {
    words = max_warps * 32;
  } else if (b.memory == PP_MEM_STREAM) {
    // each thread walks n1 fresh steps of 32*stride words: the chain never revisits a line
    while (true) {
      chunk = (unsigned long long)b.n1_per_iter * a.iters * 32 * stride;
      words = max_warps * chunk + 32 * stride;
      if (4 * words <= budget || a.iters == 1) break;
      a.iters = std::max(1, a.iters / 2);
    }
  } else if (b.memory == PP_MEM_RING) {
    unsigned long long lines = b.ring_lines;
    if (lines == 0) lines = std::max<unsigned long long>(1, std::min<unsigned long long>(16, c.d.l2 / 2 / (max_warps * 128 * stride)));
    chunk = lines * 32 * stride;
    words = max_warps * chunk;
    ring = 1;
    a.prime = (unsigned)lines;
  }
  if (4 * words > budget && b.memory != PP_MEM_WORDS) {
    fprintf(stderr, "pipeperf-bench: %s: needs %llu MB of device memory, more than the budget\n", b.name,
            4 * words >> 20);
    exit(3);
  }
  wb = alloc_window(4 * words);
  a.buf = wb.ptr;
  a.chunk = chunk;
  if (b.memory == PP_MEM_WORDS) {
    CK(cudaMemset(wb.ptr, 0, 4 * words));
  } else {
    pp_init_chase<<<c.d.sms * 8, 256>>>((unsigned*)wb.ptr, words, chunk, 32 * stride, ring,
                                        (unsigned long long)wb.ptr);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
  }
  return a;
}

static void run_sweep(Ctx& c, const PPBench& b, std::vector<std::string>& rows, bool full) {
  FuncInfo fi = prepare(c, b);
  PPArgs a = base_args(c);
  a.iters = b.iters;
  WindowBuf wb;
  a = setup_memory(c, b, a, wb);
  const bool flush = b.memory == PP_MEM_STREAM;
  std::vector<std::pair<int, int>> pts = plan(c.d, c.o.quick);
  if (!full) pts = {pts.back()};
  for (auto& gm : pts) run_point(c, b, fi, a, gm.first, gm.second, flush, rows);
  if (wb.raw) CK(cudaFree(wb.raw));
}

static void run_barrier(Ctx& c, const PPBench& b, std::vector<std::string>& rows) {
  FuncInfo fi = prepare(c, b);
  PPArgs a = base_args(c);
  a.iters = b.iters;
  const int gs[] = {1, 2, 4, 8, 16, 32};
  for (int g : gs) {
    if (32 * g > c.d.p.maxThreadsPerBlock || g > c.d.max_warps) continue;
    const int mmax = std::min(c.d.max_blocks, c.d.max_warps / g);
    for (int m = 1; m <= mmax; ++m) {
      if (c.o.quick && m != 1 && m != mmax && (m & (m - 1))) continue;
      run_point(c, b, fi, a, g, m, false, rows);
    }
  }
}

static void run_peak(Ctx& c, const PPBench& b, std::vector<std::string>& rows) {
  prepare(c, b);
  PPArgs a = base_args(c);
  a.iters = b.iters;
  const int block = b.block > 0 ? b.block : 256;
  const int per_sm = occupancy(b, block, b.smem_bytes);
  if (per_sm < 1) {
    fprintf(stderr, "pipeperf-bench: %s: cannot run %d-thread blocks\n", b.name, block);
    return;
  }
  int grid = c.d.sms * per_sm;
  void* buf = nullptr;
  unsigned long long n4 = 0;
  if (b.memory == PP_MEM_COPY) {
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    const unsigned long long bytes = std::min<unsigned long long>(1ull << 30, free_b / 4);  // each side
    n4 = bytes / 16;
    CK(cudaMalloc(&buf, 2 * n4 * 16));
    pp_init_pattern<<<c.d.sms * 8, 256>>>((unsigned*)buf, 2 * n4 * 4);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    a.buf = buf;
    a.chunk = n4;
  }
  auto once = [&](float& ms) {
    void* params[] = {&a};
    CK(cudaEventRecord(c.e0));
    CK(cudaLaunchKernel(b.func, dim3(grid), dim3(block), params, (size_t)b.smem_bytes, 0));
    CK(cudaGetLastError());
    CK(cudaEventRecord(c.e1));
    CK(cudaEventSynchronize(c.e1));
    CK(cudaEventElapsedTime(&ms, c.e0, c.e1));
  };
  float ms = 0;
  once(ms);  // warm-up (module load, clocks up)
  once(ms);
  for (int k = 0; k < 20 && ms < 2.0f && a.iters < (1 << 24); ++k) {  // aim at >= 2 ms per launch
    const double f = ms > 0.01f ? std::min(16.0, 2.5 / ms) : 16.0;
    a.iters = (int)std::max<double>(a.iters + 1, std::ceil(a.iters * f));
    once(ms);
  }
  std::vector<double> v;
  for (int r = 0; r < c.o.reps; ++r) {
    once(ms);
    v.push_back(ms);
  }
  const double med = median(v);
  double amount;
  if (b.memory == PP_MEM_COPY) amount = (double)a.iters * n4 * 16.0 * b.param;  // bytes
  else amount = (double)grid * block * a.iters * b.ops_per_iter;               // operations
  const double rate = amount / (med * 1e-3) / 1e9;
  rows.push_back(fmt("%s,%s,%.3f,%s,%.6f,%.6f,%.6f,%d,%d,%d,%d,%.0f,\"%s\"\n", b.name, b.cls, rate, b.unit, med,
                     *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()), c.o.reps,
                     a.iters, grid, block, amount, b.ptx));
  if (buf) CK(cudaFree(buf));
}

static void write_csv(const Ctx& c, const std::string& file, const char* header, const std::vector<std::string>& rows,
                      const std::string& date, bool quiet) {
  if (rows.empty()) return;
  const std::string path = c.o.out_dir + "/" + file;
  FILE* f = fopen(path.c_str(), "w");
  if (!f) {
    fprintf(stderr, "pipeperf-bench: cannot write %s: %s\n", path.c_str(), strerror(errno));
    exit(2);
  }
  write_meta(f, c, date);
  fputs(header, f);
  for (auto& r : rows) fputs(r.c_str(), f);
  fclose(f);
  if (!quiet) fprintf(stderr, "pipeperf-bench: wrote %s (%zu rows)\n", path.c_str(), rows.size());
}

static bool selected(const Options& o, const PPBench& b) {
  if (!o.kinds.empty()) {
    auto ks = split(o.kinds);
    if (std::find(ks.begin(), ks.end(), std::string(kind_name(b.kind))) == ks.end()) return false;
  }
  if (!o.only.empty()) {
    auto ns = split(o.only);
    if (std::find(ns.begin(), ns.end(), std::string(b.name)) == ns.end()) return false;
  }
  return true;
}

int main(int argc, char** argv) {
  Options o;
  for (int i = 0; i < argc; ++i) o.command += (i ? " " : "") + std::string(argv[i]);
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&](const char* what) -> std::string {
      if (i + 1 >= argc) {
        fprintf(stderr, "pipeperf-bench: %s needs a value\n", what);
        usage(stderr);
        exit(2);
      }
      return argv[++i];
    };
    if (s == "--out-dir") o.out_dir = value("--out-dir");
    else if (s == "--reps") o.reps = atoi(value("--reps").c_str());
    else if (s == "--only") o.only = value("--only");
    else if (s == "--kinds") o.kinds = value("--kinds");
    else if (s == "--label") o.label = value("--label");
    else if (s == "--max-seconds") o.max_seconds = atof(value("--max-seconds").c_str());
    else if (s == "--quick") o.quick = true;
    else if (s == "--list") o.list = true;
    else if (s == "--plan") {  // print the occupancy plan for MAX_WARPS,MAX_BLOCKS (no GPU needed)
      Dev d;
      if (sscanf(value("--plan").c_str(), "%d,%d", &d.max_warps, &d.max_blocks) != 2) {
        fprintf(stderr, "pipeperf-bench: --plan needs MAX_WARPS,MAX_BLOCKS\n");
        return 2;
      }
      const bool quick = i + 1 < argc && std::string(argv[i + 1]) == "--quick";
      for (auto& gm : plan(d, quick)) printf("%d,%d\n", gm.first, gm.second);
      return 0;
    }
    else if (s == "--info") o.info = true;
    else if (s == "-h" || s == "--help") { usage(stdout); return 0; }
    else {
      fprintf(stderr, "pipeperf-bench: unknown argument '%s'\n", s.c_str());
      usage(stderr);
      return 2;
    }
  }
  if (o.list) {
    std::sort(registry().begin(), registry().end(), [](const PPBench& x, const PPBench& y) { return x.order < y.order; });
    for (auto& b : registry())
      printf("%s,%s,%s,%s,%d,%d\n", b.name, kind_name(b.kind), b.cls, b.subsystem, b.n1_per_iter * b.iters,
             b.n2_per_iter * b.iters);
    return 0;
  }
  if (!o.info && o.out_dir.empty()) {
    usage(stderr);
    return 2;
  }
  if (o.reps < 1) o.reps = 1;
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) {
    fprintf(stderr, "pipeperf-bench: no CUDA device: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    return 4;
  }
  Ctx c;
  c.o = o;
  Dev& d = c.d;
  CK(cudaSetDevice(0));
  CK(cudaFree(0));
  CK(cudaGetDeviceProperties(&d.p, 0));
  d.sms = d.p.multiProcessorCount;
  d.max_warps = d.p.maxThreadsPerMultiProcessor / 32;
  d.max_blocks = d.p.maxBlocksPerMultiProcessor;
  d.smem_optin = d.p.sharedMemPerBlockOptin;
  d.l2 = d.p.l2CacheSize;
  CK(cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, 0));
  CK(cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, 0));
  CK(cudaDeviceGetAttribute(&d.bus_width, cudaDevAttrGlobalMemoryBusWidth, 0));
  CK(cudaDriverGetVersion(&d.driver));
  CK(cudaRuntimeGetVersion(&d.runtime));
  char pci[32] = {0};
  CK(cudaDeviceGetPCIBusId(pci, sizeof pci, 0));
  d.pci = pci;
  d.nvml = open_nvml(pci, d.nvml_driver, d.nvml_max_sm, d.nvml_max_mem);
  const std::string date = iso_date();
  if (o.info) {
    write_meta(stdout, c, date);
    return 0;
  }
  mkdir(o.out_dir.c_str(), 0777);
  // buffers shared by all benchmarks
  c.rec_words = 3ull * d.sms * d.max_warps;
  CK(cudaMalloc(&c.rec, c.rec_words * sizeof(unsigned long long)));
  CK(cudaMalloc(&c.gate, PP_GATE_SLOTS * sizeof(unsigned)));
  CK(cudaMalloc(&c.sink, (size_t)d.sms * d.p.maxThreadsPerMultiProcessor * sizeof(float) + 4096));
  c.flush_bytes = std::max<size_t>(2 * d.l2, 64u << 20);
  CK(cudaMalloc(&c.flush, c.flush_bytes));
  CK(cudaMemset(c.flush, 0x5a, c.flush_bytes));
  // clocks up: half a second of work on every SM, then the first flush evicts the dirty lines
  pp_spin<<<d.sms * 4, 256>>>(500000000ull, (unsigned*)c.sink);
  CK(cudaGetLastError());
  pp_flush_read<<<d.sms * 4, 256>>>((const uint4*)c.flush, c.flush_bytes / 16, (unsigned*)c.sink);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaEventCreate(&c.e0));
  CK(cudaEventCreate(&c.e1));
  c.clock_start = probe_clock(c);
  fprintf(stderr, "pipeperf-bench: %s, CC %d.%d, %d SMs, %d warps and %d blocks per SM, driver %s\n", d.p.name,
          d.p.major, d.p.minor, d.sms, d.max_warps, d.max_blocks, d.nvml_driver.c_str());
  std::vector<std::string> chains, mix, barrier, peaks;
  c.t_start = now_s();
  std::vector<const PPBench*> todo;
  for (auto& b : registry())
    if (selected(o, b)) todo.push_back(&b);
  std::sort(todo.begin(), todo.end(), [](const PPBench* x, const PPBench* y) { return x->order < y->order; });
  int k = 0;
  for (const PPBench* bp : todo) {
    const PPBench& b = *bp;
    ++k;
    if (now_s() - c.t_start > o.max_seconds) {
      c.truncated = true;
      fprintf(stderr, "pipeperf-bench: time budget of %.0f s spent: %s and later benchmarks skipped\n",
              o.max_seconds, b.name);
      break;
    }
    const double t0 = now_s();
    if (b.kind == PP_CHAIN) run_sweep(c, b, chains, true);
    else if (b.kind == PP_MIX) run_sweep(c, b, mix, b.param == 4);  // beta 4: also over occupancy (Sec. 6.1)
    else if (b.kind == PP_BARRIER) run_barrier(c, b, barrier);
    else run_peak(c, b, peaks);
    fprintf(stderr, "pipeperf-bench: [%d/%zu] %s %.2f s\n", k, todo.size(), b.name, now_s() - t0);
    // rewrite the files after every benchmark: if a later one fails, what ran is kept ("complete: 0")
    write_csv(c, "chains.csv", SWEEP_HEADER, chains, date, true);
    write_csv(c, "mix.csv", SWEEP_HEADER, mix, date, true);
    write_csv(c, "barrier.csv", SWEEP_HEADER, barrier, date, true);
    write_csv(c, "peaks.csv", PEAK_HEADER, peaks, date, true);
  }
  c.complete = true;
  c.clock_end = probe_clock(c);
  fprintf(stderr, "pipeperf-bench: SM clock %.3f GHz at the start, %.3f GHz at the end\n", c.clock_start,
          c.clock_end);
  write_csv(c, "chains.csv", SWEEP_HEADER, chains, date, false);
  write_csv(c, "mix.csv", SWEEP_HEADER, mix, date, false);
  write_csv(c, "barrier.csv", SWEEP_HEADER, barrier, date, false);
  write_csv(c, "peaks.csv", PEAK_HEADER, peaks, date, false);
  fprintf(stderr, "pipeperf-bench: done in %.1f s\n", now_s() - c.t_start);
  return 0;
}
