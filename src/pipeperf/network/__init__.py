"""``pipeperf network MODEL.onnx``: whole-network analysis (HyPA's use case, issue 37).

Stages, each its own module with frozen records between them:

* :mod:`.graph` reads an ONNX graph (``onnx``, shapes from ``onnx.shape_inference``; weights are
  never needed) into :class:`~.graph.Graph`;
* :mod:`.builtin` builds the published architectures in code (no download);
* :mod:`.lower` maps each node, or a node with the BatchNormalization and activation it absorbs,
  to launches of the bundled kernel library (``kernels/*.cu``) by a documented rule;
* :mod:`.run` analyses each distinct launch once on every GPU (``pipeperf analyze``'s engine,
  the one ``tune`` and ``analyze --batch`` use), cold or with a warm L2;
* :mod:`pipeperf.hardware.power` is the energy model (:mod:`pipeperf.tune.totals` the launches' energy and
  the ranking, shared with `analyze --batch`), :mod:`.report` the per-layer and network totals
  and the text/JSON/CSV/HTML outputs.

Python: ``pipeperf.network.analyze_network("resnet50", builtin=True, gpus=["hopper_h100"])`` returns
a :class:`~.api.NetworkReport` (``.to_dict()``, ``.text()``, ``.csv()``, ``.html()``).
"""

from __future__ import annotations

from pipeperf.network.api import NetworkReport, analyze_network

__all__ = ["NetworkReport", "analyze_network"]
