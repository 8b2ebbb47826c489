"""``python -m idrisk``: the ``idrisk`` command."""

from idrisk.cli import run

if __name__ == "__main__":
    run()
