"""``python -m idrisk``: the ``idrisk`` command."""

import sys

from idrisk.cli import main

if __name__ == "__main__":
    sys.exit(main())
