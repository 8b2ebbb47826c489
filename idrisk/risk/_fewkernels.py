"""Compiled kernels of the two-variable grid when the bucketed variable w has few distinct values
(one bucket per value, so no bucket is ever cut; :mod:`idrisk.risk._fewgrid`): one pass lays a
dataset's synthetic side out, one pass counts.

* :func:`distinct_values`, :func:`few_cells`, :func:`rank_windows`: the values of w, each
  row's (key, w rank) cell and the targets' rank windows (whole numbers within
  :data:`WHOLE_SPAN` through tables, others by binary search);
* :func:`few_side`: the live rows in (key, u) order with their ranks;
* :func:`count_few` (a prefix table of the ranks) and :func:`count_few_sweep` (no table: both
  ends of the targets' u-windows only move forward): the counts;
* :func:`few_layout`, :func:`few_dataset`, :func:`few_kept`: a later dataset's side (cells
  and side), or its whole count in one call (and its own rows), for the datasets after the
  first;
* :func:`place_side`, :func:`merge_runs`, :func:`few_stack`: every dataset's count in one
  pass over their kept sides merged per key (a radius sweep).

Every kernel is compiled by :func:`idrisk._numba.jit` (cached, ``nogil=True``).
"""

from __future__ import annotations

import numpy as np

from .._numba import jit as _jit
from ._kernels import merge_positions, own_rows

__all__ = [
    "cells_of", "count_few", "count_few_sweep", "distinct_values", "few_cells", "few_dataset",
    "few_fit", "few_kept", "few_layout", "few_side", "few_stack", "merge_runs", "place_side",
    "rank_windows", "same_rows",
]


#: sorted values that are whole numbers within this span (ages, counts, codes) are looked up
#: in a table indexed by the value instead of by binary search (see :func:`_whole_span`)
WHOLE_SPAN = 4096


