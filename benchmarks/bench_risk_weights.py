"""Benchmark: exact fast pairwise weights (and marginal risk) on n = 100,000 records.

Run:  python -m pytest benchmarks/bench_risk_weights.py --benchmark-enable \
          --benchmark-json benchmarks/results/risk_weights.json
The naive definition is O(sum |M_p|^3); with 40 patterns of ~2,500 records that is
~6e11 operations, while the fast algorithm is O(n log n).
"""

from __future__ import annotations

import numpy as np
import pytest

from idrisk.weighted.weights import (
    confidential_marginal_risk,
    pairwise_weights,
    pairwise_weights_naive,
)

N = 100_000


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(42)
    y = np.round(rng.lognormal(11, 0.8, N))
    pattern = rng.integers(0, 40, N)
    return y, pattern


def test_bench_pairwise_weights_100k(benchmark, data):
    y, p = data
    alpha = benchmark(pairwise_weights, y, p, 0.2)
    assert alpha.between(0, 1).all()
    # spot check against the definition on one pattern subsample
    sub = np.flatnonzero(p == 0)[:300]
    np.testing.assert_allclose(pairwise_weights(y[sub], p[sub], 0.2),
                               pairwise_weights_naive(y[sub], p[sub], 0.2), atol=1e-12)


def test_bench_marginal_risk_100k(benchmark, data):
    y, p = data
    risk = benchmark(confidential_marginal_risk, y, p, 0.2)
    assert risk.between(0, 1).all()


def test_bench_naive_pairwise_2k(benchmark, data):
    """The O(|M|^3) definition on 2,000 records of 4 patterns, for scale."""
    y, p = data
    y2, p2 = y[:2000], p[:2000] % 4
    benchmark.pedantic(pairwise_weights_naive, args=(y2, p2, 0.2), rounds=3, iterations=1)
