"""pipeperf.emulate (see DESIGN.md)."""
