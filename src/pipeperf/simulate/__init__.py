"""pipeperf.simulate (see DESIGN.md)."""
