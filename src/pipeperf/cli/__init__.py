"""The ``pipeperf`` command: thin argument parsing on top of the packages."""
