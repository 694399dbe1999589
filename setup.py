"""pipeperf's compiled parts: the simulator's engine (src/pipeperf/simulate/_engine.c), the IDG
file reader's node pass (src/pipeperf/idg/_columns.c), mapper g's per-request scans
(src/pipeperf/hardware/_requests.c), the cache model's reuse pass (src/pipeperf/hardware/_reuse.c)
and the emulator's bounds check (src/pipeperf/emulate/_bounds.c).

Everything else is configured in pyproject.toml; setuptools builds these extensions on every
install (``pip install -e .`` builds it in place). -ffp-contract=off: no fused multiply-add,
so results are the same on every CPU and compiler (tests/simulate/test_engine_reference.py).
On x86-64, SSE4.2 and POPCNT (x86-64-v2's level, every x86-64 CPU since 2009, spelled as flags
that compilers older than -march=x86-64-v2 know too; not -march=native, the build must run on
other machines): floor and ceil become one instruction each (roundsd) instead of libm calls in
the engine's per-cycle loop, exact either way. Wider scans (AVX2, AVX-512) are compiled as
separate functions and picked by cpuid at import. -fno-wrapv undoes the -fwrapv that CPython's own
flags add: the engine never relies on signed overflow wrapping, and with it the compiler cannot
assume the cycle loop's index arithmetic does not wrap (the engine was 15-20 % slower).
"""

import platform
import sys

from setuptools import Extension, setup

_FLAGS = [] if sys.platform == "win32" else ["-O3", "-ffp-contract=off", "-fno-fast-math", "-fno-wrapv"]
if _FLAGS and platform.machine().lower() in ("x86_64", "amd64"):
    _FLAGS += ["-msse4.2", "-mpopcnt"]

setup(ext_modules=[Extension("pipeperf.simulate._engine", ["src/pipeperf/simulate/_engine.c"],
                             extra_compile_args=_FLAGS),
                   # an IDG file's nodes into arrays (pipeperf.idg.io; optional, a Python path remains)
                   Extension("pipeperf.idg._columns", ["src/pipeperf/idg/_columns.c"],
                             extra_compile_args=_FLAGS),
                   # mapper g's distinct sectors and bank wavefronts per request (pipeperf.hardware.request_scan;
                   # optional, the NumPy path remains)
                   Extension("pipeperf.hardware._requests", ["src/pipeperf/hardware/_requests.c"],
                             extra_compile_args=_FLAGS),
                   # the cache model's previous access per access (pipeperf.hardware.cache_model; optional)
                   Extension("pipeperf.hardware._reuse", ["src/pipeperf/hardware/_reuse.c"],
                             extra_compile_args=_FLAGS),
                   # the emulator's bounds check of global accesses (pipeperf.emulate.memory; optional)
                   Extension("pipeperf.emulate._bounds", ["src/pipeperf/emulate/_bounds.c"],
                             extra_compile_args=_FLAGS)])
