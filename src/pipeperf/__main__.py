"""``python3 -m pipeperf``: the same command as the ``pipeperf`` script."""

import sys

from pipeperf.cli.main import main

sys.exit(main())
