"""The compiled grid when one of two continuous variables has few distinct values
(:mod:`idrisk.risk._fewgrid`), against a pair-by-pair brute force: ties, NA targets, negative
values, window ends exactly on synthetic values, datasets whose values differ from the last
one's, radii counted again from a kept synthetic side."""

from __future__ import annotations

import numpy as np
import pytest

from idrisk.risk import _fewgrid, matching
from idrisk.risk.matching import CountCache, MatchRule, count_matches


def brute(tkey, skey, x, d, y, rule):
    """R's comparisons pair by pair: a NaN bound or value excludes nothing (R) or all."""
    lo, hi = x - d, x + d
    out = np.zeros(len(tkey), dtype=np.int64)
    for i in range(len(tkey)):
        if tkey[i] < 0:
            continue
        for k in range(len(skey)):
            if skey[k] != tkey[i]:
                continue
            ok = True
            for v in range(x.shape[1]):
                yv, lv, hv = y[k, v], lo[i, v], hi[i, v]
                if np.isnan(yv) or np.isnan(lv) or np.isnan(hv):
                    ok = ok and rule.na_matches and not (
                        (yv < lv or yv > hv) if rule.closed else (yv <= lv or yv >= hv)
                    )
                elif rule.closed:
                    ok = ok and lv <= yv <= hv
                else:
                    ok = ok and lv < yv < hv
            out[i] += ok
    return out


def _problem(rng, n, n_w):
    """w (column 0) on n_w values (negative ones too), u (column 1) on a tie-heavy grid; radii
    that put window ends exactly on values; NA in the targets' values."""
    n_keys = int(rng.integers(1, 4))
    tkey = rng.integers(-1, n_keys, n)
    skey = rng.integers(-1, n_keys, n)
    w_values = rng.choice(np.arange(-20, 21), size=n_w, replace=False).astype(float)
    u_grid = float(rng.choice([4, 12, 1000]))
    x = np.column_stack([rng.choice(w_values, n), rng.integers(-u_grid, u_grid, n)]).astype(float)
    y = np.column_stack([rng.choice(w_values, n), rng.integers(-u_grid, u_grid, n)]).astype(float)
    if rng.random() < 0.5:  # percentage radius: d = r * x, negative for negative x
        d = x * float(rng.choice([0.1, 0.25, 0.5]))
    else:  # whole-number radius: window ends fall on synthetic values
        d = rng.integers(0, 4, (n, 2)).astype(float)
    x[rng.random((n, 2)) < 0.05] = np.nan
    y[(skey < 0)[:, None] & (rng.random((n, 2)) < 0.3)] = np.nan  # only on dead synthetic rows
    return tkey, skey, x, d, y


def test_few_values_grid_equals_brute_force(monkeypatch):
    calls = []
    real = _fewgrid.count
    monkeypatch.setattr(_fewgrid, "count", lambda *a, **k: calls.append(1) or real(*a, **k))
    rng = np.random.default_rng(30)
    for _ in range(150):
        n = int(rng.integers(1, 120))
        tkey, skey, x, d, y = _problem(rng, n, int(rng.integers(1, 12)))
        rule = MatchRule(closed=bool(rng.integers(2)), na_matches=bool(rng.integers(2)))
        got, _ = count_matches(tkey, skey, x, d, y, rule)
        np.testing.assert_array_equal(got, brute(tkey, skey, x, d, y, rule), err_msg=str(rule))
    assert len(calls) > 100  # the few-values path, not the bucketed grid


