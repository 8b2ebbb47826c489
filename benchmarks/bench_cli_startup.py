"""Benchmark: start-up of the ``idrisk`` command and of the README's quick start, as ratios to
``python -c "import pandas"`` timed in the same run (issue 24, item 1).

* ``idrisk --version`` -- target <= 0.5x (the parser imports neither numpy nor pandas);
* ``idrisk risk`` on the CE sample with m = 5 (synthpop scenario-1 files ``syn_01..05``,
  ``-r 0.1``) -- target <= 2x;
* ``quickstart``: the README's first Python block (``syn`` + ``identification_risk``), run as
  a script with a warm compiled-code cache -- target <= 1.6x;
* ``import_pandas_numba``: ``python -c "import pandas, numba"``, for reference: the least any
  process that runs a compiled kernel can take.

Each is a new process (``python -m idrisk`` is the ``idrisk`` command) running idrisk as
installed (bytecode compiled, ``_data.as_installed``), with its own compiled-code cache
(``IDRISK_CACHE_DIR``) filled by a warm-up round that is not counted. The commands are timed in
turn, round after round, so that they see the same load; the ratio is of the minimum times.
The load (``uptime``) is recorded with every result.

Run: python -m pytest benchmarks/bench_cli_startup.py --benchmark-enable \
        --benchmark-json benchmarks/results/cli_startup.json
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from _data import as_installed, machine_load
from _shared import cedata_path, fixtures_dir
from test_readme import parse_readme

ROUNDS = 7
ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"version": "<= 0.5", "risk_ce_m5": "<= 2", "quickstart": "<= 1.6"}


def readme_quickstart() -> str:
    """The README's quick start: its Python block, as the README's test reads it."""
    blocks = parse_readme((ROOT / "README.md").read_text(encoding="utf-8"))
    return next(b.code for b in blocks if b.section == "Quick start")


def _commands(out: Path) -> dict[str, list[str]]:
    files = [str(fixtures_dir("synthpop") / "scenario1" / f"syn_{j:02d}.csv")
             for j in range(1, 6)]
    return {
        "import_pandas": [sys.executable, "-c", "import pandas"],
        "import_pandas_numba": [sys.executable, "-c", "import pandas, numba"],
        "quickstart": [sys.executable, "-W", "ignore", "-c", readme_quickstart()],
        "version": [sys.executable, "-m", "idrisk", "--version"],
        "risk_ce_m5": [sys.executable, "-m", "idrisk", "risk", str(cedata_path()), *files,
                       "--known", "Age", "Urban", "Marital", "--syn", "Income",
                       "--categorical", "Urban", "Marital", "Tenure", "-r", "0.1",
                       "--out-dir", str(out), "--overwrite", "--no-progress"],
    }


@pytest.fixture(scope="module")
def timings(tmp_path_factory) -> dict[str, list[float]]:
    """Every command ``ROUNDS`` times, interleaved (one warm-up round first, not counted)."""
    work = tmp_path_factory.mktemp("cli")
    commands = _commands(work / "out")
    env = {**as_installed(ROOT), "IDRISK_CACHE_DIR": str(work / "cache"), "MPLBACKEND": "Agg"}
    times: dict[str, list[float]] = {k: [] for k in commands}
    for k in range(ROUNDS + 1):
        for name, cmd in commands.items():
            t0 = time.perf_counter()
            done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600,
                                  cwd=work)
            elapsed = time.perf_counter() - t0
            assert done.returncode == 0, done.stderr[-2000:]
            if k:
                times[name].append(elapsed)
    return times


@pytest.mark.parametrize("name", ["import_pandas", "import_pandas_numba", "version",
                                  "risk_ce_m5", "quickstart"])
def test_cli_startup(benchmark, timings, name):
    # the processes were timed together in the fixture; the benchmark records those times
    samples = iter(timings[name])
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    benchmark.stats.stats.data[:] = list(samples)
    base = min(timings["import_pandas"])
    benchmark.extra_info.update(
        load=machine_load(), seconds=timings[name], min_seconds=min(timings[name]),
        import_pandas_min_seconds=base, ratio_to_import_pandas=min(timings[name]) / base,
        target=TARGETS.get(name, "reference"),
    )
