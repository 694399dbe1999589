"""The one compiled part of pipeperf: the simulator's engine (src/pipeperf/simulate/_engine.c).

Everything else is configured in pyproject.toml; setuptools builds this extension on every
install (``pip install -e .`` builds it in place). -ffp-contract=off: no fused multiply-add,
so results are the same on every CPU and compiler (tests/simulate/test_engine_reference.py).
"""

import sys

from setuptools import Extension, setup

_FLAGS = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off", "-fno-fast-math"]

setup(ext_modules=[Extension("pipeperf.simulate._engine", ["src/pipeperf/simulate/_engine.c"],
                             extra_compile_args=_FLAGS)])
