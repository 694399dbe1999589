"""pipeperf.ptx (see DESIGN.md)."""