@_jit
def distinct_values(y, skey, limit):
    """``(values, True)``: the sorted distinct values of ``y`` over the rows with a key >= 0
    (NaN left out), or ``(empty, False)`` as soon as there are more than ``limit``. Whole
    numbers within :data:`WHOLE_SPAN` of each other (ages, codes) are marked in a table."""
    lowest = np.inf
    highest = -np.inf
    for i in range(y.shape[0]):
        v = y[i]
        if skey[i] < 0 or np.isnan(v):
            continue
        if np.floor(v) != v or abs(v) >= 2.0**52:  # (inf too): not a whole number
            lowest = np.nan
            break
        lowest = min(lowest, v)
        highest = max(highest, v)
    if lowest <= highest and highest - lowest < WHOLE_SPAN:
        origin = np.int64(lowest)
        seen = np.zeros(np.int64(highest) - origin + 1, dtype=np.bool_)
        for i in range(y.shape[0]):
            if skey[i] >= 0 and not np.isnan(y[i]):
                seen[np.int64(y[i]) - origin] = True
        count = 0
        for t in range(seen.shape[0]):
            count += seen[t]
        if count > limit:
            return np.empty(0, dtype=np.float64), False
        out = np.empty(count, dtype=np.float64)  # (a loop, not np.flatnonzero: a cached kernel
        count = 0  # calling it imports numba's arraymath, and scipy.linalg, when loaded)
        for t in range(seen.shape[0]):
            if seen[t]:
                out[count] = np.float64(origin + t)
                count += 1
        return out, True
    buf = np.empty(limit + 1, dtype=np.float64)
    count = 0
    for i in range(y.shape[0]):
        v = y[i]
        if skey[i] < 0 or np.isnan(v):
            continue
        lo = 0
        hi = count
        while lo < hi:
            mid = (lo + hi) >> 1
            if buf[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        if lo < count and buf[lo] == v:
            continue
        if count == limit:
            return buf[:0].copy(), False
        for q in range(count, lo, -1):
            buf[q] = buf[q - 1]
        buf[lo] = v
        count += 1
    return buf[:count].copy(), True


@_jit
def _whole_span(values):
    """The span ``values[-1] - values[0] + 1`` when every value is a whole number of magnitude
    below 2**52 (so that ``np.floor`` and the conversion to int64 are exact) and the span is at
    most :data:`WHOLE_SPAN`, else 0."""
    n_values = values.shape[0]
    if n_values == 0:
        return 0
    first = values[0]
    last = values[n_values - 1]
    if not (abs(first) < 2.0**52 and abs(last) < 2.0**52 and last - first < WHOLE_SPAN):
        return 0
    for j in range(n_values):
        if np.floor(values[j]) != values[j]:
            return 0
    return np.int64(last) - np.int64(first) + 1


@_jit
def few_cells(skey, yw, values, n_keys, cells):
    """``cells[r]``: row r's key * len(values) + the index of its w in ``values`` (-1 for a key
    < 0). Returns the rows per key (``counts[k + 1]``) and False when a live row's w is not in
    ``values`` (NaN included): nothing else is then valid. Whole-number values are found in a
    table indexed by the value (:func:`_whole_span`), others by binary search."""
    n_values = values.shape[0]
    counts = np.zeros(n_keys + 1, dtype=np.int64)
    span = _whole_span(values)
    index = np.full(span, -1, dtype=np.int64)
    first = values[0] if n_values > 0 else 0.0
    last = values[n_values - 1] if n_values > 0 else 0.0
    origin = np.int64(first) if span > 0 else np.int64(0)
    if span > 0:
        for j in range(n_values):
            index[np.int64(values[j]) - origin] = j
    for r in range(skey.shape[0]):
        k = skey[r]
        if k < 0:
            cells[r] = -1
            continue
        v = yw[r]
        if span > 0:
            # (NaN fails the range test; a value between two whole numbers, the floor test)
            if not (v >= first and v <= last and np.floor(v) == v):
                return counts, False
            base = index[np.int64(v) - origin]
            if base < 0:
                return counts, False
            counts[k + 1] += 1
            cells[r] = k * n_values + base
            continue
        base = 0  # the last index whose value is <= v (without branches on the data)
        length = n_values
        while length > 1:
            half = length >> 1
            if values[base + half] <= v:
                base += half
            length -= half
        if n_values == 0 or values[base] != v:
            return counts, False
        counts[k + 1] += 1
        cells[r] = k * n_values + base
    return counts, True


@_jit
def _at_most(below, origin, first, last, b):
    """#values <= b (b not NaN) from ``below[t]`` = #values <= origin + t (origin = first,
    the first value; last, the last one), without branches on b: floor(b) clamped to [first -
    1, last] (below first: none; from last on: all of them)."""
    t = np.int64(min(max(np.floor(b), first - 1.0), last)) - origin
    return below[max(t, 0)] * (t >= 0)


@_jit
def _whole_windows(values, span, lo, hi, first, closed, na_matches, c, d):
    """:func:`rank_windows` for whole-number values (:func:`_whole_span`): for a whole number
    v, ``v <= b`` exactly when ``v <= floor(b)`` and ``v < b`` exactly when
    ``v <= ceil(b) - 1``; both counts are read from a table of #values <= each whole number."""
    n_values = values.shape[0]
    origin = np.int64(values[0])
    below = np.zeros(span, dtype=np.int64)
    for j in range(n_values):
        below[np.int64(values[j]) - origin] += 1
    for t in range(1, span):
        below[t] += below[t - 1]
    lowest = values[0]
    highest = values[n_values - 1]
    widths = 0
    for q in range(first.shape[0]):
        i = first[q]
        lv = lo[i]
        hv = hi[i]
        lo_nan = np.isnan(lv)
        hi_nan = np.isnan(hv)
        if lo_nan or hi_nan:  # as rank_windows: nothing excluded on that side (R) or all
            cq = 0
            dq = 0
            if na_matches:
                cq = 0 if lo_nan else (
                    _at_most(below, origin, lowest, highest, np.ceil(lv) - 1) if closed
                    else _at_most(below, origin, lowest, highest, lv)
                )  # fmt: skip
                dq = n_values if hi_nan else (
                    _at_most(below, origin, lowest, highest, hv) if closed
                    else _at_most(below, origin, lowest, highest, np.ceil(hv) - 1)
                )  # fmt: skip
        elif closed:  # cq = #values < lv, dq = #values <= hv
            cq = _at_most(below, origin, lowest, highest, np.ceil(lv) - 1)
            dq = _at_most(below, origin, lowest, highest, hv)
        else:  # cq = #values <= lv, dq = #values < hv
            cq = _at_most(below, origin, lowest, highest, lv)
            dq = _at_most(below, origin, lowest, highest, np.ceil(hv) - 1)
        c[q] = cq
        d[q] = dq
        widths += max(dq - cq, 0)
    return widths


@_jit
def rank_windows(values, lo, hi, first, closed, na_matches, c, d):
    """The targets' windows ``[c, d)`` of indices in ``values`` (sorted, no NaN) for their
    bounds ``lo``/``hi`` on w, written in the targets' order ``first``: a value at index j
    lies in the open window ``(lo, hi)`` exactly when ``c <= j < d`` (closed: ``[lo, hi]``).
    A NaN bound excludes nothing on its side when ``na_matches`` (R), everything otherwise.
    Returns the windows' widths summed (those below 0 as 0)."""
    n_values = values.shape[0]
    span = _whole_span(values)
    if span > 0:  # whole-number values: #values <= b read from a table
        return _whole_windows(values, span, lo, hi, first, closed, na_matches, c, d)
    widths = 0
    for q in range(first.shape[0]):
        i = first[q]
        lv = lo[i]
        hv = hi[i]
        # numpy's searchsorted without branches on the data: cq = #values < lv (closed) or
        # <= lv, dq = #values <= hv (closed) or < hv (the bases of both searches move together)
        cq = 0
        dq = 0
        length = n_values
        while length > 1:
            half = length >> 1
            t = values[cq + half]
            cq += half * ((t < lv) if closed else (t <= lv))
            t = values[dq + half]
            dq += half * ((t <= hv) if closed else (t < hv))
            length -= half
        if n_values > 0:
            t = values[cq]
            cq += (t < lv) if closed else (t <= lv)
            t = values[dq]
            dq += (t <= hv) if closed else (t < hv)
        lo_nan = np.isnan(lv)
        hi_nan = np.isnan(hv)
        if lo_nan or hi_nan:
            if na_matches:
                if lo_nan:
                    cq = 0
                if hi_nan:
                    dq = n_values
            else:
                cq = 0
                dq = 0
        c[q] = cq
        d[q] = dq
        widths += max(dq - cq, 0)
    return widths


@_jit
def same_rows(keys, other_keys, w, other_w):
    """``keys == other_keys`` and ``w == other_w`` element-wise everywhere (NaN != NaN)."""
    if keys.shape[0] != other_keys.shape[0] or w.shape[0] != other_w.shape[0]:
        return False
    same = True
    for i in range(keys.shape[0]):
        same &= keys[i] == other_keys[i]
    for i in range(w.shape[0]):
        same &= w[i] == other_w[i]
    return same


@_jit
def few_side(order, u, cells, counts, n_values):
    """A dataset's synthetic side for :func:`count_few` and :func:`count_few_sweep`: the live
    rows in (key, u) order as ``sorted_u`` and ``rank`` (w's index in the values) and
    ``starts`` (key k at ``starts[k]:starts[k + 1]``).

    ``order``: the rows sorted by u, ``u``: the values (read at the same row as ``cells``:
    the gather costs less than a second sort), ``cells``/``counts``: from
    :func:`few_cells`."""
    n_keys = counts.shape[0] - 1
    starts = counts.copy()
    for k in range(n_keys):
        starts[k + 1] += starts[k]
    fill = starts[:n_keys].copy()
    size = starts[n_keys]
    sorted_u = np.empty(size, dtype=np.float64)
    rank = np.empty(size, dtype=np.int32)
    for q in range(order.shape[0]):
        r = order[q]
        cell = cells[r]
        if cell < 0:
            continue
        k = cell // n_values
        pos = fill[k]
        fill[k] = pos + 1
        sorted_u[pos] = u[r]
        rank[pos] = cell - k * n_values
    return starts, sorted_u, rank


@_jit
def count_few(starts, sorted_u, rank, table, block, keys_first, lo_first, keys_second,
              hi_second, to_first, same, lo_nan, hi_nan, c_rank, d_rank, first, closed,
              na_matches, out):
    """Per target: the rows of its key whose u lies in its u-window and whose w rank lies in
    ``[c_rank, d_rank)``, written to ``out[first[i]]`` (targets in (key, lower bound) order).

    The u-windows are found by merging: the lower bounds in this order (``lo_first``), the
    upper bounds in (key, upper bound) order (``hi_second``; ``to_first[i]`` is target i's
    place in that order; ``same``: both orders are one, and both bounds are merged in one
    pass). Open windows: ``lo < u < hi``; ``closed``: ``lo <= u <= hi``. A NaN
    bound (``lo_nan``/``hi_nan``, empty when there is none) excludes nothing on its side when
    ``na_matches`` (R), everything otherwise. A key < 0 matches nothing.
    """
    n = keys_first.shape[0]
    n_keys = starts.shape[0] - 1
    last = rank.shape[0] - 1
    has_nan = lo_nan.shape[0] > 0
    upper = np.empty(0 if same else n, dtype=np.int64)
    found = np.empty(n, dtype=np.int64)
    current = -1
    p = 0
    q = 0
    stop = 0
    if not same:
        merge_positions(sorted_u, starts, keys_second, hi_second, closed, upper)
    for i in range(n):
        k = keys_first[i]
        if k < 0 or k >= n_keys:
            found[i] = 0
            continue
        if k != current:
            current = k
            p = starts[k]
            q = p
            stop = starts[k + 1]
        v = lo_first[i]
        if closed:
            while p < stop and sorted_u[p] < v:
                p += 1
        else:
            while p < stop and sorted_u[p] <= v:
                p += 1
        pa = p
        if same:
            v = hi_second[i]
            if closed:
                while q < stop and sorted_u[q] <= v:
                    q += 1
            else:
                while q < stop and sorted_u[q] < v:
                    q += 1
            pb = q
        else:
            pb = upper[to_first[i]]
        if has_nan and (lo_nan[i] or hi_nan[i]):
            if not na_matches:
                found[i] = 0
                continue
            if lo_nan[i]:
                pa = starts[k]
            if hi_nan[i]:
                pb = stop
        c = c_rank[i]
        d = d_rank[i]
        count = 0
        if pa < pb and c < d:  # the table rows of both ends' blocks, then one masked scan of
            # both blocks up to the ends (fixed length, indices clamped: no branch on the data;
            # written out here: a call to another kernel is not inlined)
            ta = pa // block
            tb = pb // block
            count = (np.int64(table[tb, d]) - np.int64(table[tb, c])) - (
                np.int64(table[ta, d]) - np.int64(table[ta, c])
            )
            sa = ta * block
            sb = tb * block
            for z in range(block):
                r = rank[min(sb + z, last)]
                count += (r >= c) & (r < d) & (sb + z < pb)
                r = rank[min(sa + z, last)]
                count -= (r >= c) & (r < d) & (sa + z < pa)
        found[i] = count
    for i in range(n):  # into the targets' own order, in a pass of its own (random writes)
        out[first[i]] = found[i]


@_jit
def masked_width(c_rank, d_rank, i0, i1):
    """The fixed width (4, 8 or 16 ranks; 0: none) over which the rank windows of targets
    ``i0``..``i1 - 1`` are summed, masked: a loop whose length changes from target to target
    costs a mispredicted branch per target."""
    widest = 0
    for i in range(i0, i1):
        widest = max(widest, d_rank[i] - c_rank[i])
    return 4 if widest <= 4 else (8 if widest <= 8 else (16 if widest <= 16 else 0))


@_jit
def count_few_sweep(starts, sorted_u, rank, n_values, keys_first, lo_first, hi_first, c_rank,
                    d_rank, first, closed, out):
    """:func:`count_few` without a prefix table, when the targets' upper bounds are sorted in
    their (key, lower bound) order and no bound is NaN: both ends of the u-windows then only
    move forward, and ``diff[j]`` (rows of rank j between them) is kept up to date as they
    move; a target's count is ``diff[c_rank:d_rank]`` summed (narrow rank windows).

    Written to ``out[first[i]]``; a key < 0 matches nothing."""
    n = keys_first.shape[0]
    n_keys = starts.shape[0] - 1
    is_open = not closed
    fixed = masked_width(c_rank, d_rank, 0, n)  # (narrow windows: summed over a fixed width)
    diff = np.zeros(max(n_values, 1) + fixed, dtype=np.int32)  # (a row count: < 2**31)
    found = np.empty(n, dtype=np.int64)
    current = -1
    p = 0
    q = 0
    stop = 0
    for i in range(n):
        k = keys_first[i]
        if k < 0 or k >= n_keys:
            found[i] = 0
            continue
        if k != current:  # empty the window (diff back to zeros), then the key's block
            while p < q:
                diff[rank[p]] -= 1
                p += 1
            while q < p:
                diff[rank[q]] += 1
                q += 1
            current = k
            p = starts[k]
            q = p
            stop = starts[k + 1]
        v = lo_first[i]  # (one loop for both rules: ties step on when open)
        while p < stop and (sorted_u[p] < v or (is_open and sorted_u[p] == v)):
            diff[rank[p]] -= 1
            p += 1
        v = hi_first[i]
        while q < stop and (sorted_u[q] < v or (closed and sorted_u[q] == v)):
            diff[rank[q]] += 1
            q += 1
        count = 0
        c = c_rank[i]
        if fixed > 0:  # (c + t stays inside diff: c <= n_values; the padding is zeros)
            width = d_rank[i] - c
            for t in range(fixed):
                count += diff[c + t] * (t < width)
            found[i] = count * (p < q)
            continue
        if p < q:
            for j in range(c, d_rank[i]):
                count += diff[j]
        found[i] = count
    for i in range(n):  # into the targets' own order, in a pass of its own (random writes)
        out[first[i]] = found[i]


@_jit
def few_fit(skey, y, u, values, n_keys, last):
    """Does a later synthetic dataset fit the few-values grid's table-free sweep, and its cells:
    ``(True, cells, counts)`` of :func:`cells_of`, or ``(False, ...)`` for a live row with a
    NaN, a key >= ``n_keys`` or a w outside ``values`` (the caller then counts it the general
    way).

    ``last``: the keys, w, cells and rows per key of an earlier dataset."""
    for r in range(skey.shape[0]):
        k = skey[r]
        if k >= n_keys or (k >= 0 and (np.isnan(y[r, 0]) or np.isnan(y[r, 1]))):
            return False, last[2], last[3]
    return cells_of(skey, y[:, 1 - u], values, n_keys, last)


@_jit
def cells_of(skey, yw, values, n_keys, last):
    """``(ok, cells, counts)`` of a dataset's w (``yw``): ``last``'s cells and rows per cell
    when this dataset's keys and w are ``last``'s (known variables), else its own from
    :func:`few_cells` (``ok`` False: a w outside ``values``)."""
    last_skey, last_w, cells, counts = last
    if same_rows(last_skey, skey, last_w, yw):
        return True, cells, counts
    cells = np.empty_like(cells)  # (int32 when the cells fit: half the random reads)
    counts, ok = few_cells(skey, yw, values, n_keys, cells)
    return ok, cells, counts


@_jit
def few_layout(order, skey, y, u, values, n_keys, last):
    """A later synthetic dataset's side for the few-values grid's table-free sweep:
    :func:`few_fit`, then :func:`few_side`.

    ``order``: the rows sorted by ``y[:, u]``. Returns ``(True, side)``, the dataset's side
    (``starts``, ``sorted_u``, ``rank`` of :func:`few_side`), or ``(False, empty)`` when the
    dataset does not fit (see :func:`few_fit`)."""
    nothing = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64),
               np.zeros(0, dtype=np.int32))  # fmt: skip
    ok, cells, counts = few_fit(skey, y, u, values, n_keys, last)
    if not ok:
        return False, nothing
    return True, few_side(order, y[:, u], cells, counts, values.shape[0])


