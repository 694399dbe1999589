"""pipeperf.hardware (see docs/ARCHITECTURE.md and docs/packages/)."""
