"""The compiled two-variable grid when the bucketed variable has few distinct values.

With at most ``limit`` distinct values of w (ages, counts, codes), every value is its own bucket
of the grid of :mod:`idrisk.risk.matching` and no window ever cuts a bucket. Per synthetic
dataset the count is then one sort and two compiled passes, with no numpy temporaries:

* :func:`side`: the rows sorted by u (``value_order``: numpy's integer sort), then one pass
  (:func:`idrisk.risk._fewkernels.few_side`) groups them by key and looks up the rank of each w
  among the distinct values;
* :func:`count`: one pass merges the targets' u bounds into the sorted values. When the
  targets' upper bounds are sorted in their (key, lower bound) order (a percentage radius on
  positive values, any fixed radius) and their rank windows are narrow, both ends of the
  u-windows only move forward and the pass keeps the rows between them per rank
  (:func:`idrisk.risk._fewkernels.count_few_sweep`: no table at all); otherwise each target's
  count is read from a prefix table of the ranks, built once per dataset
  (:func:`idrisk.risk._fewkernels.count_few`).

The distinct values of w need not be this dataset's own: any sorted set of values holding every
w of a live row gives exact ranks (w lies in the open window ``(lo, hi)`` exactly when its index
in the set is in ``[#values <= lo, #values < hi)``). The values found for one dataset are tried
on the next (a known variable, or a synthesized one drawn from the same values, has the same
set); a dataset with a value outside them gets its own. The targets' rank windows are computed
once per set of values.

A radius sweep of small inputs counts every dataset in one pass (:class:`FewStack`): the
datasets' sides merged per key once, the pass over the targets paid once for all of them at
each radius (:func:`idrisk.risk._fewkernels.few_stack`).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from . import _fewbykey, _fewkernels, _kernels
from ._order import value_order

__all__ = [
    "FewSide", "FewStack", "FewSweep", "GridTargets", "buckets", "count", "fit", "grid_axis",
    "kept_orders", "side", "target_order",
]

_NO_NAN = np.zeros(0, dtype=bool)

#: the table-free sweep (:func:`idrisk.risk._fewkernels.count_few_sweep`) is taken when the
#: targets' rank windows are at most this wide on average
SWEEP_WIDTH = 48


def target_order(tkey: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Order of the targets by (key, bound), keys < 0 first and NaN bounds last within a key:
    the needles of every search become sorted."""
    slot = np.maximum(np.asarray(tkey, dtype=np.int64) + 1, 0)  # keys < 0 share slot 0
    return value_order(bound, slot)


def kept_orders(last: tuple | None, tkey: np.ndarray, lo_u: np.ndarray,
                hi_u: np.ndarray) -> tuple | None:  # fmt: skip
    """The orders (first, second) of the last radius' :class:`GridTargets` when the first
    still orders these lower bounds by (key, bound) (checked in one pass), else None. The
    second is kept only when it was an order of its own that still orders the upper bounds:
    None lets :class:`GridTargets` check the first on them, or sort them."""
    if last is None:
        return None
    first, second = last
    if not _kernels.orders_by_key(first, tkey, lo_u):
        return None
    if second is first or not _kernels.orders_by_key(second, tkey, hi_u):
        second = None  # (one order for both bounds: GridTargets checks it on the new ones)
    return first, second


class GridTargets:
    """The targets of the compiled grids of :mod:`idrisk.risk.matching`, laid out once for every
    dataset.

    Targets are visited in (key, lower bound on u) order (``first``); the upper-bound merge runs
    in (key, upper bound) order and ``to_first`` maps its results into the first order. When
    the upper bounds are sorted in the first order too (``same_order``), that order is both.
    """

    def __init__(self, tkey, lo_u, hi_u, orders=None):
        first, second = orders if orders is not None else (target_order(tkey, lo_u), None)
        n = len(tkey)
        self.keys_first = np.empty(n, dtype=np.int64)
        self.lo_first = np.empty(n, dtype=np.float64)
        hs = np.empty(n, dtype=np.float64)
        lo_nan, hi_nan = np.empty(n, dtype=bool), np.empty(n, dtype=bool)
        hi_sorted, has_nan = _kernels.lay_out_targets(
            first, np.asarray(tkey, dtype=np.int64), lo_u, hi_u, self.keys_first,
            self.lo_first, hs, lo_nan, hi_nan,
        )  # fmt: skip
        if hi_sorted:
            second = first
            self.keys_second, self.hi_second = self.keys_first, hs
            self.to_first = np.arange(n)
        else:
            if second is None:
                second = target_order(tkey, hi_u)
            self.keys_second = np.ascontiguousarray(tkey[second], dtype=np.int64)
            self.hi_second = np.ascontiguousarray(hi_u[second])
            position = np.empty(n, dtype=np.int64)
            position[second] = np.arange(n)
            self.to_first = position[first]
        self.first = first
        self.second = second
        self.same_order = second is first
        self.lo_nan = lo_nan if has_nan else None  # NaN bounds (matching._SortedDim.windows)
        self.hi_nan = hi_nan if has_nan else None
        self.dead = self.keys_first < 0
        self.windows: dict = {}  # the few-values grid's rank windows (see count)


