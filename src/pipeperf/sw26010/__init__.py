"""pipeperf.sw26010 (see DESIGN.md)."""
