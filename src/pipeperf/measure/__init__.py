"""pipeperf.measure (see docs/ARCHITECTURE.md and docs/packages/)."""
