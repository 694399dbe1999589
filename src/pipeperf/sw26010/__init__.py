"""SW26010 static performance model, optimization analyses and static auto-tuner.

Implements Xu et al., "Taming the 'Monster'" (seed sw26010-static-performance-model):
Eqs. 1-12 (:mod:`.model`), the analyses of Sec. IV, Eqs. 13-15 (:mod:`.analysis`)
and static auto-tuning of SWACC tile sizes, unrolling and active CPEs
(:mod:`.space`, :mod:`.derive`, :mod:`.tuner`).
"""

from pipeperf.sw26010.analysis import Analysis, active_cpes, analyze, dma_granularity, double_buffer
from pipeperf.sw26010.kernel import KernelSpec, load_kernel, parse_kernel
from pipeperf.sw26010.model import Prediction, Terms, evaluate, predict
from pipeperf.sw26010.processor import ProcessorSpec, bundled_processor, load_processor
from pipeperf.sw26010.space import TuningSpace, load_space, parse_space
from pipeperf.sw26010.tuner import TuneResult, tune

__all__ = [
    "Analysis", "KernelSpec", "Prediction", "ProcessorSpec", "Terms", "TuneResult", "TuningSpace",
    "active_cpes", "analyze", "bundled_processor", "dma_granularity", "double_buffer", "evaluate",
    "load_kernel", "load_processor", "load_space", "parse_kernel", "parse_space", "predict", "tune",
]
