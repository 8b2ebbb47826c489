import sys
from pathlib import Path

# the benchmarks reuse the tests' helpers (shared-dir lookup, brute-force reference) and their
# own data generators (_data.py)
_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE.parent / "tests"))
sys.path.insert(0, str(_HERE))
