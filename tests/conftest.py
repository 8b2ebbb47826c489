import sys
from pathlib import Path

# make ``tests/_shared.py`` and ``tests/reference.py`` importable as plain modules
sys.path.insert(0, str(Path(__file__).resolve().parent))
