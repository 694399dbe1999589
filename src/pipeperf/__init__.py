"""pipeperf: predict and explain GPU kernel performance without running on the GPU."""

__version__ = "0.1.0"
