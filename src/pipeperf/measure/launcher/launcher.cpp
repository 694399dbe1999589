// pipeperf-launch: run one kernel of a compiled module (cubin, fatbin or PTX) and time it.
//
//   pipeperf-launch --module K.cubin --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]]
//                   [--arg SPEC]... [--smem BYTES] [--reps N] [--warmup N] [--sweep-occupancy] [--reset-buffers]
//                   [--out FILE.csv] [--command TEXT] | --parse-only ... | --info
//
// SPEC (one per kernel parameter, in order; "NAME=" is optional and only labels the argument):
//   NAME=1048576              scalar; integer or floating literal, width from the kernel's parameter
//   NAME=f32:2.5              scalar of an explicit type (i8 u8 i16 u16 i32 u32 i64 u64 f32 f64)
//   NAME=rand:f32:N[:LO:HI]   device buffer of N uniform random values (floats [0,1), ints [0,100))
//   NAME=zeros:f32:N | ones:f32:N | arange:i32:N (iota = arange)   (types as above, and f16)
//   NAME=file.npy             device buffer with the contents of a NumPy .npy file (C order)
// pipeperf measure binds the specs to the kernel's parameters first (names, types) and passes them
// here in their canonical spelling (pipeperf.util.launch_args): scalars typed, `arange` for `iota`.
//
// The kernel is loaded with the CUDA driver API (cuModuleLoadData, cuLaunchKernel) in the primary
// context that the runtime creates. Driver entry points come from cudaGetDriverEntryPointByVersion,
// so the program needs no libcuda at link time (the CUDA 13 toolkit on our build machines ships no
// stubs/libcuda.so) and runs wherever a driver is installed. Timing: CUDA events around each launch,
// after warm-up launches; the median of --reps launches is reported. --sweep-occupancy adds dynamic
// shared memory so that exactly m blocks fit on an SM, for every m from the kernel's natural
// occupancy down to 1, with the shared-memory carve-out at its maximum.
// Exit codes: 0 done, 2 bad usage, 3 CUDA error, 4 no CUDA device.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

static void die(int code, const char* fmt, const char* a = "", const char* b = "") {
  fprintf(stderr, "pipeperf-launch: ");
  fprintf(stderr, fmt, a, b);
  fprintf(stderr, "\n");
  exit(code);
}

#define CK(call)                                                                                  \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) die(3, "CUDA error in %s: %s", #call, cudaGetErrorString(e_));         \
  } while (0)

// ------------------------------------------------------------------ driver API through the runtime
struct Driver {
  decltype(&cuModuleLoadData) moduleLoadData = nullptr;
  decltype(&cuModuleGetFunction) moduleGetFunction = nullptr;
  decltype(&cuLaunchKernel) launchKernel = nullptr;
  decltype(&cuFuncGetAttribute) funcGetAttribute = nullptr;
  decltype(&cuFuncSetAttribute) funcSetAttribute = nullptr;
  decltype(&cuOccupancyMaxActiveBlocksPerMultiprocessor) occupancy = nullptr;
  decltype(&cuFuncGetParamInfo) paramInfo = nullptr;  // CUDA >= 12.4 drivers
  decltype(&cuGetErrorString) errorString = nullptr;
};

template <class F>
static void entry(const char* name, F& fn, bool required) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q;
  cudaError_t e = cudaGetDriverEntryPointByVersion(name, &p, CUDART_VERSION, cudaEnableDefault, &q);
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !p) {
    p = nullptr;
    if (required) die(3, "the CUDA driver has no entry point %s", name);
  }
  fn = reinterpret_cast<F>(p);
}

static Driver load_driver() {
  Driver d;
  entry("cuModuleLoadData", d.moduleLoadData, true);
  entry("cuModuleGetFunction", d.moduleGetFunction, true);
  entry("cuLaunchKernel", d.launchKernel, true);
  entry("cuFuncGetAttribute", d.funcGetAttribute, true);
  entry("cuFuncSetAttribute", d.funcSetAttribute, true);
  entry("cuOccupancyMaxActiveBlocksPerMultiprocessor", d.occupancy, true);
  entry("cuFuncGetParamInfo", d.paramInfo, false);
  entry("cuGetErrorString", d.errorString, false);
  return d;
}

static Driver DRV;

static void ckd(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* s = "unknown error";
  if (DRV.errorString) DRV.errorString(r, &s);
  die(3, "%s failed: %s", what, s);
}

