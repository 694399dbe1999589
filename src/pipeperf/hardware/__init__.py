"""pipeperf.hardware (see DESIGN.md)."""
