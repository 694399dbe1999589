"""The Pipeline model's event-driven simulator."""

from pipeperf.simulate.simulator import PreparedKernel, SimResult, occupancy_sweep, simulate

__all__ = ["simulate", "occupancy_sweep", "PreparedKernel", "SimResult"]