// ------------------------------------------------------------------ argument specs
enum Kind { SCALAR, BUFFER };
struct Arg {
  std::string label, text;
  Kind kind = SCALAR;
  std::string type;   // "" = infer from the parameter size
  std::string fill;   // rand zeros ones arange npy
  std::string value;  // scalar literal / npy path
  unsigned long long count = 0;
  double lo = 0, hi = 0;
  bool has_range = false;
  // run time
  unsigned char storage[8] = {0};
  void* dev = nullptr;
  size_t bytes = 0;
  std::vector<unsigned char> initial;   // the buffer's first contents (kept with --reset-buffers)
};

static int type_size(const std::string& t) {
  if (t == "i8" || t == "u8") return 1;
  if (t == "i16" || t == "u16" || t == "f16") return 2;
  if (t == "i32" || t == "u32" || t == "f32") return 4;
  if (t == "i64" || t == "u64" || t == "f64") return 8;
  return 0;
}

static std::vector<std::string> split(const std::string& s, char c) {
  std::vector<std::string> out;
  size_t i = 0;
  while (true) {
    size_t j = s.find(c, i);
    out.push_back(s.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

static bool parse_u64(const std::string& s, unsigned long long& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  v = strtoull(s.c_str(), &end, 10);
  return errno == 0 && *end == 0 && s[0] != '-';
}

static bool parse_double(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = strtod(s.c_str(), &end);
  return *end == 0;
}

static bool is_float_literal(const std::string& s) {
  return s.find_first_of(".eEnN") != std::string::npos || s == "inf" || s == "-inf";
}

static Arg parse_arg(const std::string& text) {
  Arg a;
  a.text = text;
  std::string body = text;
  size_t eq = text.find('=');
  if (eq != std::string::npos) {
    a.label = text.substr(0, eq);
    body = text.substr(eq + 1);
  }
  if (body.empty()) die(2, "--arg '%s': no value", text.c_str());
  if (body.size() > 4 && body.compare(body.size() - 4, 4, ".npy") == 0) {
    a.kind = BUFFER;
    a.fill = "npy";
    a.value = body;
    return a;
  }
  std::vector<std::string> p = split(body, ':');
  if (p.size() == 1) {
    double d;
    if (!parse_double(p[0], d)) die(2, "--arg '%s': '%s' is not a number, a buffer spec or a .npy file", text.c_str(), p[0].c_str());
    a.value = p[0];
    return a;
  }
  if (p.size() == 2) {
    if (!type_size(p[0])) die(2, "--arg '%s': unknown type '%s'", text.c_str(), p[0].c_str());
    double d;
    if (!parse_double(p[1], d)) die(2, "--arg '%s': '%s' is not a number", text.c_str(), p[1].c_str());
    a.type = p[0];
    a.value = p[1];
    return a;
  }
  a.kind = BUFFER;
  a.fill = p[0] == "iota" ? "arange" : p[0];
  if (a.fill != "rand" && a.fill != "zeros" && a.fill != "ones" && a.fill != "arange")
    die(2, "--arg '%s': unknown buffer fill '%s' (rand, zeros, ones, arange)", text.c_str(), p[0].c_str());
  a.type = p[1];
  if (!type_size(a.type)) die(2, "--arg '%s': unknown buffer type '%s'", text.c_str(), a.type.c_str());
  if (!parse_u64(p[2], a.count) || a.count == 0) die(2, "--arg '%s': count '%s' must be a positive integer", text.c_str(), p[2].c_str());
  if (p.size() == 5 && a.fill == "rand") {
    if (!parse_double(p[3], a.lo) || !parse_double(p[4], a.hi) || !(a.hi > a.lo))
      die(2, "--arg '%s': range needs two numbers LO < HI", text.c_str());
    a.has_range = true;
  } else if (p.size() != 3) {
    die(2, "--arg '%s': expected FILL:TYPE:COUNT (rand may add :LO:HI)", text.c_str());
  }
  return a;
}

static std::string describe(const Arg& a) {
  char buf[512];
  if (a.kind == SCALAR) {
    snprintf(buf, sizeof buf, "scalar %s %s", a.type.empty() ? "auto" : a.type.c_str(), a.value.c_str());
  } else if (a.fill == "npy") {
    snprintf(buf, sizeof buf, "buffer npy %s", a.value.c_str());
  } else if (a.has_range) {
    snprintf(buf, sizeof buf, "buffer %s %s %llu %g %g", a.fill.c_str(), a.type.c_str(), a.count, a.lo, a.hi);
  } else {
    snprintf(buf, sizeof buf, "buffer %s %s %llu", a.fill.c_str(), a.type.c_str(), a.count);
  }
  return buf;
}

// Scalar bytes for a parameter of `size` bytes.
static void encode_scalar(Arg& a, size_t size) {
  std::string t = a.type;
  if (t.empty()) {
    const bool f = is_float_literal(a.value);
    if (size == 4) t = f ? "f32" : "i32";
    else if (size == 8) t = f ? "f64" : "i64";
    else if (size == 2) t = f ? "f16" : "i16";
    else if (size == 1) t = "i8";
    else die(2, "--arg '%s': the kernel parameter is %s bytes wide; give a buffer spec", a.text.c_str(), std::to_string(size).c_str());
    a.type = t;
  }
  if ((size_t)type_size(t) != size)
    die(2, "--arg '%s': type %s does not match the kernel parameter's width", a.text.c_str(), t.c_str());
  const double d = strtod(a.value.c_str(), nullptr);
  if (t == "f16") { __half v = __float2half((float)d); memcpy(a.storage, &v, 2); }
  else if (t == "f32") { float v = (float)d; memcpy(a.storage, &v, 4); }
  else if (t == "f64") { memcpy(a.storage, &d, 8); }
  else {
    if (is_float_literal(a.value)) die(2, "--arg '%s': an integer parameter needs an integer", a.text.c_str());
    // u64 values above 2^63 need strtoull; either way the low bytes, little-endian
    unsigned long long v = t[0] == 'u' ? strtoull(a.value.c_str(), nullptr, 10)
                                       : (unsigned long long)strtoll(a.value.c_str(), nullptr, 10);
    memcpy(a.storage, &v, size);
  }
}

// ------------------------------------------------------------------ .npy
static std::vector<unsigned char> read_npy(const std::string& path, std::string& type, unsigned long long& count) {
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) die(2, "cannot read %s: %s", path.c_str(), strerror(errno));
  unsigned char magic[10];
  if (fread(magic, 1, 10, f) != 10 || memcmp(magic, "\x93NUMPY", 6) != 0) die(2, "%s: not a .npy file", path.c_str());
  size_t hlen;
  if (magic[6] == 1) {
    hlen = magic[8] | (magic[9] << 8);
  } else {
    unsigned char more[2];
    if (fread(more, 1, 2, f) != 2) die(2, "%s: truncated header", path.c_str());
    hlen = magic[8] | (magic[9] << 8) | (more[0] << 16) | ((size_t)more[1] << 24);
  }
  std::string h(hlen, '\0');
  if (fread(&h[0], 1, hlen, f) != hlen) die(2, "%s: truncated header", path.c_str());
  auto field = [&](const char* key) -> std::string {
    size_t k = h.find(key);
    if (k == std::string::npos) die(2, "%s: header lacks %s", path.c_str(), key);
    size_t c = h.find(':', k);
    size_t s = h.find_first_not_of(" ", c + 1);
    if (h[s] == '\'') return h.substr(s + 1, h.find('\'', s + 1) - s - 1);
    if (h[s] == '(') return h.substr(s + 1, h.find(')', s) - s - 1);
    return h.substr(s, h.find_first_of(",}", s) - s);
  };
  const std::string descr = field("'descr'"), fortran = field("'fortran_order'"), shape = field("'shape'");
  if (fortran.find("True") != std::string::npos) die(2, "%s: Fortran-ordered arrays are not supported", path.c_str());
  static const char* map[][2] = {{"<f4", "f32"}, {"<f8", "f64"}, {"<i4", "i32"}, {"<u4", "u32"}, {"<i8", "i64"},
                                 {"<u8", "u64"}, {"|i1", "i8"}, {"|u1", "u8"}, {"<i2", "i16"}, {"<u2", "u16"},
                                 {"<f2", "f16"}};
  type.clear();
  for (auto& m : map)
    if (descr == m[0]) type = m[1];
  if (type.empty()) die(2, "%s: unsupported dtype '%s'", path.c_str(), descr.c_str());
  count = 1;
  for (auto& dim : split(shape, ',')) {
    std::string t = dim;
    t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
    if (t.empty()) continue;
    unsigned long long n;
    if (!parse_u64(t, n)) die(2, "%s: bad shape '%s'", path.c_str(), shape.c_str());
    count *= n;
  }
  std::vector<unsigned char> data(count * type_size(type));
  if (fread(data.data(), 1, data.size(), f) != data.size()) die(2, "%s: fewer bytes than its shape says", path.c_str());
  fclose(f);
  return data;
}

static void make_buffer(Arg& a, std::mt19937_64& rng, bool keep) {
  std::vector<unsigned char> host;
  if (a.fill == "npy") {
    host = read_npy(a.value, a.type, a.count);
  } else {
    const int sz = type_size(a.type);
    host.resize(a.count * sz);
    const bool flt = a.type[0] == 'f';
    const double lo = a.has_range ? a.lo : 0.0, hi = a.has_range ? a.hi : (flt ? 1.0 : 100.0);
    std::uniform_real_distribution<double> U(lo, hi);
    for (unsigned long long i = 0; i < a.count; ++i) {
      double v = 0;
      if (a.fill == "rand") v = flt ? U(rng) : std::floor(U(rng));
      else if (a.fill == "ones") v = 1;
      else if (a.fill == "arange") v = (double)i;
      unsigned char* p = &host[i * sz];
      if (a.type == "f16") { __half x = __float2half((float)v); memcpy(p, &x, 2); }
      else if (a.type == "f32") { float x = (float)v; memcpy(p, &x, 4); }
      else if (a.type == "f64") { memcpy(p, &v, 8); }
      else { long long x = (long long)v; memcpy(p, &x, sz); }
    }
  }
  a.bytes = host.size();
  CK(cudaMalloc(&a.dev, std::max<size_t>(a.bytes, 1)));
  CK(cudaMemcpy(a.dev, host.data(), a.bytes, cudaMemcpyHostToDevice));
  if (keep) a.initial = std::move(host);
  const unsigned long long ptr = (unsigned long long)a.dev;
  memcpy(a.storage, &ptr, 8);
}

// ------------------------------------------------------------------ options
struct Options {
  std::string module, kernel, out, command;
  unsigned dims_grid[3] = {0, 1, 1}, dims_block[3] = {0, 1, 1};
  std::vector<Arg> args;
  int smem = 0, reps = 10, warmup = 2;
  bool sweep = false, parse_only = false, info = false, reset = false;
};

static void parse_dims(const std::string& s, unsigned d[3], const char* what) {
  std::vector<std::string> p = split(s, ',');
  if (p.size() > 3) die(2, "%s '%s': at most three dimensions", what, s.c_str());
  for (size_t i = 0; i < 3; ++i) {
    unsigned long long v = 1;
    if (i < p.size() && (!parse_u64(p[i], v) || v == 0 || v > 0x7fffffffull))
      die(2, "%s '%s': each dimension must be a positive integer", what, s.c_str());
    d[i] = (unsigned)v;
  }
}

static void usage() {
  fprintf(stderr,
          "usage: pipeperf-launch --module FILE --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [--arg SPEC]...\n"
          "                       [--smem BYTES] [--reps N] [--warmup N] [--sweep-occupancy] [--reset-buffers] [--out FILE.csv]\n"
          "       pipeperf-launch --parse-only [--grid ..] [--block ..] [--arg SPEC]...\n"
          "       pipeperf-launch --info\n");
}

static Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(2, "%s needs a value", s.c_str());
      return argv[++i];
    };
    auto number = [&](int lo) -> int {
      std::string v = value();
      unsigned long long n;
      if (!parse_u64(v, n) || (long long)n < lo || n > 0x7fffffffull) die(2, "%s '%s': expected a non-negative integer", s.c_str(), v.c_str());
      return (int)n;
    };
    if (s == "--module") o.module = value();
    else if (s == "--kernel") o.kernel = value();
    else if (s == "--grid") parse_dims(value(), o.dims_grid, "--grid");
    else if (s == "--block") parse_dims(value(), o.dims_block, "--block");
    else if (s == "--arg") o.args.push_back(parse_arg(value()));
    else if (s == "--smem") o.smem = number(0);
    else if (s == "--reps") o.reps = std::max(1, number(1));
    else if (s == "--warmup") o.warmup = number(0);
    else if (s == "--out") o.out = value();
    else if (s == "--command") o.command = value();
    else if (s == "--sweep-occupancy") o.sweep = true;
    else if (s == "--reset-buffers") o.reset = true;
    else if (s == "--parse-only") o.parse_only = true;
    else if (s == "--info") o.info = true;
    else if (s == "-h" || s == "--help") { usage(); exit(0); }
    else { usage(); die(2, "unknown argument '%s'", s.c_str()); }
  }
  return o;
}

