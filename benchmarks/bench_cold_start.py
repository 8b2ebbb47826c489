"""A new user's first call, in a new process (pytest-benchmark; issue 24, item 2).

Run:  python -m pytest benchmarks/bench_cold_start.py --benchmark-enable \
          --benchmark-json benchmarks/results/cold_start.json

Each round starts a new Python process that imports idrisk and makes one first call:

* ``syn``: the README quick start's synthesis, ``syn(load_demo(), m=3,
  syn=["Income"], seed=2021)`` (n = 5,571);
* ``quickstart``: the whole README quick start (that ``syn`` call, then
  ``identification_risk`` with known Age, Urban, Marital and Income synthesized, r = 0.1);
* ``cart``: ``syn(load_demo(), m=1, seed=2021)``, every variable synthesized (CART: the
  compiled tree growing, routing and draws; the README call synthesizes Income alone, by
  sampling, and compiles nothing);
* ``risk``: CE scenario 1 with m = 20 (``benchmarks/_data.py``; known Age, Urban, Marital,
  Income synthesized, r = 0.1), the data read from a pickle written beforehand.

and that with the compiled-code cache warm (filled by an earlier process) and empty (a new
``IDRISK_CACHE_DIR`` per round: every kernel is compiled). The time is the whole process, from
``exec`` to exit, as the user waits for it; ``extra_info`` adds the call alone, as timed inside
the process, and the machine load.

The numpy path that the compiled kernels replaced (``IDRISK_ENGINE=numpy`` before issue 24)
is measured from an export of that commit when ``IDRISK_BENCH_BASELINE`` names its directory
(``git archive 81641d2 | tar -x -C DIR``); the committed results hold it.

Each process runs idrisk as installed (bytecode compiled: ``_data.as_installed``).

Committed: ``results/cold_start_quiet.json`` (2026-11-24, load 0.5-0.9 on 2 cores, after
``idrisk._numba._KernelCache``: a cached kernel loads without numba's target-context refresh)
and ``results/cold_start.json`` (all variants, including the pre-issue-24 numba path, at load
12-16 before that change). Minimum whole-process seconds of 3, quiet machine:

==========  ==============  ===============  ======================
task        compiled, warm  compiled, empty  before: numpy path
==========  ==============  ===============  ======================
syn         0.429           0.814            0.409
quickstart  0.494           2.32             0.433
cart        0.758           11.3             1.196
risk        0.481           2.15             0.357
==========  ==============  ===============  ======================

With a warm cache CART is 0.63x the numpy path's time; syn is 1.05x, the quick start 1.14x and
CE risk m = 20 1.35x. What the small calls still pay is numba itself: its import (about 0.1 s
beside pandas: ``bench_cli_startup``'s ``import pandas, numba`` row) and, at the first load of
a kernel that allocates an array, the import of ``numba.np.arrayobj`` (0.05 s), which the
cached code's environment refers to. The refresh that cost 0.25 s (some 200 modules of
lowering rules, and ``scipy.linalg`` through numba's BLAS check) is gone. Before that change
the warm-cache figures were 0.747, 0.831, 0.970 and 0.731 s.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import pytest
from _data import as_installed, ce_scenario1, machine_load

ROOT = Path(__file__).resolve().parents[1]
BASELINE = os.environ.get("IDRISK_BENCH_BASELINE")

SYN = """
from idrisk import syn
from idrisk.datasets import load_demo
conf = load_demo()
t = time.perf_counter()
out = syn(conf, m=3, syn=["Income"], seed=2021)
syns = list(getattr(out, "frames", None) or out.synthetic)  # SyntheticData, or 0.1's result
"""

QUICKSTART = (SYN + """res = identification_risk(conf, syns, known=["Age", "Urban", "Marital"],
                          syn=["Income"], r=0.1)
""").replace("from idrisk import syn", "from idrisk import identification_risk, syn")

CART = """
from idrisk import syn
from idrisk.datasets import load_demo
conf = load_demo()
t = time.perf_counter()
out = syn(conf, m=1, seed=2021)
syns = list(getattr(out, "frames", None) or out.synthetic)  # SyntheticData, or 0.1's result
"""

RISK = """
import pickle, warnings
from idrisk import identification_risk
with open(DATA, "rb") as fh:
    orig, syns = pickle.load(fh)
t = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    res = identification_risk(orig, syns, known=["Age", "Urban", "Marital"], syn=["Income"],
                              r=0.1)
"""

CHILD = """
import json, sys, time
DATA = {data!r}
{body}
print(json.dumps({{"call_seconds": time.perf_counter() - t}}))
"""

_state: dict[str, str] = {}


@pytest.fixture(scope="module")
def ce_pickle(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("cold") / "ce_m20.pkl"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = ce_scenario1(m=20)
    with open(path, "wb") as fh:
        pickle.dump(data, fh)
    return str(path)


def _child(body: str, data: str, root: Path, env: dict[str, str]) -> tuple[float, dict]:
    code = CHILD.format(data=data, body=body)
    mine = ("IDRISK_ENGINE", "IDRISK_CACHE_DIR", "NUMBA_CACHE_DIR")
    full = {k: v for k, v in as_installed(root).items() if k not in mine}
    full.update(MPLBACKEND="Agg", **env)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True,
                         timeout=900, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - start
    if out.returncode:
        raise RuntimeError(out.stderr)
    inner = json.loads(out.stdout.strip().splitlines()[-1])
    inner["stderr"] = out.stderr.strip()[-500:]
    return wall, inner


VARIANTS = ["compiled-warm", "compiled-empty", "baseline-numpy", "baseline-numba-warm",
            "baseline-numba-empty"]


TASKS = {"syn": SYN, "quickstart": QUICKSTART, "cart": CART, "risk": RISK}


@pytest.mark.parametrize("task", list(TASKS))
@pytest.mark.parametrize("variant", VARIANTS)
def test_cold_start(benchmark, task, variant, ce_pickle, tmp_path):
    body = TASKS[task]
    if variant.startswith("baseline"):
        if not BASELINE:
            pytest.skip("IDRISK_BENCH_BASELINE (an export of the pre-issue-24 commit) not set")
        root = Path(BASELINE)
    else:
        root = ROOT
    cache_env = "NUMBA_CACHE_DIR" if variant.startswith("baseline") else "IDRISK_CACHE_DIR"
    rounds = iter(range(1000))
    extra: list[dict] = []

    def env_for_round() -> dict[str, str]:
        env: dict[str, str] = {}
        if variant == "baseline-numpy":
            env["IDRISK_ENGINE"] = "numpy"
        elif variant.startswith("baseline"):
            env["IDRISK_ENGINE"] = "numba"
        if variant.endswith("empty"):
            env[cache_env] = str(tmp_path / f"cache{next(rounds)}")
        elif variant.endswith("warm"):
            env[cache_env] = str(tmp_path / "warm")
        return env

    if variant.endswith("warm"):  # fill the cache once
        _child(body, ce_pickle, root, env_for_round())

    def run():
        wall, inner = _child(body, ce_pickle, root, env_for_round())
        extra.append(inner)
        return wall

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    benchmark.extra_info["load"] = machine_load()
    benchmark.extra_info["call_seconds"] = [round(e["call_seconds"], 3) for e in extra]
    benchmark.extra_info["stderr"] = extra[-1]["stderr"]
    benchmark.extra_info["code"] = str(root)
