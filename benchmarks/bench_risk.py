"""Speed and memory of ``identification_risk`` (pytest-benchmark).

Run:  python -m pytest benchmarks/bench_risk.py --benchmark-enable \
          --benchmark-json benchmarks/results/risk.json

* CE scenario 1 (n = 5,571, m = 20; synthpop's own synthetic data from the shared fixtures;
  known Age, Urban, Marital; syn Income; r = 0.1 on Age and Income): idrisk, the O(n^2) brute
  force (R's algorithm shape, vectorised numpy) and, where installed, the R package itself.
* Generated data, m = 20: n = 100,000 and 1,000,000 records, categorical known variables and
  one or two continuous synthesized variables. Peak memory (tracemalloc) goes to extra_info.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from _shared import cedata_path, fixtures_dir
from reference import brute_force_numpy

from idrisk import identification_risk
from idrisk.datasets import read_ce

CE_CALL = dict(known=["Age", "Urban", "Marital"], syn=["Income"], r=[0.1, 0.1])
_timings: dict[str, float] = {}


def _ce_inputs():
    folder = fixtures_dir("synthpop") / "scenario1"
    syns = [read_ce(folder / f"syn_{j:02d}.csv") for j in range(1, 21)]
    return read_ce(cedata_path()), syns


@pytest.fixture(scope="module")
def ce():
    return _ce_inputs()


def test_ce_m20_idrisk(benchmark, ce):
    orig, syns = ce
    result = benchmark(identification_risk, orig, syns, **CE_CALL)
    _timings["idrisk"] = benchmark.stats.stats.min
    benchmark.extra_info["mean_exp_risk"] = float(result.exp_risk.mean())


def test_ce_m20_brute_force(benchmark, ce):
    orig, syns = ce
    result = benchmark.pedantic(brute_force_numpy, args=(orig, syns), kwargs=CE_CALL,
                                rounds=1, iterations=1)
    fast = identification_risk(orig, syns, **CE_CALL)
    np.testing.assert_array_equal(result.c.to_numpy(), fast.c.to_numpy())
    brute = benchmark.stats.stats.min
    if "idrisk" in _timings:
        benchmark.extra_info["speedup_vs_brute_force"] = brute / _timings["idrisk"]


def test_ce_m20_r_package(benchmark, ce):
    rcompat = pytest.importorskip("idrisk.rcompat")
    if not rcompat.r_package_available("IdentificationRiskCalculation"):
        pytest.skip("R package IdentificationRiskCalculation is not installed")
    orig, syns = ce
    start = time.perf_counter()
    benchmark.pedantic(rcompat.identification_risk_r, args=(orig, syns), kwargs=CE_CALL,
                       rounds=1, iterations=1)
    elapsed = time.perf_counter() - start
    if "idrisk" in _timings:
        benchmark.extra_info["speedup_vs_r_package"] = elapsed / _timings["idrisk"]


def make_large(n: int, m: int, n_cont: int, seed: int = 1):
    """Confidential data with 3 categorical known variables and n_cont continuous ones, and m
    synthetic versions (continuous values resampled within groups and jittered)."""
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame(
        {
            "Urban": pd.Categorical(rng.choice(["1", "2"], n, p=[0.93, 0.07])),
            "Marital": pd.Categorical(rng.choice(list("12345"), n)),
            "Tenure": pd.Categorical(rng.choice(list("12456"), n)),
        }
    )
    names = ["Income", "Expenditure"][:n_cont]
    for name in names:
        orig[name] = np.round(rng.lognormal(10.5, 1.0, n), 2)
    syns = []
    for _ in range(m):
        frame = orig.copy()
        for name in names:
            frame[name] = orig[name].to_numpy()[rng.permutation(n)] * rng.lognormal(0, 0.05, n)
        syns.append(frame)
    return orig, syns, names


@pytest.mark.parametrize("n", [100_000, 1_000_000])
@pytest.mark.parametrize("n_cont", [1, 2])
def test_large(benchmark, n, n_cont):
    orig, syns, names = make_large(n, 20, n_cont)
    call = dict(known=["Urban", "Marital", "Tenure"], syn=names, r=0.1)
    result = benchmark.pedantic(identification_risk, args=(orig, syns), kwargs=call,
                                rounds=1, iterations=1)
    benchmark.extra_info["mean_exp_risk"] = float(result.exp_risk.mean())
    del result
    tracemalloc.start()
    identification_risk(orig, syns, **call)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    benchmark.extra_info["peak_memory_mb"] = peak / 2**20
