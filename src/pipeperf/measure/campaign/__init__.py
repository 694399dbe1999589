"""``pipeperf campaign``: one resumable, time-boxed measurement campaign of a lent GPU (issue 19).

The pieces: :mod:`.launches` (what is launched: memory, dispatch and atomics benchmarks of
``memory_benchmarks.cu``, and the corpus kernels swept over occupancy), :mod:`.backends` (who
runs a launch: the GPU through ``pipeperf measure``'s launcher, or ``analyze`` on a GPU spec for
``--simulate``; both write the launcher's CSV, so one parser reads either), :mod:`.derive`
(CSV -> bandwidths, latencies, rates), :mod:`.manifest` (what was done, resumable) and
:mod:`.steps` (the named steps, their time boxes, the budget and the archive).
"""
