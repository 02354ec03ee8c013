"""``python -m artidyn``: the command line of :mod:`artidyn.cli`."""
import sys

from .cli import main

sys.exit(main())
