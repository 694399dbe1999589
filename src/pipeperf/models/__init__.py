"""pipeperf.models (see DESIGN.md)."""