@_jit
def few_dataset(order, skey, y, u, values, n_keys, last, tkey, lo, hi, x, d, keys_first,
                lo_first, hi_first, c_rank, d_rank, first, closed, na_matches, c_out, own_out):
    """One more synthetic dataset of the few-values grid's table-free sweep, in one call:
    :func:`few_layout`, then :func:`few_kept` into ``c_out`` and ``own_out``; the targets'
    arrays are those of the sweep. Returns what :func:`few_layout` does (nothing written when
    the dataset does not fit)."""
    ok, side = few_layout(order, skey, y, u, values, n_keys, last)
    if ok:
        few_kept(side[0], side[1], side[2], values.shape[0], skey, y, tkey, lo, hi, x, d,
                 keys_first, lo_first, hi_first, c_rank, d_rank, first, closed, na_matches,
                 c_out, own_out)  # fmt: skip
    return ok, side


@_jit
def few_kept(starts, sorted_u, rank, n_values, skey, y, tkey, lo, hi, x, d, keys_first,
             lo_first, hi_first, c_rank, d_rank, first, closed, na_matches, c_out, own_out):
    """A dataset's counts from its laid-out side (:func:`few_side`, kept across radii) by
    :func:`count_few_sweep` into ``c_out``, and its own rows (:func:`own_rows`, interval rule)
    into ``own_out``."""
    count_few_sweep(starts, sorted_u, rank, n_values, keys_first, lo_first, hi_first, c_rank,
                    d_rank, first, closed, c_out)  # fmt: skip
    own_rows(tkey, skey, lo, hi, x, d, y, closed, na_matches, False, own_out)


