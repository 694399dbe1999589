"""``python3 -m pipeperf``: the same command as the ``pipeperf`` script."""

import sys

from pipeperf.cli.main import main

if __name__ == "__main__":      # not when a spawned worker process (Dask's) imports it
    sys.exit(main())
