"""Counting engine: c_i (matches of target i) and T_i (own row matches) for one synthetic dataset.

The R package compares every target with every synthetic record, O(n^2) per dataset. Here:

* categorical variables (and every variable when ``r`` is None) are folded into one integer
  *group key* (:class:`idrisk.risk._keys.KeyEncoder`); a target can only match synthetic
  records of its own key;
* one continuous variable: the synthetic values are sorted within groups and c_i is a difference
  of two binary searches, O(n log n);
* several continuous variables: the variable whose intervals hold the fewest candidates is used
  for the binary search and the candidates are checked on the other variables, vectorised and in
  bounded chunks.

Comparisons are the same floating-point comparisons the R package makes, so counts are exact.

The loops are the compiled kernels of :mod:`idrisk.risk._kernels` (numba): a prefix-count
grid for two continuous variables (fused into two passes per dataset when one of them has few
distinct values: :mod:`idrisk.risk._fewgrid`) and candidate checks for any number of variables
and every rule. This module finds the windows (exact binary searches) and chooses the strategy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

from .._radius import half_width
from . import _fewgrid, _kernels
from ._fewgrid import GridTargets as _GridTargets
from ._fewgrid import target_order
from ._order import value_order

__all__ = [
    "CountCache",
    "MatchRule",
    "half_widths",
    "interval_bounds",
    "count_matches",
    "few_plan",
    "few_sweep",
]

@dataclass(frozen=True)
class MatchRule:
    """How a synthetic value is compared with a target's interval.

    Parameters
    ----------
    closed
        ``lo <= y <= hi`` (the article) instead of R's ``lo < y < hi``.
    na_matches
        R's behaviour: a comparison with a missing continuous value is never false, so NA matches
        anything. ``False``: NA never matches.
    ellipsoid
        Match jointly on the continuous variables: ``sum(((y - x) / d) ** 2) < 1`` (``<= 1`` when
        closed) instead of each variable on its own interval.
    """

    closed: bool = False
    na_matches: bool = True
    ellipsoid: bool = False


def r_sqrt(values: np.ndarray) -> np.ndarray:
    """R's ``pow(x, 0.5)``: the C library's ``pow``, which can lie one ulp from ``sqrt``.

    (numpy's ``power`` takes ``sqrt`` for an exponent of 0.5, so each value goes through
    :func:`math.pow`, which calls the platform's C ``pow`` as R's compiled code does.)

    Examples
    --------
    >>> v = 2.9 ** 2 + 1.2 ** 2
    >>> float(r_sqrt(np.array([v]))[0]), float(np.sqrt(v))
    (3.1384709652950433, 3.138470965295043)
    """
    flat = np.asarray(values, dtype=np.float64).ravel()
    out = np.fromiter((math.pow(v, 0.5) for v in flat.tolist()), np.float64, count=flat.size)
    return out.reshape(np.shape(values))


def half_widths(
    x: np.ndarray,
    radii: np.ndarray,
    *,
    percentage: bool,
    abs_radius: bool = False,
    euclidean_dist: bool = False,
    known: np.ndarray | None = None,
) -> np.ndarray:
    """Half-width d of every target's interval on every continuous variable.

    ``d_v = r_v * x_v`` (``r_v * |x_v|`` with ``abs_radius``) when ``percentage``, else ``r_v``.
    With R's ``euclideanDist`` every known variable gets ``d_K = pow(0 + sum_known d_v^2, 0.5)``
    and every synthesized one ``d_S = pow(d_K + sum_syn d_v^2, 0.5)`` -- d_K itself, not its
    square, as R does. The squares are added in the order of the columns of ``x`` (R adds them
    in the order of its ``known`` and ``syn`` arguments; a column listed twice counts twice),
    and the root is R's ``pow`` (:func:`r_sqrt`), not ``sqrt``.
    """
    n, p = x.shape
    # the one description of a radius (idrisk._radius), shared with the risk weights
    d = half_width(x, radii[None, :], percentage=percentage, abs_radius=abs_radius)
    if not euclidean_dist or p == 0:
        return np.asarray(d, dtype=np.float64)  # (a new array already)
    known = np.zeros(p, dtype=bool) if known is None else np.asarray(known, dtype=bool)
    d_known = np.zeros(n)
    for v in np.flatnonzero(known):
        d_known = d_known + d[:, v] * d[:, v]
    d_known = r_sqrt(d_known)
    d_syn = d_known.copy()
    for v in np.flatnonzero(~known):
        d_syn = d_syn + d[:, v] * d[:, v]
    d_syn = r_sqrt(d_syn)
    return np.where(known[None, :], d_known[:, None], d_syn[:, None])


def interval_bounds(x: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(x - d, x + d)`` computed in exactly that form (what R compares against)."""
    return x - d, x + d