class FewSide:
    """A dataset's synthetic side (radius-independent: kept across radii by a store)."""

    def __init__(self, values, starts, sorted_u, rank):
        self.values = values  # sorted values holding every w of a live row
        self.starts = starts  # key k's rows at starts[k]:starts[k + 1]
        self.sorted_u = sorted_u  # the live rows' u, in (key, u) order
        self.rank = rank  # their w's index in values (int32)
        self._table: tuple[int, np.ndarray] | None = None

    def table(self) -> tuple[int, np.ndarray]:
        """(block, the prefix counts of the ranks every block positions): built when a count
        first needs it (see :func:`count`)."""
        found = self._table  # replaced as a whole (threads)
        if found is None:
            block = _block(len(self.values), len(self.rank))
            table = _kernels.grid_table(self.rank, len(self.values), block)
            if len(self.rank) < 1 << 16:  # half the memory (and the cache misses) of int32
                table = table.astype(np.uint16)
            found = self._table = (block, table)
        return found


def grid_axis(skey: np.ndarray, columns: Any, limit: int) -> tuple[int, np.ndarray | None]:
    """The variable u to merge on (the one with more distinct values among the live rows) and
    the distinct values of the other one, w, when there are at most ``limit`` (else None).
    ``columns``: the dataset's two variables (1-D arrays)."""
    found = [
        _fewkernels.distinct_values(np.ascontiguousarray(columns[v]), skey, limit)
        for v in (0, 1)
    ]
    if found[0][1] and found[1][1]:
        u = 0 if len(found[0][0]) >= len(found[1][0]) else 1
        return u, found[1 - u][0]
    if found[0][1] or found[1][1]:
        w = 0 if found[0][1] else 1
        return 1 - w, found[w][0]
    live = skey >= 0
    n_distinct = [len(np.unique(columns[v][live])) for v in (0, 1)]
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
    found = fit(skey, yw, n_keys, hint, limit)
    if found is None:
        return None
    values, cells, counts = found
    starts, sorted_u, rank = _fewkernels.few_side(value_order(yu), yu, cells, counts, len(values))
    return FewSide(values, starts, sorted_u, rank)


