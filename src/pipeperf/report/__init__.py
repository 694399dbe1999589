"""pipeperf.report (see docs/ARCHITECTURE.md and docs/packages/)."""
