"""CUDA names of PTX things (issue 17): kernels under C++ mangling, parameter names in the ``.cu``."""

from __future__ import annotations

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.ptx.cuda_names import base_name, cuda_param_names, demangle_name, display_name, resolve_entry

SOURCE = r'''
#include <cstdio>
// __global__ void stencil5(int commented, int out);
/* __global__ void stencil5(int a, int b, int c, int d) {} */
template <typename T, int R = 2>
__global__ void __launch_bounds__(256, 2)
stencil5(const T* __restrict__ in,   // input, "with, commas (and parentheses"
         T* __restrict__ out,
         int nx,
         int ny = (4, 5))
{
    printf("stencil5(int x, int y)\n");
}
template __global__ void stencil5<float, 2>(const float*, float*, int, int);
extern "C" __global__ void saxpy(int n, float a, const float *x, float *__restrict__ y) {}
extern "C" {
__global__ void in_block(unsigned int count[2], float (*rows)[4], const float* __restrict__) {}
}
__global__ void overload(int a) {}
__global__ void overload(float* p, int n) {}
__global__ void twice(int a) {}
__global__ void twice(float b) {}
__global__ void declared(int first, float second);
void host() { stencil5<float><<<1, 1>>>(nullptr, nullptr, 1, 2); saxpy<<<1, 1>>>(1, 2, 0, 0); }
namespace ns { __global__ void kern(int q, double r) {} }
'''


@pytest.mark.parametrize("entry,count,names", [
    ("_Z8stencil5IfLi2EEvPKT_PS0_ii", 4, ["in", "out", "nx", "ny"]),     # template, default arg, comments
    ("saxpy", 4, ["n", "a", "x", "y"]),                                   # extern "C", calls elsewhere
    ("in_block", 3, ["count", "rows", ""]),                              # arrays, unnamed parameter
    ("_Z8overloadi", 1, ["a"]), ("_Z8overloadPfi", 2, ["p", "n"]),        # overloads told apart by count
    ("_Z5twicei", 1, []),                                                 # same count, other names: unknown
    ("_Z8declaredif", 2, ["first", "second"]),                            # only a declaration
    ("_ZN2ns4kernEid", 2, ["q", "r"]),                                    # in a namespace
    ("missing", 1, []),
])
def test_parameter_names_from_the_source(entry, count, names):
    assert cuda_param_names(SOURCE, entry, count) == names


def test_mangled_names():
    assert demangle_name("_Z8stencil5IfEvPKT_PS0_ii") == "stencil5"
    assert demangle_name("_ZN2ns4kernEid") == "ns::kern"
    assert demangle_name("_ZN12_GLOBAL__N_16kernelEPf") == "(anonymous namespace)::kernel"
    assert demangle_name("_ZL3fooi") == "foo"
    assert demangle_name("saxpy") is None and base_name("saxpy") == "saxpy"
    assert base_name("_ZN2ns4kernEid") == "kern"
    assert display_name("_Z5saxpyifPfS_") == "saxpy (_Z5saxpyifPfS_)" and display_name("saxpy") == "saxpy"


AXPY = ["_Z4axpyI6__halfEviT_PKS1_PS1_", "_Z4axpyIfEviT_PKS0_PS0_", "_Z4tileILin3ELb1EEvPf",
        "_ZN2ns4kernEid", "_Z4workPi", "_Z4workPf"]


@pytest.mark.parametrize("name, entry", [
    ("axpy<__half>", AXPY[0]), ("axpy<half>", AXPY[0]), ("axpy< float >", AXPY[1]),
    ("axpy<float>(int, float, const float*, float*)", AXPY[1]),          # as the source says it
    ("void axpy<float>(int, float, float const*, float*)", AXPY[1]),     # as c++filt says it
    ("tile", AXPY[2]), ("tile<-3, true>", AXPY[2]), ("tile<-3,1>(float*)", AXPY[2]),
    ("ns::kern(int, double)", AXPY[3]), ("kern(int,double)", AXPY[3]),
    ("work(float*)", AXPY[5]), ("work(int *)", AXPY[4]),
])
def test_kernel_names_as_people_write_them(name, entry):
    """--kernel takes the mangled name, the demangled signature, name<args> or a unique base name."""
    assert resolve_entry(AXPY, name) == entry


