"""Internal strategies of the counting engine, each against a brute-force count."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from idrisk.risk import matching
from idrisk.risk.matching import MatchRule


def brute_counts(tkey, skey, lo, hi, y, closed):
    n = len(tkey)
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        if tkey[i] < 0:
            continue
        if closed:
            inside = (y >= lo[i]) & (y <= hi[i])
        else:
            inside = (y > lo[i]) & (y < hi[i])
        out[i] = int(((skey == tkey[i]) & inside.all(axis=1)).sum())
    return out


@st.composite
def two_variable_problems(draw):
    n = draw(st.integers(1, 60))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_keys = draw(st.integers(1, 4))
    tkey = rng.integers(-1, n_keys, n)
    skey = rng.integers(-1, n_keys, n)
    grid = draw(st.sampled_from([3, 10, 1000]))  # few values -> many ties on bucket edges
    x = rng.integers(0, grid, (n, 2)).astype(float)
    y = rng.integers(0, grid, (n, 2)).astype(float)
    d = rng.integers(0, max(grid // 3, 1) + 1, (n, 2)).astype(float)
    return tkey, skey, x - d, x + d, y, draw(st.booleans())


@settings(max_examples=200, deadline=None)
@given(two_variable_problems())
def test_grid_strategy_is_exact(problem):
    tkey, skey, lo, hi, y, closed = problem
    rule = MatchRule(closed=closed)
    for u in (0, 1):
        got = matching._count_grid(tkey, skey, lo, hi, y, rule, u)
        np.testing.assert_array_equal(got, brute_counts(tkey, skey, lo, hi, y, closed))


@settings(max_examples=100, deadline=None)
@given(two_variable_problems())
def test_grid_with_tiny_table_budget(problem):
    """Even with two buckets (table budget exhausted) the counts stay exact."""
    tkey, skey, lo, hi, y, closed = problem
    saved = matching._GRID_BYTES
    matching._GRID_BYTES = 1
    try:
        got = matching._count_grid(tkey, skey, lo, hi, y, MatchRule(closed=closed), 0)
    finally:
        matching._GRID_BYTES = saved
    np.testing.assert_array_equal(got, brute_counts(tkey, skey, lo, hi, y, closed))


def test_plan_picks_grid_for_wide_continuous_windows():
    rng = np.random.default_rng(0)
    n = 4000
    key = np.zeros(n, dtype=np.int64)
    y = rng.lognormal(0, 1, (n, 2))
    x = rng.lognormal(0, 1, (n, 2))
    lo, hi = x * 0.5, x * 1.5
    cache = matching.CountCache()
    assert matching._plan(key, key, lo, hi, y, MatchRule(), cache)[0] == "grid"
    got = matching._count_box(key, key, lo, hi, y, MatchRule(), 1, cache)
    np.testing.assert_array_equal(got, brute_counts(key, key, lo, hi, y, False))