def _expand(starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ranges [start, start + length): (owner of each position, position)."""
    total = int(lengths.sum())
    owner = np.repeat(np.arange(len(lengths)), lengths)
    offsets = np.cumsum(lengths) - lengths
    pos = np.arange(total, dtype=np.int64) - np.repeat(offsets - starts, lengths)
    return owner, pos


_SORT_NEEDLES = 1 << 15  # from this size on, binary searches are made in sorted order
_CACHED_ORDERS = 1 << 10  # from this many targets on, their sort orders are kept for all datasets


def _search(
    a: np.ndarray, v: np.ndarray, side: Literal["left", "right"], order: np.ndarray | None = None
):
    """``np.searchsorted(a, v, side)``, searching in the order ``order`` of the needles.

    numpy's binary search is an order of magnitude faster on sorted needles (each search starts
    where the last one ended), so large searches go through the needles' sort order.
    """
    if order is None:
        if len(v) < _SORT_NEEDLES or len(a) < _SORT_NEEDLES:
            return np.searchsorted(a, v, side=side)
        order = value_order(v)
    out = np.empty(len(v), dtype=np.int64)
    out[order] = np.searchsorted(a, v[order], side=side)
    return out


class _Window(NamedTuple):
    low: np.ndarray  # composite bounds [low, high) of each target's window
    high: np.ndarray
    dead: np.ndarray | None  # targets that can match nothing (None: no such target)
    order_low: np.ndarray | None  # an order in which low (high) is sorted, if known
    order_high: np.ndarray | None


class _SortedDim:
    """Synthetic rows of one continuous variable, sorted by (group key, value).

    Values are replaced by their rank among all synthetic values, so that (key, value) becomes one
    sortable integer ``key * width + rank``; comparisons with a bound t become comparisons of
    ranks with ``searchsorted(values, t)``, which is exact.
    """

    def __init__(self, skey: np.ndarray, y: np.ndarray):
        rows = np.flatnonzero((skey >= 0) & ~np.isnan(y))
        by_value = value_order(y[rows])
        self.values = y[rows][by_value]
        self.width = len(self.values) + 1
        # rank = index of the first equal value (searchsorted "left"), from the sort itself
        first = np.ones(len(self.values), dtype=bool)
        first[1:] = self.values[1:] != self.values[:-1]
        rank = np.empty(len(rows), dtype=np.int64)
        rank[by_value] = np.maximum.accumulate(np.where(first, np.arange(len(rows)), 0))
        composite = skey[rows] * self.width + rank
        order = np.argsort(composite)
        self.composite = composite[order]
        self.rows = rows[order]
        self._distinct: np.ndarray | None = None

    @property
    def distinct(self) -> np.ndarray:
        """Sorted distinct (key, value) composites."""
        if self._distinct is None:
            comp = self.composite
            keep = np.ones(len(comp), dtype=bool)
            keep[1:] = comp[1:] != comp[:-1]
            self._distinct = comp[keep]
        return self._distinct

    def windows(
        self,
        tkey,
        lo,
        hi,
        rule: MatchRule,
        owner: np.ndarray | None = None,
        orders: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> _Window:
        """Composite bounds of each target's window, and which targets are dead.

        With ``owner``, ``lo``/``hi`` belong to the owners and ``tkey`` to the sub-targets
        (``owner[k]`` is sub-target k's owner): the value searches are done once per owner.
        ``orders``: the targets ordered by (key, lo) and by (key, hi) (see :func:`target_order`).
        """
        o_lo, o_hi = orders if orders is not None else (None, None)
        if rule.closed:
            qlo = _search(self.values, lo, "left", o_lo)
            qhi = _search(self.values, hi, "right", o_hi)
        else:
            qlo = _search(self.values, lo, "right", o_lo)
            qhi = _search(self.values, hi, "left", o_hi)
        # a NaN bound excludes nothing on its side (R compares with it, and the comparison is
        # never true): both NaN for an NA value, one for an infinite value under a percentage
        # radius (Inf - Inf)
        lo_nan, hi_nan = np.isnan(lo), np.isnan(hi)
        whole = lo_nan | hi_nan
        has_whole = bool(whole.any())
        if has_whole:
            qlo = np.where(lo_nan, 0, qlo)
            qhi = np.maximum(np.where(hi_nan, self.width, qhi), qlo)
        else:
            qhi = np.maximum(qhi, qlo)
        if owner is not None:
            qlo, qhi = qlo[owner], qhi[owner]
            whole = whole[owner] if has_whole else whole[:0]
            o_lo = o_hi = None
        dead = tkey < 0
        if has_whole and not rule.na_matches:
            dead |= whole
        if dead.any():
            base = np.maximum(tkey, 0) * self.width
        else:
            dead, base = None, tkey * self.width
        return _Window(base + qlo, base + qhi, dead, o_lo, o_hi)

    @staticmethod
    def locate(sorted_array: np.ndarray, w: _Window) -> tuple[np.ndarray, np.ndarray]:
        """Positions [a, b) of the window bounds in a sorted composite array (empty if dead)."""
        a = _search(sorted_array, w.low, "left", w.order_low)
        b = _search(sorted_array, w.high, "left", w.order_high)
        if w.dead is None:
            return a, b
        return np.where(w.dead, 0, a), np.where(w.dead, 0, b)


class _NanRows:
    """Synthetic rows whose value on one variable is NA: they match every window (R mode)."""

    def __init__(self, skey: np.ndarray, y: np.ndarray, rule: MatchRule):
        if rule.na_matches:
            rows = np.flatnonzero((skey >= 0) & np.isnan(y))
        else:
            rows = np.array([], dtype=np.int64)
        order = np.argsort(skey[rows], kind="stable")
        self.rows = rows[order]
        self.keys = skey[self.rows]

    def __len__(self) -> int:
        return len(self.rows)

    def ranges(self, tkey: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not len(self.rows):
            zero = np.zeros(len(tkey), dtype=np.int64)
            return zero, zero
        a = np.searchsorted(self.keys, tkey, side="left")
        b = np.searchsorted(self.keys, tkey, side="right")
        return np.where(tkey < 0, 0, a), np.where(tkey < 0, 0, b)


def _count_by_candidates(tkey, lo, hi, x, d, y, rule, v, dim, nan_rows, orders=None) -> np.ndarray:
    """Binary-search dimension v, then check every candidate on all variables (compiled)."""
    n = len(tkey)
    a, b = dim.locate(dim.composite, dim.windows(tkey, lo[:, v], hi[:, v], rule, orders=orders))
    na_a, na_b = nan_rows.ranges(tkey)
    pool = np.concatenate([dim.rows, nan_rows.rows]).astype(np.int64)
    out = np.zeros(n, dtype=np.int64)
    shift = len(dim.rows)
    starts = np.ascontiguousarray(np.column_stack([a, na_a + shift]), dtype=np.int64)
    stops = np.ascontiguousarray(np.column_stack([b, na_b + shift]), dtype=np.int64)
    lo, hi, x, d, y = _float64(lo, hi, x, d, y)
    _kernels.count_candidates(starts, stops, pool, lo, hi, x, d, y, rule.closed,
                              rule.na_matches, rule.ellipsoid, out)
    return out


def _float64(*arrays: np.ndarray) -> list[np.ndarray]:
    return [np.ascontiguousarray(z, dtype=np.float64) for z in arrays]


def _own_rows_match(tkey, skey, lo, hi, x, d, y, rule: MatchRule) -> np.ndarray:
    """Does target row i match synthetic row i: same key (>= 0) and on every continuous variable
    (the candidate check of :func:`idrisk.risk._kernels.count_candidates` for the pairs (i, i))?"""
    out = np.empty(len(tkey), dtype=bool)
    lo, hi, x, d, y = _float64(lo, hi, x, d, y)
    _kernels.own_rows(tkey, skey, lo, hi, x, d, y, rule.closed, rule.na_matches, rule.ellipsoid,
                      out)  # fmt: skip
    return out


_GRID_BLOCK = 16  # positions between two rows of the compiled grid's prefix table
_GRID_BUCKETS = 512  # at most this many w buckets (one per distinct value below that)


class _RankCache:
    """Ranks of the bucketed variable and the targets' rank windows (in the targets' grid
    order), reused while the variable's values are unchanged (a known variable is the same in
    every dataset)."""

    def __init__(self) -> None:
        self._entry: tuple | None = None  # (column, value), replaced as a whole (threads)
        self.few: np.ndarray | bool | None = None  # the few-values grid's values (_fewgrid)
        self.cells: tuple | None = None  # and the last dataset's cells (_fewgrid.side)
        self.key_sides: Any = None  # their layout by key (_fewgrid.KeySides.of)

    def get(self, column, lo_w, hi_w, rule: MatchRule, first, w_orders=None):
        entry = self._entry
        if entry is not None and np.array_equal(entry[0], column, equal_nan=True):
            return entry[1]
        values = np.unique(column[~np.isnan(column)])
        rank_of_row = np.searchsorted(values, column)
        o_lo, o_hi = w_orders if w_orders is not None else (None, None)
        if rule.closed:
            c = _search(values, lo_w, "left", o_lo)
            d = _search(values, hi_w, "right", o_hi)
        else:
            c = _search(values, lo_w, "right", o_lo)
            d = _search(values, hi_w, "left", o_hi)
        lo_nan, hi_nan = np.isnan(lo_w), np.isnan(hi_w)
        if lo_nan.any() or hi_nan.any():
            # a NaN bound excludes nothing on its side in R's mode, everything otherwise
            if rule.na_matches:
                c = np.where(lo_nan, 0, c)
                d = np.where(hi_nan, len(values), d)
            else:
                whole = lo_nan | hi_nan
                c, d = np.where(whole, 0, c), np.where(whole, 0, d)
        value = (
            len(values),
            rank_of_row.astype(np.int64),
            np.ascontiguousarray(c[first], dtype=np.int64),
            np.ascontiguousarray(d[first], dtype=np.int64),
        )
        self._entry = (column.copy(), value)
        return value


def _count_grid(
    tkey, skey, lo, hi, y, rule, u, n_keys, orders=None, cache=None, ranks=None,
    targets=None, store=None,
):  # fmt: skip
    """Two continuous variables, compiled: windows on u by merging, w by a prefix-count table.

    Synthetic rows of a live key must have no NA on either variable (targets' NA bounds are
    handled). ``orders``: the targets by (key, lo_u) and (key, hi_u); ``cache``: the
    :class:`CountCache` of the argsorts of the targets' w bounds (used by the many-values grid
    only); ``ranks``: a :class:`_RankCache` for w; ``targets``: the
    :class:`_GridTargets` (all reusable across datasets of the same targets).
    """
    n = len(tkey)
    w = 1 - u
    n_keys = int(max(n_keys, skey.max(initial=-1) + 1, tkey.max(initial=-1) + 1))
    if targets is None:
        targets = _GridTargets(tkey, lo[:, u], hi[:, u], orders)
    ranks = ranks if ranks is not None else _RankCache()
    few = store.get(("few", u)) if store is not None else None
    if few is None and ranks.few is not False:  # w has few values: one bucket per value
        few = _fewgrid.side(skey, y, u, n_keys, ranks, _GRID_BUCKETS)
        if few is not None and store is not None:
            store[("few", u)] = few
    if few is not None:
        return _fewgrid.count(targets, few, lo[:, w], hi[:, w], rule.closed, rule.na_matches)
    side = store.get(("grid", u)) if store is not None else None
    if side is None:
        yu = np.ascontiguousarray(y[:, u])
        rows, starts = _kernels.sort_by_key(value_order(yu), skey, n_keys)
        sorted_u = yu[rows]
    else:  # the synthetic side of an earlier count of the same dataset (another radius)
        rows, starts, sorted_u = side[:3]
    # window [a, b) of positions on u, every array in the targets' (key, lo_u) order
    a = np.empty(n, dtype=np.int64)
    b = np.empty(n, dtype=np.int64)
    _kernels.merge_positions(
        sorted_u, starts, targets.keys_first, targets.lo_first, not rule.closed, a
    )
    _kernels.merge_positions(
        sorted_u, starts, targets.keys_second, targets.hi_second, rule.closed, b
    )
    b = b[targets.to_first]
    if targets.lo_nan is not None:  # NaN bound on u: no exclusion on that side (R's mode)
        k = np.clip(targets.keys_first, 0, n_keys - 1)
        lo_nan, hi_nan = targets.lo_nan, targets.hi_nan
        if rule.na_matches:
            a = np.where(lo_nan, starts[k], a)
            b = np.where(hi_nan, starts[k + 1], b)
        else:
            whole = lo_nan | hi_nan
            a, b = np.where(whole, 0, a), np.where(whole, 0, b)
    if targets.dead.any():
        a, b = np.where(targets.dead, 0, a), np.where(targets.dead, 0, b)
    np.maximum(a, b, out=b)

    n_values, rank_of_row, c, d = ranks.get(
        np.ascontiguousarray(y[:, w]), lo[:, w], hi[:, w], rule, targets.first,
        cache.value_orders(lo, hi, w) if cache is not None else None,
    )
    if side is None:
        rank = rank_of_row[rows]
        bucket_of_rank, bucket_start = _fewgrid.buckets(rank, n_values, _GRID_BUCKETS)
        k = len(bucket_start) - 1
        if n_values <= _GRID_BUCKETS:  # one bucket per value: no bucket is ever cut
            bucket = rank
            by_bucket = offsets = np.zeros(1, dtype=np.int64)
        else:
            bucket = bucket_of_rank[rank]
            by_bucket = np.argsort(bucket, kind="stable").astype(np.int64)
            offsets = np.zeros(k + 1, dtype=np.int64)
            np.cumsum(np.bincount(bucket, minlength=k), out=offsets[1:])
        table = _kernels.grid_table(bucket, max(k, 1), _GRID_BLOCK)
        if store is not None:
            store[("grid", u)] = (
                rows, starts, sorted_u, rank, bucket_of_rank, bucket_start, bucket, by_bucket,
                offsets, table,
            )  # fmt: skip
    else:
        rank, bucket_of_rank, bucket_start, bucket, by_bucket, offsets, table = side[3:]
    found = np.zeros(n, dtype=np.int64)
    _kernels.count_grid(
        a, b, c, d, rank, bucket, bucket_of_rank, bucket_start, table, _GRID_BLOCK,
        by_bucket, offsets, found,
    )  # fmt: skip
    out = np.empty(n, dtype=np.int64)
    out[targets.first] = found
    return out


def _grid_axis(skey, columns, ranks: dict) -> int:
    """The variable to binary-search in the compiled grid: the one with more distinct values
    (the other one, bucketed, then often needs no edge checks at all). Its few distinct
    values, if so, go to the other variable's :class:`_RankCache` (``ranks``). ``columns``:
    the dataset's two variables."""
    u, values = _fewgrid.grid_axis(skey, columns, _GRID_BUCKETS)
    ranks.setdefault(1 - u, _RankCache()).few = values if values is not None else False
    return u


