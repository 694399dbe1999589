"""pipeperf.measure (see DESIGN.md)."""
