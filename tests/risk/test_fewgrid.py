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
    if rng.random() < 0.3:  # not whole numbers: binary searches instead of a table
        w_values *= 0.25
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
    from idrisk.risk import _fewkernels

    y = np.array([3.0, -0.0, np.nan, 0.0, 3.0, -2.5, 7.0])
    skey = np.array([0, 0, 0, 1, 0, 0, -1])
    values, ok = _fewkernels.distinct_values(y, skey, 3)
    assert ok and values.tolist() == [-2.5, 0.0, 3.0]
    assert not _fewkernels.distinct_values(y, skey, 2)[1]


def _own_brute(tkey, skey, x, d, y, rule):
    """Does target i match synthetic row i (the brute force on the pair (i, i))?"""
    return np.array([
        tkey[i] >= 0 and brute(tkey[i:i + 1], skey[i:i + 1], x[i:i + 1], d[i:i + 1],
                               y[i:i + 1], rule)[0] == 1
        for i in range(len(tkey))
    ], dtype=bool)  # fmt: skip


def _sweep_problem(rng, tkey, skey, x, y0, empty_u: float = 0.0):
    """A problem of :func:`_problem` made to meet the table-free sweep's conditions (positive
    values, a percentage radius, no NA bound: one order of the bounds, no table; u, column 1,
    on many values, w on at most 6), with ``empty_u`` the chance of no radius on u (empty
    open u-windows, lo = hi); the first dataset counted. Returns x, d, y0, the rule and
    :func:`matching.few_sweep` (None when that count did not take the sweep)."""
    n = len(tkey)
    x = np.nan_to_num(np.abs(x) + 1, nan=1.0)
    x[:, 1] = rng.integers(1, 400, n)
    d = x * float(rng.choice([0.1, 0.25]))
    if rng.random() < empty_u:
        d[:, 1] = 0.0
    y0[:, 1] = rng.integers(1, 400, n)
    y0[:, 0] = rng.choice(np.unique(x[:, 0]), n)
    y0[np.isnan(y0)] = 1.0
    rule = MatchRule(closed=bool(rng.integers(2)), na_matches=bool(rng.integers(2)))
    cache = CountCache()
    n_keys = int(max(tkey.max(), skey.max())) + 1
    count_matches(tkey, skey, x, d, y0, rule, n_keys, cache)
    return x, d, y0, rule, matching.few_sweep(tkey, x, d, rule, n_keys, cache)


def test_fused_sweep_of_later_datasets_equals_brute_force():
    """The datasets after the first in one compiled call each (``matching.few_sweep``): the
    same keys and w as the first (its cells reused), another w among its values, and the
    datasets that must go the general way (a w outside the values, a NaN on a live row, a key
    the first dataset did not have), which it leaves untouched."""
    rng = np.random.default_rng(32)
    fused_rounds = declined = 0
    for _ in range(60):
        n = int(rng.integers(20, 150))
        tkey, skey, x, _, y0 = _problem(rng, n, 6)
        x, d, y0, rule, fused = _sweep_problem(rng, tkey, skey, x, y0)
        if fused is None:
            continue
        fused_rounds += 1
        values = np.unique(y0[skey >= 0, 0])
        same_w = np.column_stack([y0[:, 0], rng.permutation(y0[:, 1])])
        other_w = np.column_stack([rng.choice(values, n), y0[:, 1]])
        for y, k in ((same_w, skey), (other_w, skey), (other_w, rng.permutation(skey))):
            c, own = np.full(n, -7, dtype=np.int32), np.zeros(n, dtype=bool)
            assert fused(k, y, c, own)
            np.testing.assert_array_equal(c, brute(tkey, k, x, d, y, rule))
            np.testing.assert_array_equal(own, _own_brute(tkey, k, x, d, y, rule))
        live = np.flatnonzero(skey >= 0)
        if len(live) == 0:
            continue
        outside = same_w.copy()
        outside[live[0], 0] = values.max() + 0.5
        with_nan = same_w.copy()
        with_nan[live[-1], int(rng.integers(2))] = np.nan
        new_key = skey.copy()
        new_key[live[0]] = int(max(tkey.max(), skey.max())) + 1  # a key the first had not
        for y, k in ((outside, skey), (with_nan, skey), (same_w, new_key)):
            c, own = np.full(n, -7, dtype=np.int32), np.zeros(n, dtype=bool)
            assert not fused(k, y, c, own)
            assert (c == -7).all() and not own.any()
            declined += 1
    assert fused_rounds > 30 and declined > 60


