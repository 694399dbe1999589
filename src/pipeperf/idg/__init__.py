"""pipeperf.idg (see DESIGN.md)."""
