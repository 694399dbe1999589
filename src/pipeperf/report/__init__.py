"""pipeperf.report (see DESIGN.md)."""
