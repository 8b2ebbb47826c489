"""The compiled two-variable grid when the bucketed variable has few distinct values.

With at most ``limit`` distinct values of w (ages, counts, codes), every value is its own bucket
of the grid of :mod:`idrisk.risk.matching` and no window ever cuts a bucket. Per synthetic
dataset the count is then two compiled passes and one sort, with no numpy temporaries:

* :func:`side`: the rows sorted by u (``np.argsort``), then one pass
  (:func:`idrisk.risk._kernels.few_side`) groups them by key, looks up the rank of each w among
  the distinct values and builds the prefix table of the ranks;
* :func:`count`: one pass (:func:`idrisk.risk._kernels.count_few`) merges the targets' u bounds
  into the sorted values and reads each target's count from the table.

The distinct values of w need not be this dataset's own: any sorted set of values holding every
w of a live row gives exact ranks (w lies in the open window ``(lo, hi)`` exactly when its index
in the set is in ``[#values <= lo, #values < hi)``). The values found for one dataset are tried
on the next (a known variable, or a synthesized one drawn from the same values, has the same
set); a dataset with a value outside them gets its own. The targets' rank windows are computed
once per set of values.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from . import _kernels

__all__ = ["FewSide", "buckets", "count", "grid_axis", "side"]

_NO_NAN = np.zeros(0, dtype=bool)


class FewSide(NamedTuple):
    """A dataset's synthetic side (radius-independent: kept across radii by a store)."""

    values: np.ndarray  # sorted values holding every w of a live row
    block: int  # positions between two rows of the prefix table
    starts: np.ndarray  # key k's rows at starts[k]:starts[k + 1]
    sorted_u: np.ndarray  # the live rows' u, in (key, u) order
    rank: np.ndarray  # their w's index in values (int32)
    table: np.ndarray  # prefix counts of the ranks (see _kernels.grid_table)


def grid_axis(skey: np.ndarray, y: np.ndarray, limit: int) -> tuple[int, np.ndarray | None]:
    """The variable u to merge on (the one with more distinct values among the live rows) and
    the distinct values of the other one, w, when there are at most ``limit`` (else None)."""
    found = [_kernels.distinct_values(np.ascontiguousarray(y[:, v]), skey, limit) for v in (0, 1)]
    if found[0][1] and found[1][1]:
        u = 0 if len(found[0][0]) >= len(found[1][0]) else 1
        return u, found[1 - u][0]
    if found[0][1] or found[1][1]:
        w = 0 if found[0][1] else 1
        return 1 - w, found[w][0]
    live = skey >= 0
    n_distinct = [len(np.unique(y[live, v])) for v in (0, 1)]
    return (0 if n_distinct[0] >= n_distinct[1] else 1), None


