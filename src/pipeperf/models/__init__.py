"""pipeperf.models (see docs/ARCHITECTURE.md and docs/packages/)."""
