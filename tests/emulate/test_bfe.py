"""``bfe`` as the PTX ISA defines it: the field's bits of ``a`` from ``pos`` for ``len`` bits
(both taken mod 256), the rest filled with the sign bit ``a[min(pos+len-1, msb)]`` for .s32/.s64
and with zeros for .u32/.u64 (and when ``len`` is 0). nvcc emits it for inline ``asm``."""

from __future__ import annotations


import numpy as np
import pytest

from pipeperf.emulate import run_kernel


CU = r'''
extern "C" __global__ void bfe32(const int* a, const int* pos, const int* len, int* s, unsigned* u)
{
    int i = threadIdx.x, r; unsigned q;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a[i]), "r"(pos[i]), "r"(len[i]));
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(q) : "r"(a[i]), "r"(pos[i]), "r"(len[i]));
    s[i] = r; u[i] = q;
}
extern "C" __global__ void bfe64(const long long* a, const int* pos, const int* len, long long* s,
                                 unsigned long long* u)
{
    int i = threadIdx.x; long long r; unsigned long long q;
    asm("bfe.s64 %0, %1, %2, %3;" : "=l"(r) : "l"(a[i]), "r"(pos[i]), "r"(len[i]));
    asm("bfe.u64 %0, %1, %2, %3;" : "=l"(q) : "l"(a[i]), "r"(pos[i]), "r"(len[i]));
    s[i] = r; u[i] = q;
}
'''


def _isa_bfe(a: int, b: int, c: int, bits: int, signed: bool) -> int:
    """The ISA's pseudo-code, bit by bit, on raw ``bits``-bit values."""
    msb, pos, ln = bits - 1, b & 0xFF, c & 0xFF
    sbit = 0 if not signed or ln == 0 else (a >> min(pos + ln - 1, msb)) & 1
    d = 0
    for i in range(bits):
        bit = (a >> (pos + i)) & 1 if i < ln and pos + i <= msb else sbit
        d |= bit << i
    return d


@pytest.mark.parametrize("bits", [32, 64])
def test_bfe_follows_the_isa(tmp_path, bits):
    src = tmp_path / "bfe.cu"
    src.write_text(CU)
    rng = np.random.default_rng(bits)
    n = 256
    sdt, udt = (np.int32, np.uint32) if bits == 32 else (np.int64, np.uint64)
    a = rng.integers(0, 2**bits, n, dtype=np.uint64).astype(udt)
    a[:4] = [0, udt(2**bits - 1), udt(1 << (bits - 1)), udt(0x5A)]
    pos = rng.integers(0, 300, n).astype(np.int32)          # past msb and past 255 (taken mod 256)
    ln = rng.integers(0, 300, n).astype(np.int32)
    pos[:8], ln[:8] = [0, 4, bits - 1, 0, 3, 250, 2, 256 + 5], [0, 5, 1, bits, 8, 3, bits + 10, 7]
    s, u = np.zeros(n, sdt), np.zeros(n, udt)
    run_kernel(src, 1, n, [a.view(sdt), pos, ln, s, u], kernel=f"bfe{bits}")
    for k in range(n):
        x = int(a[k])
        assert int(s.view(udt)[k]) == _isa_bfe(x, int(pos[k]), int(ln[k]), bits, True), (k, hex(x), pos[k], ln[k])
        assert int(u[k]) == _isa_bfe(x, int(pos[k]), int(ln[k]), bits, False), (k, hex(x), pos[k], ln[k])