// ------------------------------------------------------------------ run
static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static std::string iso_date() {
  time_t t = time(nullptr);
  struct tm g;
  gmtime_r(&t, &g);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &g);
  return buf;
}

static std::string nvml_driver() {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (!lib) return "unknown";
  auto init = (int (*)())dlsym(lib, "nvmlInit_v2");
  auto drv = (int (*)(char*, unsigned))dlsym(lib, "nvmlSystemGetDriverVersion");
  char buf[96] = {0};
  if (init && drv && init() == 0 && drv(buf, sizeof buf) == 0) return buf;
  return "unknown";
}

int main(int argc, char** argv) {
  Options o = parse_options(argc, argv);
  if (o.parse_only) {
    printf("grid %u %u %u\nblock %u %u %u\n", o.dims_grid[0], o.dims_grid[1], o.dims_grid[2], o.dims_block[0],
           o.dims_block[1], o.dims_block[2]);
    for (auto& a : o.args) printf("%s\n", describe(a).c_str());
    return 0;
  }
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0)
    die(4, "no CUDA device: %s", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
  CK(cudaSetDevice(0));
  CK(cudaFree(0));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const std::string driver = nvml_driver(), date = iso_date();
  if (o.info) {
    printf("gpu: %s\ncompute_capability: %d.%d\nsms: %d\ndriver: %s\n", p.name, p.major, p.minor,
           p.multiProcessorCount, driver.c_str());
    return 0;
  }
  if (o.module.empty() || o.kernel.empty() || !o.dims_grid[0] || !o.dims_block[0]) {
    usage();
    die(2, "--module, --kernel, --grid and --block are required");
  }
  DRV = load_driver();
  FILE* mf = fopen(o.module.c_str(), "rb");
  if (!mf) die(2, "cannot read %s: %s", o.module.c_str(), strerror(errno));
  std::vector<char> image;
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, mf)) > 0) image.insert(image.end(), chunk, chunk + got);
  fclose(mf);
  image.push_back('\0');  // PTX text must be NUL-terminated
  CUmodule mod;
  ckd(DRV.moduleLoadData(&mod, image.data()), "cuModuleLoadData");
  CUfunction fn;
  ckd(DRV.moduleGetFunction(&fn, mod, o.kernel.c_str()), ("cuModuleGetFunction(" + o.kernel + ")").c_str());
  // parameters: count and widths from the driver where it can tell
  std::vector<size_t> widths;
  if (DRV.paramInfo) {
    for (size_t i = 0;; ++i) {
      size_t off = 0, size = 0;
      if (DRV.paramInfo(fn, i, &off, &size) != CUDA_SUCCESS) break;
      widths.push_back(size);
    }
    if (widths.size() != o.args.size())
      die(2, "kernel takes %s parameters but %s --arg given", std::to_string(widths.size()).c_str(),
          std::to_string(o.args.size()).c_str());
  } else {
    widths.assign(o.args.size(), 0);
  }
  std::mt19937_64 rng(12345);
  std::vector<void*> params;
  for (size_t i = 0; i < o.args.size(); ++i) {
    Arg& a = o.args[i];
    if (a.kind == BUFFER) {
      if (widths[i] && widths[i] != 8) die(2, "--arg '%s': a buffer needs a pointer parameter", a.text.c_str());
      make_buffer(a, rng, o.reset);
    } else {
      encode_scalar(a, widths[i] ? widths[i] : (a.type.empty() ? (is_float_literal(a.value) ? 4 : 4) : type_size(a.type)));
    }
    params.push_back(a.storage);
  }
  int regs = 0, static_smem = 0, local = 0;
  ckd(DRV.funcGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn), "cuFuncGetAttribute");
  ckd(DRV.funcGetAttribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn), "cuFuncGetAttribute");
  ckd(DRV.funcGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn), "cuFuncGetAttribute");
  const int max_dyn = (int)p.sharedMemPerBlockOptin - static_smem;
  if (o.smem > max_dyn) die(2, "--smem exceeds the %s bytes of dynamic shared memory a block may have", std::to_string(max_dyn).c_str());
  ckd(DRV.funcSetAttribute(fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 100), "cuFuncSetAttribute");
  ckd(DRV.funcSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, max_dyn), "cuFuncSetAttribute");
  const int threads = (int)(o.dims_block[0] * o.dims_block[1] * o.dims_block[2]);
  if (threads > p.maxThreadsPerBlock) die(2, "--block has more than %s threads", std::to_string(p.maxThreadsPerBlock).c_str());
  auto occ = [&](int dyn) {
    int n = 0;
    ckd(DRV.occupancy(&n, fn, threads, (size_t)dyn), "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    return n;
  };
  const int natural = occ(o.smem);
  if (natural < 1) die(2, "the kernel cannot run with this block size and shared memory", "");
  std::vector<std::pair<int, int>> points;  // (blocks per SM, dynamic shared memory)
  if (!o.sweep) {
    points.push_back({natural, o.smem});
  } else {
    for (int m = natural; m >= 1; --m) {
      int lo = o.smem, hi = max_dyn;
      if (occ(lo) == m) { points.push_back({m, lo}); continue; }
      if (occ(hi) > m) continue;
      while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (occ(mid) > m) lo = mid; else hi = mid;
      }
      if (occ(hi) == m) points.push_back({m, hi});
      else fprintf(stderr, "pipeperf-launch: no shared-memory size gives exactly %d blocks per SM\n", m);
    }
  }
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  FILE* out = stdout;
  if (!o.out.empty()) {
    out = fopen(o.out.c_str(), "w");
    if (!out) die(2, "cannot write %s: %s", o.out.c_str(), strerror(errno));
  }
  fprintf(out, "# pipeperf measure, launcher version 1\n# gpu: %s\n# compute_capability: %d.%d\n# sms: %d\n", p.name,
          p.major, p.minor, p.multiProcessorCount);
  fprintf(out, "# driver: %s\n# date: %s\n# module: %s\n# kernel: %s\n", driver.c_str(), date.c_str(),
          o.module.c_str(), o.kernel.c_str());
  fprintf(out, "# grid: %u,%u,%u\n# block: %u,%u,%u\n# registers: %d\n# static_smem: %d\n# local_bytes: %d\n",
          o.dims_grid[0], o.dims_grid[1], o.dims_grid[2], o.dims_block[0], o.dims_block[1], o.dims_block[2], regs,
          static_smem, local);
  for (auto& a : o.args) fprintf(out, "# arg: %s = %s\n", a.label.empty() ? "-" : a.label.c_str(), describe(a).c_str());
  if (!o.command.empty()) fprintf(out, "# command: %s\n", o.command.c_str());
  fprintf(out, "blocks_per_sm,warps_per_sm,dyn_smem,reps,ms_median,ms_min,ms_max\n");
  const int warps_per_block = (threads + 31) / 32;
  for (auto& pt : points) {
    auto launch = [&]() {
      if (o.reset) {   // kernels that keep state in a buffer (tile counters, flags) start each launch afresh
        for (auto& a : o.args)
          if (a.dev && !a.initial.empty()) CK(cudaMemcpy(a.dev, a.initial.data(), a.bytes, cudaMemcpyHostToDevice));
        CK(cudaDeviceSynchronize());
      }
      CK(cudaEventRecord(e0));
      ckd(DRV.launchKernel(fn, o.dims_grid[0], o.dims_grid[1], o.dims_grid[2], o.dims_block[0], o.dims_block[1],
                           o.dims_block[2], (unsigned)pt.second, nullptr, params.data(), nullptr),
          "cuLaunchKernel");
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaGetLastError());
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      return (double)ms;
    };
    for (int w = 0; w < o.warmup; ++w) launch();
    std::vector<double> v;
    for (int r = 0; r < o.reps; ++r) v.push_back(launch());
    fprintf(out, "%d,%d,%d,%d,%.6f,%.6f,%.6f\n", pt.first, pt.first * warps_per_block, pt.second, o.reps, median(v),
            *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
    fflush(out);
  }
  if (out != stdout) fclose(out);
  for (auto& a : o.args)
    if (a.dev) cudaFree(a.dev);
  return 0;
}
