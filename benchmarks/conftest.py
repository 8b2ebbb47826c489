import sys
from pathlib import Path

# the benchmarks reuse the tests' helpers (shared-dir lookup, brute-force reference)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