def fit(skey: np.ndarray, yw: np.ndarray, n_keys: int, hint: Any,
        limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:  # fmt: skip
    """The values, cells and rows per cell of a dataset's w (``yw``, contiguous) for
    :func:`side` (``hint``: see there; the last dataset's values tried first), or None when
    w has more than ``limit`` distinct values."""
    for _ in range(2):
        values = hint.few
        if values is None:
            values, ok = _fewkernels.distinct_values(yw, skey, limit)
            hint.few = values if ok else False
            if not ok:
                return None
        if values is False:
            return None
        found = _cells(skey, yw, values, n_keys, hint)
        if found is not None:
            return values, *found
        hint.few = None  # a w value outside the last dataset's: this dataset's own values
    return None


def _cells(skey, yw, values, n_keys, hint):
    """(cells, counts) of :func:`idrisk.risk._fewkernels.few_cells`, or None (a w value not in
    ``values``); the last dataset's when its keys, w and values are this one's."""
    last = hint.cells  # (skey, yw, values, cells, counts), replaced as a whole (threads)
    if last is not None and last[2] is values and _fewkernels.same_rows(last[0], skey, last[1], yw):
        return last[3], last[4]
    cells = np.empty(len(skey), dtype=np.int32 if n_keys * len(values) < 2**31 else np.int64)
    counts, ok = _fewkernels.few_cells(skey, yw, values, n_keys, cells)
    if not ok:
        return None
    hint.cells = (skey.copy(), yw.copy(), values, cells, counts)  # the caller may reuse y
    return cells, counts


def _rank_windows(targets: Any, values: np.ndarray, lo_w, hi_w, closed: bool, na_matches: bool):
    """The targets' windows ``[c, d)`` of ranks in ``values`` (in their grid order), computed
    once per set of values (kept in ``targets.windows``)."""
    key = (values.tobytes(), closed, na_matches)
    found = targets.windows.get(key)
    if found is not None:
        return found
    n = len(targets.first)
    c, d = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    # (lo_w, hi_w: columns of the bounds, read where the targets' order points: no copies)
    widths = _fewkernels.rank_windows(values, lo_w, hi_w, targets.first, closed, na_matches,
                                      c, d)  # fmt: skip
    # the sweep's cost per target is its window's width (the table's is fixed)
    sweep = targets.same_order and targets.lo_nan is None and widths <= SWEEP_WIDTH * len(c)
    found = targets.windows[key] = (c, d, sweep)
    return found


def count(targets: Any, few: FewSide, lo_w, hi_w, closed: bool, na_matches: bool) -> np.ndarray:
    """c of every target (in the targets' original order) from a dataset's :class:`FewSide`.

    ``targets``: the grid targets of :mod:`idrisk.risk.matching` (their (key, bound) orders,
    NaN bounds on u, and a ``windows`` dict); ``lo_w``/``hi_w``: their bounds on w. The sweep
    when its conditions hold (a side kept for other radii too: its prefix table costs as
    much per count, 0.112 against 0.116 ms on CE, and :class:`FewSweep` sweeps kept sides).
    """
    c, d, sweep = _rank_windows(targets, few.values, lo_w, hi_w, closed, na_matches)
    out = np.empty(len(targets.first), dtype=np.int64)
    if sweep:
        _fewkernels.count_few_sweep(
            few.starts, few.sorted_u, few.rank, len(few.values), targets.keys_first,
            targets.lo_first, targets.hi_second, c, d, targets.first, closed, out,
        )  # fmt: skip
        return out
    lo_nan = targets.lo_nan if targets.lo_nan is not None else _NO_NAN
    hi_nan = targets.hi_nan if targets.hi_nan is not None else _NO_NAN
    block, table = few.table()
    _fewkernels.count_few(
        few.starts, few.sorted_u, few.rank, table, block, targets.keys_first,
        targets.lo_first, targets.keys_second, targets.hi_second, targets.to_first,
        targets.same_order, lo_nan, hi_nan, c, d, targets.first, closed, na_matches, out,
    )  # fmt: skip
    return out


class KeySides:
    """The layout by key of the datasets counted by key (:meth:`FewSweep.count_by_key`),
    known once the first dataset's w is fitted (:func:`fit`): the grid's axis ``u``, the
    values of w, the first dataset's keys, w, cells and rows per key (``last``), and the
    number of keys. Calling it lays one dataset out (:func:`idrisk.risk._fewbykey.key_side`)."""

    def __init__(self, u: int, values: np.ndarray, last: tuple, n_keys: int) -> None:
        self.u, self.values, self.last, self.n_keys = u, values, last, n_keys

    @classmethod
    def of(cls, hint: Any, u: int, n_keys: int, tkey: np.ndarray) -> KeySides:
        """The layout of the values and cells that ``hint`` (the rank cache of w, after
        :func:`fit`) holds, kept in it: the sweep laid out from it finds the one its helper
        laid datasets out with (``n_keys``: the targets' keys ``tkey`` counted too)."""
        values, last = hint.few, hint.cells
        n_keys = int(max(n_keys, tkey.max(initial=-1) + 1))
        kept = hint.key_sides
        if (kept is not None and kept.values is values and kept.last[0] is last[0]
                and kept.u == u and kept.n_keys == n_keys):  # fmt: skip
            return kept
        hint.key_sides = cls(u, values, (last[0], last[1], last[3], last[4]), n_keys)
        return hint.key_sides

    @cached_property
    def row_starts(self) -> np.ndarray:
        """Where key k's rows of a dataset laid out by key start (the first dataset's)."""
        keys = self.last[0]
        live = keys[(keys >= 0) & (keys < self.n_keys)]
        starts = np.zeros(self.n_keys + 1, dtype=np.int64)
        np.cumsum(np.bincount(live, minlength=self.n_keys), out=starts[1:])
        return starts

    def __call__(self, skey: np.ndarray, columns: Any) -> tuple | None:
        """A dataset's live rows grouped by key (:func:`idrisk.risk._fewbykey.key_side`: u
        values, w ranks; ``columns``: its two float64 columns; its keys ``skey`` the first
        dataset's) when it fits the sweep, else None (it is then counted the general way)."""
        row_starts = self.row_starts
        n_values = len(self.values)
        values = np.empty(row_starts[-1], dtype=np.float64)
        ranks = np.empty(row_starts[-1], dtype=np.int16 if n_values < 2**15 else np.int32)
        yu, yw = (np.ascontiguousarray(columns[v], dtype=np.float64) for v in (self.u, 1 - self.u))
        ok = _fewbykey.key_side(
            np.asarray(skey, dtype=np.int64), yu, yw, self.values, self.n_keys, self.last,
            row_starts, values, ranks,
        )  # fmt: skip
        return (values, ranks) if ok else None


class FewSweep:
    """The table-free sweep of :func:`count` for the datasets after the first, each in one
    compiled call (:func:`idrisk.risk._fewkernels.few_dataset`: cells, side, counts and own rows)
    after the rows' value order: the same counts with a few Python steps per dataset, so that the
    datasets of a small problem are counted on threads at no cost.

    Built by :func:`idrisk.risk.matching.few_sweep` from what the first dataset's count left in
    its cache (the grid's axis ``u``, the values of w, the targets and their rank windows).
    """

    def __init__(self, targets: GridTargets, sides: KeySides, windows: tuple, arrays: tuple,
                 rule: tuple[bool, bool]) -> None:  # fmt: skip
        self._targets = targets
        self.sides = sides  # the grid's axis, the values of w and the first dataset's cells
        self._values = sides.values
        self._last = sides.last  # (keys, w, cells, rows per key) of the first dataset
        self._c, self._d = windows
        self._u = sides.u
        self._n_keys = sides.n_keys
        self._arrays = arrays  # the targets' keys, bounds, values and half-widths (float64)
        self._closed, self._na_matches = rule

    @classmethod
    def after_first(cls, targets: GridTargets, hint: Any, u: int, n_keys: int,
                    tkey: np.ndarray, bounds: tuple, rule: tuple[bool, bool]) -> FewSweep | None:
        """The sweep of the first dataset's grid (``targets``, axis ``u``, and ``hint``, the
        rank cache of w with the values and cells it kept: see :func:`side`), or None when
        that count took another way. ``bounds``: the targets' lo, hi, x and d; ``rule``:
        (closed, na_matches)."""
        values, last = getattr(hint, "few", None), getattr(hint, "cells", None)
        if not isinstance(values, np.ndarray) or last is None or last[2] is not values:
            return None
        lo, hi, x, d = (np.ascontiguousarray(z, dtype=np.float64) for z in bounds)
        c, d_rank, sweep = _rank_windows(targets, values, lo[:, 1 - u], hi[:, 1 - u], *rule)
        if not sweep:
            return None
        tkey = np.asarray(tkey, dtype=np.int64)
        sides = KeySides.of(hint, u, n_keys, tkey)
        return cls(targets, sides, (c, d_rank), (tkey, lo, hi, x, d), rule)

    def __call__(self, skey: np.ndarray, y: np.ndarray, c_out: np.ndarray,
                 own_out: np.ndarray, store: dict | None = None) -> bool:  # fmt: skip
        """Count one dataset (its keys and values) into ``c_out`` and ``own_out``; False
        (nothing written) when it does not fit the sweep (see the kernel). ``store``: the
        dataset's dict kept across radii (see :func:`idrisk.risk.matching.count_matches`),
        whose laid-out side is used, or filled."""
        y = np.ascontiguousarray(y, dtype=np.float64)
        skey = np.asarray(skey, dtype=np.int64)
        t = self._targets
        tkey, lo, hi, x, d = self._arrays
        key = ("few", self._u)
        kept = store.get(key) if store is not None else None
        if kept is not None and np.array_equal(kept.values, self._values):
            _fewkernels.few_kept(
                kept.starts, kept.sorted_u, kept.rank, len(self._values), skey, y, tkey, lo,
                hi, x, d, t.keys_first, t.lo_first, t.hi_second, self._c, self._d, t.first,
                self._closed, self._na_matches, c_out, own_out,
            )  # fmt: skip
            return True
        order = value_order(y[:, self._u])
        ok, side = _fewkernels.few_dataset(
            order, skey, y, self._u, self._values, self._n_keys, self._last, tkey, lo, hi, x,
            d, t.keys_first, t.lo_first, t.hi_second, self._c, self._d, t.first, self._closed,
            self._na_matches, c_out, own_out,
        )  # fmt: skip
        if ok and store is not None:
            store[key] = FewSide(self._values, *side)
        return bool(ok)

    def lay_out(self, skey: np.ndarray, y: np.ndarray, store: dict) -> bool:
        """Lay one dataset's side out into ``store`` (as :meth:`__call__` keeps it) without
        counting; False (nothing kept) when it does not fit the sweep (see the kernel)."""
        key = ("few", self._u)
        kept = store.get(key)
        if kept is not None and np.array_equal(kept.values, self._values):
            return True
        y = np.ascontiguousarray(y, dtype=np.float64)
        ok, side = _fewkernels.few_layout(
            value_order(y[:, self._u]), np.asarray(skey, dtype=np.int64),
            y, self._u, self._values, self._n_keys, self._last,
        )  # fmt: skip
        if ok:
            store[key] = FewSide(self._values, *side)
        return bool(ok)

    def stack(self, stores: list, skeys: list[np.ndarray], ys: list[np.ndarray],
              last: FewStack | None = None, run: Any = None,
              parts: int = 1) -> FewStack | None:  # fmt: skip
        """The :class:`FewStack` of the datasets' kept sides (``stores``: their dicts of
        :meth:`__call__`; ``skeys``, ``ys``: their keys and values; ``run``, ``parts``: how
        it is merged), or None unless every store holds a side of this sweep's values.
        ``last``, if built from the same sides, is returned as it is."""
        key = ("few", self._u)
        sides = [store.get(key) if store is not None else None for store in stores]
        if last is not None and last.u == self._u and len(last.sides) == len(sides) and all(
            a is b for a, b in zip(last.sides, sides)
        ) and np.array_equal(last.values, self._values):  # fmt: skip
            return last
        kept = [side for side in sides if side is not None]
        if not kept or len(kept) < len(sides) or any(
            not np.array_equal(side.values, self._values)
            or len(side.starts) != len(kept[0].starts)
            for side in kept
        ):  # fmt: skip
            return None
        return FewStack(self._u, kept, skeys, ys, run, parts)

    def count_stack(self, stack: FewStack, c_out: np.ndarray, own_out: np.ndarray,
                    parts: int) -> list:  # fmt: skip
        """Tasks (callables) that count every dataset of ``stack`` into ``c_out`` and
        ``own_out`` (n x m): ``parts`` runs of targets (:meth:`stack_counts`), each with its
        share of the datasets' own rows (:meth:`stack_own_rows`)."""
        n, m = len(self._targets.first), c_out.shape[1]
        cut = [n * p // parts for p in range(parts + 1)]
        own = [m * p // parts for p in range(parts + 1)]

        def part(p: int) -> None:
            self.stack_counts(stack, c_out, cut[p], cut[p + 1])
            self.stack_own_rows(stack, own_out, own[p], own[p + 1])

        return [lambda p=p: part(p) for p in range(parts)]

    def stack_counts(self, stack: FewStack, c_out: np.ndarray, i0: int = 0,
                     i1: int | None = None) -> None:  # fmt: skip
        """Every dataset's counts of the targets ``i0``..``i1 - 1`` (in their order of the
        sweep; default all) into ``c_out`` (n x m): :func:`idrisk.risk._fewkernels.few_stack`."""
        t = self._targets
        _fewkernels.few_stack(
            stack.starts, stack.sorted_u, stack.slot, stack.width, t.keys_first, t.lo_first,
            t.hi_second, self._c, self._d, t.first, self._closed, i0,
            len(t.first) if i1 is None else i1, -1, c_out,
        )  # fmt: skip

    def stack_own_rows(self, stack: FewStack, own_out: np.ndarray, j0: int = 0,
                       j1: int | None = None) -> None:  # fmt: skip
        """The own rows of datasets ``j0``..``j1 - 1`` (default all) into ``own_out``."""
        for j in range(j0, own_out.shape[1] if j1 is None else j1):
            y = stack.ys[j]
            self.own_rows(stack.skeys[j], (y[:, 0], y[:, 1]), own_out[:, j])

    def own_rows(self, skey: np.ndarray, columns: Any, own_out: np.ndarray) -> None:
        """A dataset's own rows (keys ``skey``, its two float64 columns) into ``own_out``."""
        tkey, lo, hi, _, _ = self._arrays
        _kernels.own_rows_pair(tkey, skey, lo, hi, columns[0], columns[1], self._closed,
                               self._na_matches, own_out)  # fmt: skip

    def count_by_key(self, sides: dict[int, tuple], c_out: np.ndarray, run: Any,
                     done: Any) -> None:  # fmt: skip
        """The counts of the datasets ``sides`` (j -> its side by key, :class:`KeySides`)
        into ``c_out[:, j]``, by ranges of keys (:func:`idrisk.risk._fewbykey.count_by_key`:
        ``run``, ``done``)."""
        _fewbykey.count_by_key(
            self._targets, len(self._values), self._n_keys, (self._c, self._d), self._closed,
            self.sides.row_starts, sides, c_out, run, done,
        )  # fmt: skip


class FewStack:
    """The kept :class:`FewSide` of every dataset merged per key (radius-independent), for
    :meth:`FewSweep.count_stack`: one pass over the targets counts every dataset (a radius
    sweep of small inputs).

    ``sides``: one per dataset, of the same values and keys; ``skeys``, ``ys``: the datasets'
    synthetic keys and values (for their own rows; referenced, not copied: new memory costs
    its first touch); ``run``: runs a list of tasks (callables), on threads or one after the
    other (the default); the merge is ``parts`` tasks of keys holding about as many rows
    each."""

    def __init__(self, u: int, sides: list[FewSide], skeys: list[np.ndarray],
                 ys: list[np.ndarray], run: Any = None, parts: int = 1) -> None:  # fmt: skip
        self.u = u  # the grid's axis
        self.values = sides[0].values
        self.sides = sides  # (the stack holds for these sides only)
        self.skeys = [np.asarray(k, dtype=np.int64) for k in skeys]
        self.ys = [np.ascontiguousarray(y, dtype=np.float64) for y in ys]
        self.width = len(self.values) + 16  # a dataset's slots: its ranks, then zeros
        lengths = np.diff(np.stack([side.starts for side in sides]), axis=1).T  # keys x m
        runs_at = np.zeros((lengths.shape[0], len(sides) + 1), dtype=np.int64)
        np.cumsum(lengths, axis=1, out=runs_at[:, 1:])
        self.starts = np.zeros(lengths.shape[0] + 1, dtype=np.int64)
        np.cumsum(runs_at[:, -1], out=self.starts[1:])
        runs_at += self.starts[:-1, None]
        self.sorted_u = np.empty(self.starts[-1], dtype=np.float64)
        self.slot = np.empty(self.starts[-1], dtype=np.int32)
        total = int(self.starts[-1])
        cuts = np.searchsorted(self.starts, [total * p / parts for p in range(1, parts)])
        bounds = [0, *sorted(set(int(k) for k in cuts) - {0}), len(self.starts) - 1]
        at = [np.ascontiguousarray(runs_at[:, j]) for j in range(len(sides))]

        def merge(t: int) -> None:  # a task's keys: every dataset's rows placed, then merged
            k0, k1 = bounds[t], bounds[t + 1]
            for j, side in enumerate(sides):
                _fewkernels.place_side(side.starts, side.sorted_u, side.rank, j, self.width,
                                       at[j], k0, k1, self.sorted_u, self.slot)  # fmt: skip
            _fewkernels.merge_runs(runs_at, k0, k1, self.sorted_u, self.slot)

        tasks = [lambda t=t: merge(t) for t in range(len(bounds) - 1) if bounds[t] < bounds[t + 1]]
        if run is None:
            for task in tasks:
                task()
        else:
            run(tasks)


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
