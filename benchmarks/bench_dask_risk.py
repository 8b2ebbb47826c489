"""Speed of ``identification_risk_dask`` on a local threaded scheduler (pytest-benchmark).

Run:  python -m pytest benchmarks/bench_dask_risk.py --benchmark-enable \
          --benchmark-json benchmarks/results/dask_risk.json

n = 1,000,000 records, m = 4 synthetic datasets, three categorical known variables (50 keys) and
one continuous synthesized variable (r = 0.1). The inputs are dask DataFrames (8 partitions) and
the work is split into 8 key buckets. The single-machine engine runs on the same data for
comparison, and the two results are checked to be identical.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from idrisk import identification_risk

dd = pytest.importorskip("dask.dataframe")

from idrisk.risk.dask_engine import identification_risk_dask  # noqa: E402

N, M, PARTS = 1_000_000, 4, 8
CALL = dict(known=["Urban", "Marital", "Tenure"], syn=["Income"], r=0.1)
_results: dict[str, object] = {}


def make_data(n: int, m: int, seed: int = 1) -> tuple[pd.DataFrame, list[pd.DataFrame]]:
    """Confidential data (3 categorical known variables, a lognormal income) and m synthetic
    versions (income resampled and jittered)."""
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame(
        {
            "Urban": pd.Categorical(rng.choice(["1", "2"], n, p=[0.93, 0.07])),
            "Marital": pd.Categorical(rng.choice(list("12345"), n)),
            "Tenure": pd.Categorical(rng.choice(list("12456"), n)),
            "Income": np.round(rng.lognormal(10.5, 1.0, n), 2),
        }
    )
    syns = []
    for _ in range(m):
        income = orig["Income"].to_numpy()[rng.permutation(n)] * rng.lognormal(0, 0.05, n)
        syns.append(orig.assign(Income=income))
    return orig, syns


@pytest.fixture(scope="module")
def data():
    orig, syns = make_data(N, M)
    return orig, syns


def test_dask_threads_n1e6_m4(benchmark, data):
    orig, syns = data
    d_orig = dd.from_pandas(orig, npartitions=PARTS)
    d_syns = [dd.from_pandas(s, npartitions=PARTS) for s in syns]
    result = benchmark.pedantic(
        identification_risk_dask,
        args=(d_orig, d_syns),
        kwargs=dict(CALL, npartitions=PARTS, scheduler="threads"),
        rounds=2,
        iterations=1,
    )
    _results["dask"] = result
    benchmark.extra_info.update(
        n=N, m=M, partitions=PARTS, scheduler="threads",
        mean_exp_risk=float(result.exp_risk.mean()),
    )  # fmt: skip


def test_single_machine_n1e6_m4(benchmark, data):
    orig, syns = data
    result = benchmark.pedantic(
        identification_risk, args=(orig, syns), kwargs=CALL, rounds=2, iterations=1
    )
    benchmark.extra_info.update(n=N, m=M, mean_exp_risk=float(result.exp_risk.mean()))
    if "dask" in _results:
        other = _results["dask"]
        for name in ("c", "T", "risk", "exp_risk", "true_rate", "false_rate"):
            np.testing.assert_array_equal(
                getattr(other, name).to_numpy(), getattr(result, name).to_numpy()
            )
        benchmark.extra_info["dask_identical"] = True
