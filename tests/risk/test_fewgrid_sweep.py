"""The few-values grid's table-free sweep (:func:`idrisk.risk._fewkernels.count_few_sweep`: both
ends of the targets' u-windows only move forward), against the pair-by-pair brute force of
``test_fewgrid``: ties, window ends exactly on values, empty and inverted windows, dead keys,
keys without targets; and the same problems through the prefix table."""

from __future__ import annotations

import numpy as np
import pytest

from idrisk.risk import _fewgrid, _fewkernels
from idrisk.risk.matching import MatchRule, count_matches

from .test_fewgrid import brute


def _problem(rng, n):
    """No NaN bound (the sweep's condition); w (column 0) on few values, u on a tie-heavy
    grid; a percentage radius on positive values or a fixed one (upper bounds sorted like the
    lower ones), sometimes a zero or negative half-width (empty or inverted windows)."""
    n_keys = int(rng.integers(1, 6))
    tkey = rng.integers(-1, n_keys, n)
    skey = rng.integers(-1, n_keys, n)
    w_values = rng.choice(np.arange(1, 30), size=int(rng.integers(1, 12)), replace=False)
    u_grid = int(rng.choice([3, 10, 1000]))
    x = np.column_stack([rng.choice(w_values, n), rng.integers(0, u_grid, n)]).astype(float)
    y = np.column_stack([rng.choice(w_values, n), rng.integers(0, u_grid, n)]).astype(float)
    if rng.random() < 0.5:
        d = x * float(rng.choice([0.0, 0.1, 0.25, 0.5]))
    else:
        d = np.broadcast_to(rng.integers(-1, 4, 2).astype(float), (n, 2)).copy()
    return tkey, skey, x, d, y


@pytest.mark.parametrize("width", [_fewgrid.SWEEP_WIDTH, -1])  # -1: never the sweep
def test_sweep_and_table_equal_brute_force(width, monkeypatch):
    monkeypatch.setattr(_fewgrid, "SWEEP_WIDTH", width)
    calls = []
    real = _fewkernels.count_few_sweep
    monkeypatch.setattr(
        _fewkernels, "count_few_sweep", lambda *a: calls.append(1) or real(*a)
    )
    rng = np.random.default_rng(51 + width)
    for _ in range(120):
        n = int(rng.integers(1, 150))
        tkey, skey, x, d, y = _problem(rng, n)
        rule = MatchRule(closed=bool(rng.integers(2)), na_matches=bool(rng.integers(2)))
        want = brute(tkey, skey, x, d, y, rule)
        got, _ = count_matches(tkey, skey, x, d, y, rule)
        np.testing.assert_array_equal(got, want, err_msg=str(rule))
        store: dict = {}  # a side kept for the next radius (laid out once)
        got, _ = count_matches(tkey, skey, x, d, y, rule, store=store)
        np.testing.assert_array_equal(got, want, err_msg=str(rule))
    assert (len(calls) > 60) if width >= 0 else not calls


def test_merge_runs_keeps_every_row_in_u_order():
    """:func:`merge_runs` (runs merged two by two from both ends at once) against numpy: each
    key's rows come out sorted by u, and the (u, slot) pairs are the runs' own (no row lost or
    written twice), for empty runs, one-row runs, odd sizes and ties; a key range leaves the
    other keys as they were."""
    rng = np.random.default_rng(7)
    for _ in range(400):
        n_keys, m = int(rng.integers(1, 5)), int(rng.integers(1, 9))
        lengths = rng.integers(0, 3, (n_keys, m)) * rng.integers(0, 12, (n_keys, m))
        runs_at = np.zeros((n_keys, m + 1), dtype=np.int64)
        np.cumsum(lengths, axis=1, out=runs_at[:, 1:])
        key_starts = np.concatenate([[0], np.cumsum(runs_at[:, -1])])
        runs_at += key_starts[:-1, None]
        total = int(key_starts[-1])
        grid = float(rng.choice([2, 5, 1000]))
        u = np.floor(rng.random(total) * grid) - 1.5
        for k in range(n_keys):  # each run sorted
            for j in range(m):
                u[runs_at[k, j]:runs_at[k, j + 1]].sort()
        slot = rng.permutation(total).astype(np.int32)
        k0 = int(rng.integers(0, n_keys))
        k1 = int(rng.integers(k0, n_keys + 1))
        out_u, out_slot = u.copy(), slot.copy()
        _fewkernels.merge_runs(runs_at, k0, k1, out_u, out_slot)
        for k in range(n_keys):
            a, b = key_starts[k], key_starts[k + 1]
            if not k0 <= k < k1:
                np.testing.assert_array_equal(out_u[a:b], u[a:b])
                np.testing.assert_array_equal(out_slot[a:b], slot[a:b])
                continue
            np.testing.assert_array_equal(out_u[a:b], np.sort(u[a:b]))
            got = sorted(zip(out_u[a:b].tolist(), out_slot[a:b].tolist()))
            assert got == sorted(zip(u[a:b].tolist(), slot[a:b].tolist()))