def _block(n_values: int, n_rows: int) -> int:
    """Positions between two rows of the prefix table: 4 while the table stays small (up to
    4 MB), else 16, and more for many values (at most ~32 bytes of table per position)."""
    if (n_rows // 4 + 1) * (n_values + 1) * 4 <= 1 << 22:
        return 4
    block = 16
    while n_values + 1 > 8 * block:
        block *= 2
    return block


def side(skey: np.ndarray, y: np.ndarray, u: int, n_keys: int, hint: Any, limit: int):
    """The :class:`FewSide` of a dataset, or None when w has more than ``limit`` distinct values
    (or a NA: the grid's callers exclude it). ``hint`` (any object) carries what the last
    dataset found: ``few``, its values (None: unknown, False: too many), and ``cells``, its
    keys, w and cells (reused when this dataset's keys and w are the same: known variables)."""
    yu, yw = np.ascontiguousarray(y[:, u]), np.ascontiguousarray(y[:, 1 - u])
    found = None
    for _ in range(2):
        values = hint.few
        if values is None:
            values, ok = _kernels.distinct_values(yw, skey, limit)
            hint.few = values if ok else False
            if not ok:
                return None
        if values is False:
            return None
        found = _cells(skey, yw, values, n_keys, hint)
        if found is not None:
            break
        hint.few = None  # a w value outside the last dataset's: this dataset's own values
    if found is None:
        return None
    cells, counts = found
    block = _block(len(values), len(skey))
    starts, sorted_u, rank, table = _kernels.few_side(
        np.argsort(yu), yu, cells, counts, len(values), block
    )
    return FewSide(values, block, starts, sorted_u, rank, table)


def _cells(skey, yw, values, n_keys, hint):
    """(cells, counts) of :func:`idrisk.risk._kernels.few_cells`, or None (a w value not in
    ``values``); the last dataset's when its keys, w and values are this one's."""
    last = hint.cells  # (skey, yw, values, cells, counts), replaced as a whole (threads)
    if (
        last is not None and last[2] is values and len(last[0]) == len(skey)
        and np.array_equal(last[0], skey) and np.array_equal(last[1], yw)
    ):  # fmt: skip
        return last[3], last[4]
    cells = np.empty(len(skey), dtype=np.int32 if n_keys * len(values) < 2**31 else np.int64)
    counts, ok = _kernels.few_cells(skey, yw, values, n_keys, cells)
    if not ok:
        return None
    hint.cells = (skey.copy(), yw, values, cells, counts)
    return cells, counts


def _rank_windows(targets: Any, values: np.ndarray, lo_w, hi_w, closed: bool, na_matches: bool):
    """The targets' windows ``[c, d)`` of ranks in ``values`` (in their grid order), computed
    once per set of values (kept in ``targets.windows``)."""
    key = (values.tobytes(), closed, na_matches)
    found = targets.windows.get(key)
    if found is not None:
        return found
    lw, hw = lo_w[targets.first], hi_w[targets.first]
    c = np.searchsorted(values, lw, side="left" if closed else "right")
    d = np.searchsorted(values, hw, side="right" if closed else "left")
    lo_nan, hi_nan = np.isnan(lw), np.isnan(hw)
    if lo_nan.any() or hi_nan.any():  # a NaN bound excludes nothing (R's mode) or everything
        if na_matches:
            c[lo_nan], d[hi_nan] = 0, len(values)
        else:
            c[lo_nan | hi_nan] = d[lo_nan | hi_nan] = 0
    found = targets.windows[key] = (c.astype(np.int64), d.astype(np.int64))
    return found


def count(targets: Any, few: FewSide, lo_w, hi_w, closed: bool, na_matches: bool) -> np.ndarray:
    """c of every target (in the targets' original order) from a dataset's :class:`FewSide`.

    ``targets``: the grid targets of :mod:`idrisk.risk.matching` (their (key, bound) orders,
    NaN bounds on u, and a ``windows`` dict); ``lo_w``/``hi_w``: their bounds on w.
    """
    c, d = _rank_windows(targets, few.values, lo_w, hi_w, closed, na_matches)
    lo_nan = targets.lo_nan if targets.lo_nan is not None else _NO_NAN
    hi_nan = targets.hi_nan if targets.hi_nan is not None else _NO_NAN
    out = np.empty(len(targets.first), dtype=np.int64)
    _kernels.count_few(
        few.starts, few.sorted_u, few.rank, few.table, few.block, targets.keys_first,
        targets.lo_first, targets.keys_second, targets.hi_second, targets.to_first,
        targets.same_order, lo_nan, hi_nan, c, d, targets.first, closed, na_matches, out,
    )  # fmt: skip
    return out


def buckets(rank: np.ndarray, n_ranks: int, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """The many-values grid's buckets: ranks 0..n_ranks-1 cut into at most ``limit``
    contiguous buckets of about equal row counts.

    Returns ``bucket_of_rank`` and ``bucket_start`` (first rank of each bucket, then n_ranks).
    With at most ``limit`` distinct ranks every rank is its own bucket.
    """
    if n_ranks <= limit:
        return np.arange(n_ranks, dtype=np.int64), np.arange(n_ranks + 1, dtype=np.int64)
    cum = np.cumsum(np.bincount(rank, minlength=n_ranks))
    quota = np.arange(1, limit) * (cum[-1] / limit)
    cuts = np.searchsorted(cum, quota, side="left") + 1
    starts = np.unique(np.concatenate([[0], cuts[cuts < n_ranks], [n_ranks]])).astype(np.int64)
    bucket_of_rank = np.searchsorted(starts, np.arange(n_ranks), side="right") - 1
    return bucket_of_rank.astype(np.int64), starts