@_jit
def window_counts(diff, width, fixed, c, d, live, row, c_out):
    """Each dataset j's count of a target into ``c_out[row, j]``: ``diff[j * width + c:j *
    width + d]`` summed (the rows of w's ranks ``c``..``d - 1`` between the u-window's ends),
    over a fixed masked width when ``fixed`` > 0 (see :func:`count_few_sweep`); 0 when not
    ``live`` (an empty u-window, where diff may hold -1s, or a key that matches nothing)."""
    m = c_out.shape[1]
    if not live:
        for j in range(m):
            c_out[row, j] = 0
    elif fixed > 0:
        span = d - c
        for j in range(m):
            base = j * width + c
            count = 0
            for t in range(fixed):
                count += diff[base + t] * (t < span)
            c_out[row, j] = count
    else:
        for j in range(m):
            base = j * width
            count = 0
            for t in range(c, d):
                count += diff[base + t]
            c_out[row, j] = count


@_jit
def few_stack(starts, sorted_u, slot, width, keys_first, lo_first, hi_first, c_rank, d_rank,
              first, closed, i0, i1, row0, c_out):  # fmt: skip
    """:func:`count_few_sweep` of every dataset at once, for targets ``i0``..``i1 - 1`` (in
    their (key, lower bound) order).

    The datasets' sides are merged: key k's rows of every dataset at ``starts[k]:starts[k +
    1]`` in u order, each with its ``slot`` (dataset j's rank r at ``j * width + r``;
    ``width`` = the number of values + 16). The two ends of the u-windows move over all
    datasets' rows at once and keep ``diff`` per slot, so that a target's pass is paid once for
    all datasets (the windows' ends mispredict once, not once per dataset); its counts are
    then each dataset's ``diff[j * width + c_rank:j * width + d_rank]`` summed, into
    ``c_out[first[i], j]`` (``row0`` >= 0: into ``c_out[i - row0, j]``, the targets' order).
    The same counts as :func:`count_few_sweep` of each dataset: the rows between the ends are
    the same whatever the order of equal values. A range of targets may start inside a key (the
    ends start at its first row). A key < 0 matches nothing."""
    m = c_out.shape[1]
    n_keys = starts.shape[0] - 1
    is_open = not closed
    fixed = masked_width(c_rank, d_rank, i0, i1)
    diff = np.zeros(m * width, dtype=np.int32)  # (c + t < width for t < fixed: c <= values)
    current = -1
    p = 0
    q = 0
    stop = 0
    for i in range(i0, i1):
        k = keys_first[i]
        row = first[i] if row0 < 0 else i - row0
        if k < 0 or k >= n_keys:
            window_counts(diff, width, fixed, 0, 0, False, row, c_out)
            continue
        if k != current:  # empty the window (diff back to zeros), then the key's block
            while p < q:
                diff[slot[p]] -= 1
                p += 1
            while q < p:
                diff[slot[q]] += 1
                q += 1
            current = k
            p = starts[k]
            q = p
            stop = starts[k + 1]
        v = lo_first[i]  # (one loop for both rules: ties step on when open)
        while p < stop and (sorted_u[p] < v or (is_open and sorted_u[p] == v)):
            diff[slot[p]] -= 1
            p += 1
        v = hi_first[i]
        while q < stop and (sorted_u[q] < v or (closed and sorted_u[q] == v)):
            diff[slot[q]] += 1
            q += 1
        window_counts(diff, width, fixed, c_rank[i], d_rank[i], p < q, row, c_out)