def test_stack_of_kept_sides_equals_brute_force():
    """Every dataset at once from their kept sides merged (``FewSweep.stack`` and
    ``count_stack``): counts and own rows equal the brute force for 1, 2 and 3 runs of targets
    (a run may start inside a key; empty u-windows too), the merged rows of each key are the
    datasets' rows in u order, and a dataset without a kept side leaves no stack."""
    rng = np.random.default_rng(38)
    stacked = 0
    for _ in range(60):
        n, m = int(rng.integers(20, 150)), int(rng.integers(1, 5))
        tkey, skey, x, _, y0 = _problem(rng, n, 6)
        x, d, y0, rule, fused = _sweep_problem(rng, tkey, skey, x, y0, empty_u=0.3)
        if fused is None:
            continue
        values = np.unique(y0[skey >= 0, 0])
        ys = [np.column_stack([rng.choice(values, n), rng.integers(1, 400, n).astype(float)])
              for _ in range(m)]  # fmt: skip
        skeys = [skey if rng.random() < 0.5 else rng.permutation(skey) for _ in range(m)]
        stores: list = [{} for _ in range(m)]
        for k, y, store in zip(skeys, ys, stores):
            assert fused(k, y, np.empty(n, np.int32), np.empty(n, bool), store)
        stack = fused.stack(stores, skeys, ys, parts=int(rng.integers(1, 4)))  # keys merged
        assert stack is not None and fused.stack(stores, skeys, ys, stack) is stack  # in parts
        stacked += 1
        for k in range(len(stack.starts) - 1):  # each key: the datasets' rows, in u order
            a, b = stack.starts[k], stack.starts[k + 1]
            got = stack.sorted_u[a:b]
            assert np.all(got[1:] >= got[:-1])
            want = np.concatenate([y[(sk == k), 1] for sk, y in zip(skeys, ys)])
            np.testing.assert_array_equal(got, np.sort(want))
            slots = stack.slot[a:b]
            for j in range(m):
                mine = slots // stack.width == j
                w = ys[j][skeys[j] == k, 0]
                np.testing.assert_array_equal(
                    np.sort(values[slots[mine] % stack.width]), np.sort(w))
        for parts in (1, 2, 3):
            c = np.full((n, m), -7, dtype=np.int32, order="F")
            own = np.zeros((n, m), dtype=bool, order="F")
            for task in fused.count_stack(stack, c, own, parts):
                task()
            for j in range(m):
                np.testing.assert_array_equal(c[:, j], brute(tkey, skeys[j], x, d, ys[j], rule))
                np.testing.assert_array_equal(
                    own[:, j], _own_brute(tkey, skeys[j], x, d, ys[j], rule))
        stores[-1].clear()  # a dataset whose side is not kept: no stack
        assert fused.stack(stores, skeys, ys) is None
    assert stacked > 30


@pytest.mark.parametrize("whole", [True, False], ids=["whole_numbers", "fractions"])
def test_rank_windows_and_cells_against_searchsorted(whole):
    """The targets' rank windows and the rows' cells, from a table indexed by whole-number
    values or by binary search, against numpy's searchsorted: bounds on, between, below and
    above the values, infinite, huge and NaN."""
    from idrisk.risk import _fewkernels

    rng = np.random.default_rng(34)
    for _ in range(200):
        values = np.unique(rng.integers(-50, 50, int(rng.integers(1, 30)))).astype(float)
        if not whole:
            values = values / 3
        n = 300
        picks = [values, values + 0.5, values - 1e-9, [np.inf, -np.inf, np.nan, 1e300, -1e17]]
        lo = rng.choice(np.concatenate(picks), n)
        hi = lo + rng.choice([0.0, 0.5, 1.0, 7.0, np.nan], n)
        first = rng.permutation(n)
        for closed in (False, True):
            for na_matches in (False, True):
                c, d = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
                widths = _fewkernels.rank_windows(values, lo, hi, first, closed, na_matches,
                                                  c, d)  # fmt: skip
                want_c = np.searchsorted(values, lo[first], "left" if closed else "right")
                want_d = np.searchsorted(values, hi[first], "right" if closed else "left")
                lo_nan, hi_nan = np.isnan(lo[first]), np.isnan(hi[first])
                if na_matches:
                    want_c[lo_nan], want_d[hi_nan] = 0, len(values)
                else:
                    want_c[lo_nan | hi_nan], want_d[lo_nan | hi_nan] = 0, 0
                np.testing.assert_array_equal(c, want_c)
                np.testing.assert_array_equal(d, want_d)
                assert widths == np.maximum(want_d - want_c, 0).sum()
        skey = rng.integers(-1, 3, n)
        yw = rng.choice(values, n)
        cells = np.empty(n, dtype=np.int64)
        counts, ok = _fewkernels.few_cells(skey, yw, values, 3, cells)
        assert ok
        live = skey >= 0
        np.testing.assert_array_equal(
            cells[live], skey[live] * len(values) + np.searchsorted(values, yw[live])
        )
        assert (cells[~live] == -1).all() and counts[1:].tolist() == np.bincount(
            skey[live], minlength=3).tolist()  # fmt: skip
        for outside in (values[0] - 1, values[-1] + 1, values[0] + 0.5, np.nan):
            if outside in values:
                continue
            yw[np.flatnonzero(live)[:1]] = outside
            assert not _fewkernels.few_cells(skey, yw, values, 3, cells)[1] or not live.any()
            yw = rng.choice(values, n)


def test_distinct_values_against_numpy():
    """Whole numbers within the table's span (marked in a table), wider or fractional ones
    (inserted in order), infinities, NaN and dead rows: numpy's unique of the live values, or
    False above the limit."""
    from idrisk.risk import _fewkernels

    rng = np.random.default_rng(38)
    spans = [3, 100, _fewkernels.WHOLE_SPAN - 1, _fewkernels.WHOLE_SPAN, 10**6]
    for _ in range(300):
        n = int(rng.integers(0, 200))
        y = rng.integers(-5, int(rng.choice(spans)), n).astype(float)
        if rng.random() < 0.3:
            y = y / 4
        if rng.random() < 0.2:
            y[rng.random(n) < 0.1] = rng.choice([np.nan, np.inf, -0.0, 2.0**53], 1)[0]
        skey = rng.integers(-1, 2, n)
        want = np.unique(y[(skey >= 0) & ~np.isnan(y)])
        drawn = int(rng.integers(1, 60))
        for limit in (drawn, max(len(want), 1), max(len(want) - 1, 1)):  # at the limit too
            values, ok = _fewkernels.distinct_values(y, skey, limit)
            assert ok == (len(want) <= limit)
            if ok:
                np.testing.assert_array_equal(values, want)