def test_bounds_in_one_order_and_in_two(monkeypatch):
    """Upper bounds sorted like the lower ones (positive values, a percentage radius: one
    merge order) and not (negative values, ties broken apart): both exact."""
    seen = []
    real = matching._GridTargets.__init__

    def spy(self, *args, **kwargs):
        real(self, *args, **kwargs)
        seen.append(self.same_order)

    monkeypatch.setattr(matching._GridTargets, "__init__", spy)
    rng = np.random.default_rng(32)
    for _ in range(60):
        n = int(rng.integers(2, 120))
        tkey, skey, x, d, y = _problem(rng, n, int(rng.integers(1, 6)))
        if rng.random() < 0.5:
            x, y = np.abs(x), np.abs(y)
            d = 0.25 * x
        rule = MatchRule(closed=bool(rng.integers(2)), na_matches=bool(rng.integers(2)))
        got, _ = count_matches(tkey, skey, x, d, y, rule)
        np.testing.assert_array_equal(got, brute(tkey, skey, x, d, y, rule))
    assert True in seen and False in seen


def test_datasets_with_other_values_and_kept_sides():
    """One cache over datasets whose w values differ (the last dataset's values do not hold
    them all), and a kept synthetic side counted again with other radii."""
    rng = np.random.default_rng(31)
    for _ in range(30):
        n = int(rng.integers(20, 150))
        tkey, skey, x, d, _ = _problem(rng, n, 6)
        rule = MatchRule(closed=bool(rng.integers(2)), na_matches=bool(rng.integers(2)))
        cache = CountCache()
        ys = [_problem(rng, n, int(rng.integers(1, 8)))[4] for _ in range(4)]
        for _ in range(2):  # the same keys and w as the last dataset, another u (cells reused)
            ys.append(np.column_stack([ys[-1][:, 0], rng.permutation(ys[-1][:, 1])]))
        ys.append(np.column_stack([ys[0][:, 0], ys[-1][:, 1]]))  # another w, the same u
        for y in ys:
            y[:, 1][np.isnan(y[:, 1])] = 0.5
            y[np.isnan(y)] = 1.0
            got, _ = count_matches(tkey, skey, x, d, y, rule, cache=cache)
            np.testing.assert_array_equal(got, brute(tkey, skey, x, d, y, rule))
        store: dict = {}
        for scale in (1.0, 0.5, 2.0):
            got, _ = count_matches(tkey, skey, x, d * scale, ys[0], rule, store=store)
            np.testing.assert_array_equal(got, brute(tkey, skey, x, d * scale, ys[0], rule))
        assert any(k[0] == "few" for k in store)


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_limit_at_the_number_of_values(limit, monkeypatch):
    """Exactly ``_GRID_BUCKETS`` values take the few-values path, one more the bucketed grid:
    both exact."""
    monkeypatch.setattr(matching, "_GRID_BUCKETS", limit)
    _agree_on_random_problems(np.random.default_rng(limit), max_n=80, max_grid=5)


@pytest.mark.parametrize("block", [1, 2, 16])
def test_table_blocks(block, monkeypatch):
    """Any spacing of the prefix table's rows gives the same exact counts."""
    monkeypatch.setattr(_fewgrid, "_block", lambda n_values, n_rows: block)
    _agree_on_random_problems(np.random.default_rng(40 + block), max_n=150, max_grid=10)


def _agree_on_random_problems(rng, max_n: int, max_grid: int, rounds: int = 40) -> None:
    """count_matches equals the brute force on random problems and rules."""
    for _ in range(rounds):
        n = int(rng.integers(1, max_n))
        tkey, skey, x, d, y = _problem(rng, n, int(rng.integers(1, max_grid)))
        rule = MatchRule(closed=bool(rng.integers(2)), na_matches=bool(rng.integers(2)))
        got, _ = count_matches(tkey, skey, x, d, y, rule)
        np.testing.assert_array_equal(got, brute(tkey, skey, x, d, y, rule))


def test_distinct_values_kernel():
    from idrisk.risk import _kernels

    y = np.array([3.0, -0.0, np.nan, 0.0, 3.0, -2.5, 7.0])
    skey = np.array([0, 0, 0, 1, 0, 0, -1])
    values, ok = _kernels.distinct_values(y, skey, 3)
    assert ok and values.tolist() == [-2.5, 0.0, 3.0]
    assert not _kernels.distinct_values(y, skey, 2)[1]