@_jit
def place_side(starts, sorted_u, rank, j, width, at, k0, k1, out_u, out_slot):
    """Dataset j's side (:func:`few_side`) into the stack, keys ``k0``..``k1 - 1``: key k's
    rows at ``at[k]`` onwards in ``out_u``, their ranks as slots ``j * width + rank`` in
    ``out_slot`` (a run of :func:`merge_runs`)."""
    for k in range(k0, k1):
        pos = at[k]
        for r in range(starts[k], starts[k + 1]):
            out_u[pos] = sorted_u[r]
            out_slot[pos] = j * width + rank[r]
            pos += 1


@_jit
def _merge_pair(src_u, src_s, a0, mid, end, dst_u, dst_s):
    """The runs ``a0:mid`` and ``mid:end`` of ``src`` (each sorted by u, no NaN) merged into
    ``dst[a0:end]`` from both ends at once: the front takes the smallest half (the first run's
    row on ties), the back the rest (the second run's row on ties), so each row is written
    once; two independent chains of loads per step, no branch on the data."""
    if a0 == mid or mid == end:  # one run: a copy
        for r in range(a0, end):
            dst_u[r] = src_u[r]
            dst_s[r] = src_s[r]
        return
    size = end - a0
    half = size // 2
    af = a0  # the front's heads and its next place
    bf = mid
    ab = mid - 1  # the back's heads and its next place
    bb = end - 1
    wb = end - 1
    last_a = mid - 1
    last_b = end - 1
    for w in range(a0, a0 + half):
        va = src_u[min(af, last_a)]
        vb = src_u[min(bf, last_b)]
        take = (af > last_a) | ((bf <= last_b) & (vb < va))
        dst_u[w] = vb if take else va
        dst_s[w] = src_s[min(bf, last_b)] if take else src_s[min(af, last_a)]
        bf += take
        af += 1 - take
        va = src_u[max(ab, a0)]
        vb = src_u[max(bb, mid)]
        back = (bb < mid) | ((ab >= a0) & (va > vb))
        dst_u[wb] = va if back else vb
        dst_s[wb] = src_s[max(ab, a0)] if back else src_s[max(bb, mid)]
        ab -= back
        bb -= 1 - back
        wb -= 1
    if size & 1:  # the middle row: the back's next
        va = src_u[max(ab, a0)]
        vb = src_u[max(bb, mid)]
        back = (bb < mid) | ((ab >= a0) & (va > vb))
        dst_u[wb] = va if back else vb
        dst_s[wb] = src_s[max(ab, a0)] if back else src_s[max(bb, mid)]