def test_an_ambiguous_kernel_name_lists_the_candidates():
    with pytest.raises(PipeperfError) as e:
        resolve_entry(AXPY, "axpy")
    assert str(e.value) == ("kernel 'axpy' is ambiguous (overloaded or several template instances): pass one of "
                            "axpy<__half>(int, __half, const __half*, __half*) (_Z4axpyI6__halfEviT_PKS1_PS1_), "
                            "axpy<float>(int, float, const float*, float*) (_Z4axpyIfEviT_PKS0_PS0_)")
    with pytest.raises(PipeperfError, match="no kernel 'axpy<double>'"):
        resolve_entry(AXPY, "axpy<double>")


def test_kernel_names_resolve_by_cuda_name():
    entries = ["_Z8stencil5IfEvPKT_PS0_ii", "plain", "_Z4workPi", "_Z4workPf", "_ZN2ns4kernEid"]
    assert resolve_entry(entries, "stencil5") == "_Z8stencil5IfEvPKT_PS0_ii"
    assert resolve_entry(entries, "ns::kern") == resolve_entry(entries, "kern") == "_ZN2ns4kernEid"
    assert resolve_entry(entries, "_Z4workPf") == "_Z4workPf"
    assert resolve_entry(["only"], None) == "only"
    with pytest.raises(PipeperfError, match=r"ambiguous .*: pass one of work\(int\*\) \(_Z4workPi\), "
                                             r"work\(float\*\) \(_Z4workPf\)$"):
        resolve_entry(entries, "work")
    with pytest.raises(PipeperfError, match=r"no kernel 'sten' \(kernels: stencil5 \(_Z8stencil5"):
        resolve_entry(entries, "sten")
    with pytest.raises(PipeperfError, match="choose one with --kernel"):
        resolve_entry(entries, None)


# ---------------------------------------------------------------- parameter types (issue 36)

#: entries nvcc 13.0 made (sm_80), with c++filt's parameter lists
MANGLED = [
    ("_Z4gemmI6__halfEvmmmT_PKS1_mS3_mS1_PS1_m",
     ["unsigned long"] * 3 + ["__half", "const __half*", "unsigned long", "const __half*", "unsigned long", "__half",
                              "__half*", "unsigned long"]),
    ("_Z1v7__half213__nv_bfloat1614__nv_bfloat1626float26float44int44int27double2PKS3_Pf",
     ["__half2", "__nv_bfloat16", "__nv_bfloat162", "float2", "float4", "int4", "int2", "double2", "const float4*",
      "float*"]),
    ("_ZN2ns1wENS_1SE6__halfPS0_PKS1_7__half26float4",
     ["ns::S", "__half", "ns::S*", "const __half*", "__half2", "float4"]),
    ("_Z2k1I6__half6float4EvT_T0_PKS2_PS3_N1a1b1PENS8_3BoxIS2_Li3EEEPKSB_",
     ["__half", "float4", "const __half*", "float4*", "a::b::P", "a::b::Box<__half, (int)3>",
      "const a::b::Box<__half, (int)3>*"]),
    ("_ZN1a2k2ILi128E7double2EEvPT0_PKS2_S2_7__half2i", ["double2*", "const double2*", "double2", "__half2", "int"]),
    ("_ZN36_GLOBAL__N__a12f26c8_4_b_cu_a62ccd2a2k3E6float2PS0_RKS0_", ["float2", "float2*", "const float2&"]),
    ("_Z2k5PA4_fPFviEPi", ["float[4]*", "void(int)*", "int*"]),
    ("_Z8stencil5IfLi2EEvPKT_PS0_ii", ["const float*", "float*", "int", "int"]),
    ("_Z1kv", []),
    ("_Z1kIJifEEvDpT_", None),                    # an argument pack: not read
    ("saxpy", None),
]


@pytest.mark.parametrize("entry,types", MANGLED)
def test_parameter_types_from_the_mangled_entry(entry, types):
    from pipeperf.ptx.cuda_names import mangled_param_types

    assert mangled_param_types(entry) == types


def test_parameter_types_of_an_extern_c_kernel_from_the_source():
    from pipeperf.ptx.cuda_names import cuda_param_types

    source = SOURCE + 'extern "C" __global__ void vec(const __half a, nv_bfloat16 const b, struct P p, float4 v[2]);\n'
    assert cuda_param_types("saxpy", source, 4) == ["int", "float", "float*", "float*"]
    assert cuda_param_types("vec", source, 4) == ["__half", "nv_bfloat16", "P", "float4[2]"]
    assert cuda_param_types("vec", None, 4) == [] and cuda_param_types("vec", source, 3) == []
    assert cuda_param_types("_Z4gemmI6__halfEvmmmT_PKS1_mS3_mS1_PS1_m", None, 11)[3] == "__half"
