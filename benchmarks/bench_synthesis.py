"""Benchmark: CE scenario 4 (Tenure, Expenditure, Income), m = 20, seed 2021.

synthpop's own time for this call is not recorded in the fixtures' README, so
there is no reference number to compare with here.

Run: python -m pytest benchmarks/bench_synthesis.py --benchmark-enable \
        --benchmark-json benchmarks/results/synthesis.json
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _shared import cedata_path  # noqa: E402

from idrisk.synthesis import syn  # noqa: E402


@pytest.fixture(scope="module")
def ce() -> pd.DataFrame:
    d = pd.read_csv(cedata_path())
    for v, lv in [("Urban", [1, 2]), ("Marital", [1, 2, 3, 4, 5]), ("Tenure", [1, 2, 4, 5, 6])]:
        d[v] = pd.Categorical(d[v], categories=lv)
    return d


@pytest.mark.parametrize("rng", ["r", "numpy"])
def test_scenario4_m20(benchmark, ce, rng):
    vs = ["Tenure", "Expenditure", "Income"]
    res = benchmark.pedantic(syn, args=(ce,), kwargs={"m": 20, "visit_sequence": vs,
                                                      "seed": 2021, "rng": rng},
                             rounds=3, iterations=1)
    assert len(res.synthetic) == 20


def test_scenario4_m20_proper(benchmark, ce):
    vs = ["Tenure", "Expenditure", "Income"]
    res = benchmark.pedantic(syn, args=(ce,), kwargs={"m": 20, "visit_sequence": vs,
                                                      "seed": 2021, "proper": True},
                             rounds=1, iterations=1)
    assert len(res.synthetic) == 20