@_jit
def merge_runs(runs_at, k0, k1, out_u, out_slot):
    """Each key's runs (key k's run j at ``runs_at[k, j]:runs_at[k, j + 1]``, each sorted by u)
    merged in place into one run sorted by u, keys ``k0``..``k1 - 1``: two by two
    (:func:`_merge_pair`, from both ends at once), for :func:`few_stack`."""
    m = runs_at.shape[1] - 1
    longest = 0
    for k in range(k0, k1):
        longest = max(longest, runs_at[k, m] - runs_at[k, 0])
    spare_u = np.empty(longest, dtype=np.float64)
    spare_s = np.empty(longest, dtype=np.int32)
    bounds = np.empty(m + 1, dtype=np.int64)
    for k in range(k0, k1):
        base = runs_at[k, 0]
        size = runs_at[k, m] - base
        src_u = out_u[base:base + size]
        src_s = out_slot[base:base + size]
        dst_u = spare_u[:size]
        dst_s = spare_s[:size]
        for j in range(m + 1):
            bounds[j] = runs_at[k, j] - base
        runs = m
        home = True  # the merged rows are in out_u/out_slot
        while runs > 1:
            merged = 0
            for t in range(0, runs, 2):
                _merge_pair(src_u, src_s, bounds[t], bounds[min(t + 1, runs)],
                            bounds[min(t + 2, runs)], dst_u, dst_s)  # fmt: skip
                bounds[merged] = bounds[t]
                merged += 1
            bounds[merged] = size
            runs = merged
            src_u, dst_u = dst_u, src_u
            src_s, dst_s = dst_s, src_s
            home = not home
        if not home:
            for r in range(size):
                out_u[base + r] = src_u[r]
                out_slot[base + r] = src_s[r]
