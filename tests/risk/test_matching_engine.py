"""Internal strategies of the counting engine (compiled kernels), each against a brute-force
count in plain Python."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
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
    n_keys = int(max(tkey.max(), skey.max())) + 1
    for u in (0, 1):
        got = matching._count_grid(tkey, skey, lo, hi, y, rule, u, n_keys)
        np.testing.assert_array_equal(got, brute_counts(tkey, skey, lo, hi, y, closed))


@settings(max_examples=100, deadline=None)
@given(two_variable_problems())
def test_grid_with_tiny_table_budget(problem):
    """Even with two buckets (every window cuts a bucket) the counts stay exact."""
    tkey, skey, lo, hi, y, closed = problem
    n_keys = int(max(tkey.max(), skey.max())) + 1
    saved = matching._GRID_BUCKETS
    matching._GRID_BUCKETS = 2
    try:
        got = matching._count_grid(tkey, skey, lo, hi, y, MatchRule(closed=closed), 0, n_keys)
    finally:
        matching._GRID_BUCKETS = saved
    np.testing.assert_array_equal(got, brute_counts(tkey, skey, lo, hi, y, closed))


def test_wide_continuous_windows_go_through_the_grid(monkeypatch):
    calls = []
    real = matching._count_grid
    monkeypatch.setattr(matching, "_count_grid", lambda *a, **k: calls.append(1) or real(*a, **k))
    rng = np.random.default_rng(0)
    n = 4000
    key = np.zeros(n, dtype=np.int64)
    y = rng.lognormal(0, 1, (n, 2))
    x = rng.lognormal(0, 1, (n, 2))
    lo, hi = x * 0.5, x * 1.5
    cache = matching.CountCache()
    got = matching._count_box(key, key, lo, hi, y, MatchRule(), 1, cache)
    assert calls
    np.testing.assert_array_equal(got, brute_counts(key, key, lo, hi, y, False))


# --------------------------------------------------------------------------- compiled engine

def _random_problem(rng, n, grid, nan_share):
    n_keys = int(rng.integers(1, 4))
    tkey = rng.integers(-1, n_keys, n)
    skey = rng.integers(-1, n_keys, n)
    x = rng.integers(0, grid, (n, 2)).astype(float)
    y = rng.integers(0, grid, (n, 2)).astype(float)
    d = rng.integers(0, max(grid // 3, 1) + 1, (n, 2)).astype(float)
    x[rng.random((n, 2)) < nan_share] = np.nan  # NA targets: whole window (R) or nothing
    return tkey, skey, x, d, y


def brute_counts_na(tkey, skey, x, d, y, rule):
    """Brute force with R's NA rule on the targets' side (synthetic values have no NA here)."""
    lo, hi = x - d, x + d
    out = np.zeros(len(tkey), dtype=np.int64)
    for i in range(len(tkey)):
        if tkey[i] < 0:
            continue
        if rule.closed:
            inside = ~((y < lo[i]) | (y > hi[i]))
        else:
            inside = ~((y <= lo[i]) | (y >= hi[i]))
        if not rule.na_matches:
            inside &= ~np.isnan(lo[i]) & ~np.isnan(hi[i])
        out[i] = int(((skey == tkey[i]) & inside.all(axis=1)).sum())
    return out


@pytest.mark.parametrize("buckets", [2, 3, 512])
def test_compiled_grid_against_brute_force(buckets, monkeypatch):
    """The compiled two-variable grid (merged windows, prefix table, cut buckets) is exact,
    also with NA target values, many ties and targets whose interval is empty."""
    monkeypatch.setattr(matching, "_GRID_BUCKETS", buckets)
    rng = np.random.default_rng(buckets)
    for _ in range(60):
        n = int(rng.integers(1, 300))
        grid = int(rng.choice([3, 10, 1000, 100_000]))
        tkey, skey, x, d, y = _random_problem(rng, n, grid, rng.choice([0.0, 0.1]))
        rule = MatchRule(closed=bool(rng.integers(2)), na_matches=bool(rng.integers(2)))
        want = brute_counts_na(tkey, skey, x, d, y, rule)
        got, _ = matching.count_matches(tkey, skey, x, d, y, rule)
        np.testing.assert_array_equal(got, want, err_msg=f"{rule}")


def test_compiled_grid_is_used_and_sub_targets_reach_it(monkeypatch):
    """Two continuous variables go through the compiled grid; three reach it after expansion."""
    calls = []
    real = matching._count_grid

    def spy(*args, **kwargs):
        calls.append(len(args[0]))
        return real(*args, **kwargs)

    monkeypatch.setattr(matching, "_count_grid", spy)
    rng = np.random.default_rng(5)
    n = 2000
    key = rng.integers(0, 3, n)
    x = np.column_stack([rng.integers(18, 90, n), rng.lognormal(10, 1, (n, 2))]).astype(float)
    y = np.column_stack([x[:, 0], rng.lognormal(10, 1, (n, 2))])
    d = 0.1 * x
    for p in (2, 3):
        rule = MatchRule()
        got, _ = matching.count_matches(key, key, x[:, :p], d[:, :p], y[:, :p], rule)
        np.testing.assert_array_equal(
            got, brute_counts_na(key, key, x[:, :p], d[:, :p], y[:, :p], rule)
        )
    assert len(calls) >= 2


def _pair_matches(x, d, y, rule):
    """One (target, synthetic row) pair in plain Python, as ``tests/reference.py`` decides it:
    R's comparisons, NA excludes nothing (R) or everything, the ellipsoid terms summed left to
    right."""
    total = 0.0
    for xv, dv, yv in zip(x, d, y):
        lo, hi = xv - dv, xv + dv
        if any(math.isnan(v) for v in (xv, yv, lo, hi)):
            if not rule.na_matches:
                return False
            continue
        if not ((lo <= yv <= hi) if rule.closed else (lo < yv < hi)):
            return False
        if rule.ellipsoid:
            if dv > 0:
                total += ((yv - xv) / dv) ** 2
            elif not (rule.closed and dv == 0 and yv == xv):
                return False
    return not rule.ellipsoid or (total <= 1 if rule.closed else total < 1)


def test_compiled_candidates_with_ellipsoid_and_na():
    """Compiled candidate checks (ellipsoid up to 9 variables, NA on both sides, both NA rules)
    and the own-row indicator T against a pair-by-pair Python count."""
    rng = np.random.default_rng(11)
    for _ in range(40):
        n, p = int(rng.integers(1, 80)), int(rng.choice([1, 2, 3, 9]))
        key = rng.integers(-1, 2, n)
        skey = rng.integers(-1, 2, n)
        x = rng.integers(-2, 8, (n, p)).astype(float)
        y = rng.integers(-2, 8, (n, p)).astype(float)
        x[rng.random((n, p)) < 0.05] = np.nan
        y[rng.random((n, p)) < 0.05] = np.nan
        d = rng.integers(0, 4, (n, p)).astype(float) * (1 + p // 3)
        for closed in (False, True):
            for na in (False, True):
                rule = MatchRule(closed=closed, na_matches=na, ellipsoid=bool(rng.integers(2)))
                c, own = matching.count_matches(key, skey, x, d, y, rule)
                want_c = [
                    sum(key[i] >= 0 and skey[k] == key[i] and _pair_matches(x[i], d[i], y[k], rule)
                        for k in range(n))
                    for i in range(n)
                ]
                want_own = [key[i] >= 0 and skey[i] == key[i]
                            and _pair_matches(x[i], d[i], y[i], rule) for i in range(n)]
                np.testing.assert_array_equal(c, want_c, err_msg=str(rule))
                np.testing.assert_array_equal(own, want_own, err_msg=str(rule))


def test_three_continuous_over_datasets_against_brute_force():
    """Expansion on the known variable, reused (with its sub-targets' cache) for every dataset,
    then the two synthesized variables: equal to the O(n^2) baseline, R's euclidean radii."""
    import warnings

    import pandas as pd
    from reference import brute_force_numpy

    from idrisk import identification_risk

    rng = np.random.default_rng(8)
    n = 1500
    orig = pd.DataFrame({
        "Age": rng.integers(18, 40, n).astype(float),
        "G": pd.Categorical(rng.choice(["a", "b"], n)),
        "Inc": np.round(rng.lognormal(3, 0.5, n), 1),
        "Exp": np.round(rng.lognormal(2, 0.5, n), 1),
    })  # fmt: skip
    syns = [
        orig.assign(Inc=orig["Inc"].to_numpy()[rng.permutation(n)],
                    Exp=np.round(orig["Exp"].to_numpy()[rng.permutation(n)] * 1.1, 1))
        for _ in range(3)
    ]  # fmt: skip
    for euclid in (False, True):
        call = dict(known=["Age", "G"], syn=["Inc", "Exp"], r=0.1, euclidean_dist=euclid)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = identification_risk(orig, syns, **call, n_jobs=2)
            want = brute_force_numpy(orig, syns, **call)
        np.testing.assert_array_equal(got.c.to_numpy(), want.c.to_numpy())
        np.testing.assert_array_equal(got.T.to_numpy(), want.T.to_numpy())
        assert got.c.to_numpy().max() > 2


def test_key_encoder_gives_the_confidential_rows_their_own_keys():
    """A synthetic dataset whose categorical codes are the confidential ones (known variables
    only) takes the encoder's fitted keys without a transform (``prepared._Mode.skey``): they
    must be the transform of those codes, missing codes (-1) and dense or sparse stages
    alike."""
    from idrisk.risk._keys import KeyEncoder

    rng = np.random.default_rng(36)
    for _ in range(100):
        n, p = int(rng.integers(1, 60)), int(rng.integers(1, 4))
        codes = rng.integers(-1, int(rng.choice([3, 50, 5000])), (n, p)).astype(np.int32)
        encoder = KeyEncoder(codes)
        np.testing.assert_array_equal(encoder.transform(codes), encoder.keys)
        assert encoder.keys.max(initial=-1) < encoder.n_keys


@settings(max_examples=200, deadline=None)
@given(raw=st.lists(st.integers(0, 40), max_size=300))
def test_first_codes_is_pandas_factorize(raw):
    """The key encoder's compiled factorisation numbers values in order of first appearance,
    as ``pd.factorize``, and fills the lookup table with each value's code."""
    from idrisk.risk._kernels import first_codes

    values = np.asarray(raw, dtype=np.int64)
    lut = np.full(41, -1, dtype=np.int64)
    codes, found = np.empty(len(values), dtype=np.int64), np.empty(41, dtype=np.int64)
    k = first_codes(values, lut, codes, found)
    want_codes, want_uniques = pd.factorize(values)
    np.testing.assert_array_equal(codes, want_codes)
    np.testing.assert_array_equal(found[:k], want_uniques)
    assert lut[want_uniques].tolist() == list(range(k))
    assert (np.delete(lut, want_uniques) == -1).all()


def test_key_encoder_keys_are_the_same_with_and_without_lookup_tables(monkeypatch):
    """Stages small enough for a lookup table are factorised in compiled code; the keys (and
    the transform of other codes) are those of ``pd.factorize`` stage by stage."""
    from idrisk.risk._keys import KeyEncoder

    rng = np.random.default_rng(37)
    for _ in range(60):
        n, p = int(rng.integers(1, 80)), int(rng.integers(1, 4))
        codes = rng.integers(-1, int(rng.choice([3, 9, 50])), (n, p)).astype(np.int32)
        other = rng.integers(-1, 60, (n, p)).astype(np.int32)
        dense = KeyEncoder(codes)
        monkeypatch.setattr(KeyEncoder, "_DENSE", 0)
        sparse = KeyEncoder(codes)
        monkeypatch.undo()
        np.testing.assert_array_equal(dense.keys, sparse.keys)
        assert dense.n_keys == sparse.n_keys
        np.testing.assert_array_equal(dense.transform(other), sparse.transform(other))


@settings(max_examples=100, deadline=None)
@given(
    n=st.integers(0, 9000),
    p=st.integers(1, 3),
    nans=st.lists(
        st.tuples(st.one_of(st.sampled_from([0, 4095, 4096, 8191, 8192]), st.integers(0, 9000)),
                  st.integers(0, 2), st.booleans()),
        max_size=4,
    ),
)
def test_nan_in_live_rows_is_numpys_answer(n, p, nans):
    """A NaN counts in a row with a key >= 0 only, wherever it is (blocks of rows are
    counted first, then the rows of a block with a NaN)."""
    from idrisk.risk._kernels import nan_in_live_rows

    y = np.ones((n, p))
    skey = np.zeros(n, dtype=np.int64)
    for where, v, dead in nans:
        if n:
            i = min(where, n - 1)
            y[i, min(v, p - 1)] = np.nan
            skey[i] = -1 if dead else 0
    assert nan_in_live_rows(skey, y) == bool(np.isnan(y[skey >= 0]).any())