def _expansion(
    tkey, skey, lo, hi, y, rule, v, orders=None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Fold variable v into the group key: one sub-target per distinct value in each window.

    The distinct (key, value) pairs become the new groups; NA rows form one wildcard group per
    old key, which every live target of that key also visits. Returns the owner (target) of each
    sub-target, the sub-targets' keys, the synthetic rows' new keys and the number of new keys.
    """
    dim = _SortedDim(skey, y[:, v])
    nan_rows = _NanRows(skey, y[:, v], rule)
    distinct = dim.distinct
    bounds = dim.windows(tkey, lo[:, v], hi[:, v], rule, orders=orders)
    ua, ub = dim.locate(distinct, bounds)
    new_skey = np.full(len(skey), -1, dtype=np.int64)
    new_skey[dim.rows] = np.searchsorted(distinct, dim.composite)
    owner, new_tkey = _expand(ua, ub - ua)
    n_new = len(distinct)
    if len(nan_rows):
        new_skey[nan_rows.rows] = len(distinct) + nan_rows.keys
        live = np.arange(len(tkey)) if bounds.dead is None else np.flatnonzero(~bounds.dead)
        owner = np.concatenate([owner, live])
        new_tkey = np.concatenate([new_tkey, len(distinct) + tkey[live]])
        n_new += int(skey.max(initial=0)) + 1
    if lo.shape[1] == 2:
        # order the sub-targets by (key, lower bound on the other variable): the composite
        # needles of every later search on that variable are then sorted, for any dataset
        u = 1 - v
        order = np.lexsort((lo[owner, u], new_tkey))
        owner, new_tkey = owner[order], new_tkey[order]
    return owner, new_tkey, new_skey, n_new


def _plan(tkey, skey, lo, hi, y, rule, cache: CountCache) -> tuple[str, int]:
    """Choose how to count with p >= 2 variables: ("expand" | "candidates", variable).

    (Two variables without NA among the live synthetic rows never get here: they go to the
    compiled grid.)
    """""
    n, p = lo.shape
    candidates, distinct = [], []
    for v in range(p):
        dim = _SortedDim(skey, y[:, v])
        bounds = dim.windows(tkey, lo[:, v], hi[:, v], rule, orders=cache.orders(tkey, lo, hi, v))
        a, b = dim.locate(dim.composite, bounds)
        ua, ub = dim.locate(dim.distinct, bounds)
        extra = n if rule.na_matches and np.isnan(y[:, v]).any() else 0
        candidates.append(int((b - a).sum()) + extra)
        distinct.append(int((ub - ua).sum()) + extra)
    best_c, best_e = int(np.argmin(candidates)), int(np.argmin(distinct))
    # checking a candidate costs about a comparison per variable; an expanded sub-target costs
    # a few binary searches in the recursion
    if 4 * distinct[best_e] < candidates[best_c] * (p - 1):
        return "expand", best_e
    return "candidates", best_c


class CountCache:
    """What can be reused from one synthetic dataset to the next (same targets).

    The plan is kept; an expansion is reused when the synthetic group keys and the expanded
    variable are unchanged (the usual case for known, unsynthesized variables).
    """

    def __init__(self) -> None:
        self.plan: tuple[str, int] | None = None
        self.grid_axis: int | None = None
        self._expansion: tuple | None = None
        self._orders: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._value_orders: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.ranks: dict[int, _RankCache] = {}  # by bucketed variable
        self.grid_targets: dict[int, _GridTargets] = {}  # by searched variable
        self.last_orders: dict[int, tuple] = {}  # the last radius' target orders (renew)
        self._bounds: tuple | None = None

    def renew(self) -> CountCache:
        """A cache for the same targets and datasets with other half-widths or rules (another
        radius): what depends on neither is kept (the grid's axis, the few values of the
        bucketed variable and the last dataset's cells)."""
        new = CountCache()
        new.grid_axis = self.grid_axis
        new.last_orders = {u: (t.first, t.second) for u, t in self.grid_targets.items()}
        for v, ranks in self.ranks.items():
            kept = new.ranks[v] = _RankCache()
            kept.few, kept.cells = ranks.few, ranks.cells
        return new

    def targets(self, u: int, tkey, lo, hi) -> _GridTargets:
        """The compiled grid's targets searched on variable u, laid out once (in the last
        radius' orders when they still sort these bounds)."""
        found = self.grid_targets.get(u)
        if found is None:
            # (the upper bounds' order only if it is not the lower bounds': _GridTargets)
            kept = _fewgrid.kept_orders(self.last_orders.get(u), tkey, lo[:, u], hi[:, u])
            found = self.grid_targets[u] = _GridTargets(tkey, lo[:, u], hi[:, u], kept)
        return found

    def bounds(self, x: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:func:`interval_bounds` of the targets, computed once (the same x and d arrays)."""
        entry = self._bounds  # (x, d, lo, hi): replaced as a whole (threads)
        if entry is None or entry[0] is not x or entry[1] is not d:
            entry = self._bounds = (x, d, *interval_bounds(x, d))
        return entry[2], entry[3]

    def value_orders(self, lo, hi, v) -> tuple[np.ndarray, np.ndarray] | None:
        """Argsorts of the targets' lower and upper bounds on variable v, computed once."""
        if len(lo) < min(_SORT_NEEDLES, _CACHED_ORDERS):
            return None
        if v not in self._value_orders:
            self._value_orders[v] = (value_order(lo[:, v]), value_order(hi[:, v]))
        return self._value_orders[v]

    def orders(self, tkey, lo, hi, v) -> tuple[np.ndarray, np.ndarray] | None:
        """The targets ordered by (key, lo) and (key, hi) on variable v, computed once."""
        if len(tkey) < min(_SORT_NEEDLES, _CACHED_ORDERS):
            return None
        if v not in self._orders:
            self._orders[v] = (target_order(tkey, lo[:, v]), target_order(tkey, hi[:, v]))
        return self._orders[v]

    def expansion(self, tkey, skey, lo, hi, y, rule, v):
        """The expansion on variable v and a :class:`_SubTargets` for its sub-targets."""
        entry = self._expansion  # (v, skey, y_v, value): replaced as a whole (threads)
        if entry is not None:
            old_v, old_skey, old_y, value = entry
            if (
                old_v == v
                and np.array_equal(old_skey, skey)
                and np.array_equal(old_y, y[:, v], equal_nan=True)
            ):
                return value
        value = _expansion(tkey, skey, lo, hi, y, rule, v, self.orders(tkey, lo, hi, v))
        value = (*value, _SubTargets(value[0], lo, hi, v))
        self._expansion = (v, skey.copy(), y[:, v].copy(), value)
        return value


class _SubTargets:
    """The sub-targets of an expansion: their bounds on the other variables and a cache of
    their own, reused for every dataset that shares the expansion."""

    def __init__(self, owner, lo, hi, v):
        others = [u for u in range(lo.shape[1]) if u != v]
        self.others = others
        self.lo = np.ascontiguousarray(lo[owner][:, others]) if len(others) > 1 else None
        self.hi = np.ascontiguousarray(hi[owner][:, others]) if len(others) > 1 else None
        self.cache = CountCache()


def _nan_in_live_rows(skey: np.ndarray, y: np.ndarray, store: dict | None = None) -> bool:
    """Is any value of a synthetic row with a live key NA? Kept in the dataset's ``store``, if
    any."""
    found = store.get("nan") if store is not None else None
    if found is None:
        found = bool(_kernels.nan_in_live_rows(skey, np.ascontiguousarray(y, dtype=np.float64)))
        if store is not None:
            store["nan"] = found
    return found


def _count_box(
    tkey,
    skey,
    lo,
    hi,
    y,
    rule: MatchRule,
    n_keys: int,
    cache: CountCache | None = None,
    owner: np.ndarray | None = None,
    store: dict | None = None,
) -> np.ndarray:
    """c_i for per-variable interval matching (every mode but the ellipsoid).

    With ``owner``, the targets are sub-targets and ``lo``/``hi`` are rows of their owners.
    """
    top = owner is None  # the original targets (their cached orders apply)
    if owner is not None and lo.shape[1] != 1:
        lo, hi, owner = lo[owner], hi[owner], None
    n, p = len(tkey), lo.shape[1]
    if p == 0:
        counts = np.bincount(skey[skey >= 0], minlength=max(n_keys, 1))
        return np.where(tkey >= 0, counts[np.maximum(tkey, 0)], 0).astype(np.int64)
    if p == 1:
        dim, nans = _SortedDim(skey, y[:, 0]), _NanRows(skey, y[:, 0], rule)
        orders = cache.orders(tkey, lo, hi, 0) if cache is not None and owner is None else None
        w = dim.windows(tkey, lo[:, 0], hi[:, 0], rule, owner, orders)
        a, b = dim.locate(dim.composite, w)
        na_a, na_b = nans.ranges(tkey)
        return ((b - a) + (na_b - na_a)).astype(np.int64)
    cache = cache or CountCache()
    if p == 2 and not _nan_in_live_rows(skey, y, store):
        if cache.grid_axis is None:
            cache.grid_axis = _grid_axis(skey, (y[:, 0], y[:, 1]), cache.ranks)
        u = cache.grid_axis
        if not top:
            return _count_grid(tkey, skey, lo, hi, y, rule, u, n_keys)
        targets = cache.targets(u, tkey, lo, hi)
        return _count_grid(
            tkey, skey, lo, hi, y, rule, u, n_keys,
            cache=cache,
            ranks=cache.ranks.setdefault(1 - u, _RankCache()),
            targets=targets,
            store=store,
        )  # fmt: skip
    if cache.plan is None:
        cache.plan = _plan(tkey, skey, lo, hi, y, rule, cache)
    how, v = cache.plan
    if how == "expand":
        owner, new_tkey, new_skey, n_new, subs = cache.expansion(tkey, skey, lo, hi, y, rule, v)
        others = subs.others
        if subs.lo is not None and top:  # >= 2 variables left: the sub-targets' own cache
            sub = _count_box(
                new_tkey, new_skey, subs.lo, subs.hi, np.ascontiguousarray(y[:, others]), rule,
                n_new, cache=subs.cache,
            )  # fmt: skip
        else:
            sub = _count_box(
                new_tkey, new_skey, lo[:, others], hi[:, others], y[:, others], rule, n_new,
                owner=owner,
            )  # fmt: skip
        return np.bincount(owner, weights=sub, minlength=n).astype(np.int64)
    orders = cache.orders(tkey, lo, hi, v)
    x = d = np.zeros_like(lo)  # unused without the ellipsoid
    dim, nans = _SortedDim(skey, y[:, v]), _NanRows(skey, y[:, v], rule)
    return _count_by_candidates(tkey, lo, hi, x, d, y, rule, v, dim, nans, orders)


def few_sweep(tkey, x, d, rule: MatchRule, n_keys: int, cache: CountCache, *,
              before_first: bool = False):  # fmt: skip
    """The fused count of the datasets after the first (:class:`idrisk.risk._fewgrid.FewSweep`)
    when the first dataset's count (with ``cache``) took the few-values grid's table-free
    sweep, else None. A later dataset that does not fit is counted by :func:`count_matches`.

    ``before_first``: the sweep of every dataset, the first included, when ``cache`` was
    renewed from a count that took the sweep (another radius: the grid's axis and the values
    of w are known) and it applies to these bounds; the targets are laid out for it."""
    u = cache.grid_axis
    if rule.ellipsoid or x.shape[1] != 2 or u is None:
        return None
    lo, hi = cache.bounds(x, d)
    tkey = np.asarray(tkey, dtype=np.int64)
    if before_first:
        ranks = cache.ranks.get(1 - u)
        if ranks is None or not isinstance(ranks.few, np.ndarray) or ranks.cells is None:
            return None
        cache.targets(u, tkey, lo, hi)
    elif u not in cache.grid_targets:
        return None
    return _fewgrid.FewSweep.after_first(
        cache.grid_targets[u], cache.ranks.get(1 - u), u, n_keys, tkey,
        (lo, hi, x, d), (rule.closed, rule.na_matches),
    )  # fmt: skip


def few_plan(tkey, skey, x, d, columns, rule: MatchRule, n_keys: int, cache: CountCache,
             on_sides: Any = None):  # fmt: skip
    """The few-values sweep of every dataset, the first included (as :func:`few_sweep`), laid
    out from the first dataset (keys ``skey``, its two variables' ``columns``: 1-D float64
    arrays) without counting it: its grid axis, values and cells of w, and the targets; None
    when its count would take another way (it is then counted by :func:`count_matches`, which
    reuses what ``cache`` holds). ``on_sides(sides)`` is called with the datasets' layout by
    key (:class:`idrisk.risk._fewgrid.KeySides`, the sweep's if there is one) as soon as w
    is fitted, before the targets are laid out."""
    if rule.ellipsoid or x.shape[1] != 2 or len(columns) != 2:
        return None
    tkey, skey = np.asarray(tkey, dtype=np.int64), np.asarray(skey, dtype=np.int64)
    columns = [np.ascontiguousarray(column, dtype=np.float64) for column in columns]
    if any(_kernels.nan_in_live_rows(skey, column.reshape(-1, 1)) for column in columns):
        return None
    if cache.grid_axis is None:
        cache.grid_axis = _grid_axis(skey, columns, cache.ranks)
    u = cache.grid_axis
    ranks = cache.ranks.setdefault(1 - u, _RankCache())
    n_cells = int(max(n_keys, skey.max(initial=-1) + 1, tkey.max(initial=-1) + 1))
    yw = columns[1 - u]
    if ranks.few is False or _fewgrid.fit(skey, yw, n_cells, ranks, _GRID_BUCKETS) is None:
        return None
    if on_sides is not None:
        on_sides(_fewgrid.KeySides.of(ranks, u, n_keys, tkey))
    lo, hi = cache.bounds(x, d)
    cache.targets(u, tkey, lo, hi)
    return few_sweep(tkey, x, d, rule, n_keys, cache)


def count_matches(
    tkey: np.ndarray,
    skey: np.ndarray,
    x: np.ndarray,
    d: np.ndarray,
    y: np.ndarray,
    rule: MatchRule = MatchRule(),
    n_keys: int | None = None,
    cache: CountCache | None = None,
    store: dict | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Match counts c (int64) and own-row indicator T (bool, before R's c = 0 rule).

    Parameters
    ----------
    tkey, skey
        Group keys of the targets (confidential records) and of the synthetic records; -1 never
        matches.
    x, d
        ``(n, p)`` target values and half-widths of the continuous variables.
    y
        ``(n, p)`` synthetic values of the same variables.
    cache
        Pass one :class:`CountCache` for all datasets of the same targets to reuse work.
    store
        A dict kept for *this synthetic dataset* across counts with other radii (the
        radius-independent synthetic side of the compiled grid: sort order, ranks, prefix
        table). Used by :class:`idrisk.risk.prepared.Prepared` for small inputs.
    """
    n, p = x.shape
    tkey = np.asarray(tkey, dtype=np.int64)
    skey = np.asarray(skey, dtype=np.int64)
    if n_keys is None:
        n_keys = int(max(tkey.max(initial=-1), skey.max(initial=-1))) + 1
    lo, hi = cache.bounds(x, d) if cache is not None else interval_bounds(x, d)
    own = _own_rows_match(tkey, skey, lo, hi, x, d, y, rule)
    if not rule.ellipsoid or p == 0:
        return _count_box(tkey, skey, lo, hi, y, rule, n_keys, cache, store=store), own
    # ellipsoid: box candidates on the most selective variable, then the joint test
    dims = [_SortedDim(skey, y[:, v]) for v in range(p)]
    totals = []
    for v, dim in enumerate(dims):
        a, b = dim.locate(dim.composite, dim.windows(tkey, lo[:, v], hi[:, v], rule))
        totals.append(int((b - a).sum()))
    v = int(np.argmin(totals))
    nan_rows = _NanRows(skey, y[:, v], rule)
    counts = _count_by_candidates(tkey, lo, hi, x, d, y, rule, v, dims[v], nan_rows)
    return counts, own
