"""Speed and memory of ``identification_risk`` (pytest-benchmark; issue 12).

Run:  python -m pytest benchmarks/bench_risk.py --benchmark-enable \
          --benchmark-json benchmarks/results/risk.json

* CE scenario 1 (n = 5,571, m = 20; known Age, Urban, Marital; Income synthesized by
  resampling within Age x Urban x Marital groups with 5% log-normal noise; r = 0.1): idrisk
  (compiled kernels; the numpy engine was removed in issue 24), the O(n^2) brute force and,
  where installed, the R package -- all in the same run. Target: >= 150x the R package;
  <= 0.04 s idle.
* 1,000,000 x 20: Age known (continuous, percentage radius) + Urban, Marital; Income
  synthesized; and the same with Age and Income both synthesized. Target < 15 s, peak RSS
  < 3 GB (measured in a fresh process: data generation + the call).
* 100,000 x 20, three continuous variables (Age known; Income, Expenditure synthesized) with
  ``euclidean_dist=True``.

Every result records the machine load (``uptime``) in ``extra_info``: the machine is shared.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np
import pytest
from _data import (
    CE1_CALL,
    ce_scenario1,
    machine_load,
    make_age_income,
    make_three_continuous,
    run_measured,
)
from reference import brute_force_numpy

from idrisk import identification_risk

_timings: dict[str, float] = {}
ENGINES = ["numba"]  # the one engine (results before issue 24 also hold "numpy")


def quiet(func, *args, **kwargs):
    """Call without the RiskInputWarnings (CE has incomes <= 0, which R never matches)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


@pytest.fixture(scope="module")
def ce1():
    return ce_scenario1(m=20)


@pytest.mark.parametrize("engine", ENGINES)
def test_ce1_m20_idrisk(benchmark, ce1, engine):
    orig, syns = ce1
    result = benchmark.pedantic(quiet, args=(identification_risk, orig, syns), kwargs=CE1_CALL,
                                rounds=30, iterations=1, warmup_rounds=2)
    _timings[engine] = benchmark.stats.stats.min
    benchmark.extra_info.update(load=machine_load(), engine=engine, target_s=0.04,
                                mean_exp_risk=float(result.exp_risk.mean()))


def test_ce1_m20_brute_force(benchmark, ce1):
    orig, syns = ce1
    result = benchmark.pedantic(quiet, args=(brute_force_numpy, orig, syns), kwargs=CE1_CALL,
                                rounds=1, iterations=1)
    fast = quiet(identification_risk, orig, syns, **CE1_CALL)
    np.testing.assert_array_equal(result.c.to_numpy(), fast.c.to_numpy())
    brute = benchmark.stats.stats.min
    benchmark.extra_info["load"] = machine_load()
    for engine, t in _timings.items():
        benchmark.extra_info[f"speedup_{engine}_vs_brute_force"] = brute / t


def test_ce1_m20_r_package(benchmark, ce1):
    rcompat = pytest.importorskip("idrisk.rcompat")
    if not rcompat.r_package_available("IdentificationRiskCalculation"):
        pytest.skip("R package IdentificationRiskCalculation is not installed")
    orig, syns = ce1
    start = time.perf_counter()
    benchmark.pedantic(rcompat.identification_risk_r, args=(orig, syns), kwargs=CE1_CALL,
                       rounds=1, iterations=1)
    elapsed = time.perf_counter() - start
    benchmark.extra_info["load"] = machine_load()
    for engine, t in _timings.items():
        benchmark.extra_info[f"speedup_{engine}_vs_r_package"] = elapsed / t  # target >= 150


_CHILD = """
import sys, time, warnings
sys.path[:0] = {paths!r}
warnings.simplefilter("ignore")
from _data import {maker}
from idrisk import identification_risk
orig, syns, call = {maker}({n}, 20, **{kwargs!r})
start = time.perf_counter()
res = identification_risk(orig, syns, **call)
result = dict(seconds=time.perf_counter() - start, mean_exp_risk=float(res.exp_risk.mean()))
"""


def _child(maker: str, n: int, **kwargs) -> dict:
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [here, os.path.join(os.path.dirname(here), "tests")]
    return run_measured(_CHILD.format(paths=paths, maker=maker, n=n, kwargs=kwargs))


@pytest.mark.parametrize("both", [False, True], ids=["age_known", "age_and_income_syn"])
def test_million_m20(benchmark, both):
    orig, syns, call = make_age_income(1_000_000, 20, both)
    result = benchmark.pedantic(quiet, args=(identification_risk, orig, syns), kwargs=call,
                                rounds=2, iterations=1)
    mean_risk = float(result.exp_risk.mean())
    del result, orig, syns
    child = _child("make_age_income", 1_000_000, both=both)
    assert child["mean_exp_risk"] == mean_risk
    benchmark.extra_info.update(
        load=machine_load(), target_s=15, target_peak_rss_mb=3072, mean_exp_risk=mean_risk,
        peak_rss_mb=child["peak_rss_mb"], fresh_process_seconds=child["seconds"],
    )  # fmt: skip


@pytest.mark.parametrize("engine", ENGINES)
def test_100k_three_continuous_euclidean(benchmark, engine):
    orig, syns, call = make_three_continuous(100_000, 20)
    result = benchmark.pedantic(quiet, args=(identification_risk, orig, syns), kwargs=call,
                                rounds=2 if engine == "numba" else 1, iterations=1)
    benchmark.extra_info.update(load=machine_load(), engine=engine,
                                mean_exp_risk=float(result.exp_risk.mean()))
