"""``python -m fray`` runs the command line."""

import sys

from fray.cli import main

sys.exit(main())
