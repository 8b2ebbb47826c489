"""Compiled counting kernels of :mod:`idrisk.risk.matching` (numba).

The kernels receive window positions in sorted arrays and rank ranges, computed exactly by
binary search in :mod:`idrisk.risk.matching`, and count with loops, so no per-(record, value)
numpy call is needed and memory stays O(n):

* :func:`count_grid`: two continuous variables. Synthetic rows are sorted by (group key, u);
  the other variable w is replaced by its rank among the distinct synthetic w values, and the
  ranks are cut into at most a few hundred buckets (one bucket per distinct value when there are
  few, e.g. ages). A table of prefix counts per bucket, stored every ``block`` positions, counts
  the rows of a target's u-window whose w bucket lies strictly inside its w-window; the rows of
  the (at most two) buckets cut by the window's ends are checked one by one on their ranks.
  Comparisons are on integer ranks obtained by binary search, so the counts are exact.
* :func:`few_cells`, :func:`few_side`, :func:`count_few`: the same grid when w has few distinct
  values (one bucket per value, so no bucket is ever cut), fused: per dataset one pass finds
  each row's (key, w rank) cell, one pass in u order lays the rows out by key with the prefix
  table, and one pass merges the targets' u bounds and reads their counts from the table
  (:mod:`idrisk.risk._fewgrid`).
* :func:`count_candidates`: any number of variables and every rule (closed, NA semantics,
  ellipsoid): every candidate row of a target's window on the most selective variable is
  checked on all variables with R's floating-point comparisons.

Every kernel is compiled by :func:`idrisk._numba.jit` (cached in idrisk's cache directory,
``nogil=True``: synthetic datasets are counted on threads).
"""

from __future__ import annotations

import numpy as np

from .._numba import jit as _jit

__all__ = [
    "count_candidates", "count_few", "count_few_sweep", "count_grid", "distinct_values",
    "encode_keys", "few_cells", "few_dataset", "few_kept", "few_side", "grid_table",
    "lay_out_targets", "merge_positions", "nan_in_live_rows", "orders_by_key", "own_rows",
    "rank_windows", "risk_summaries", "same_rows", "sort_by_key",
]


@_jit
def grid_table(bucket, n_buckets, block):
    """``table[t, j]`` = number of positions ``p < t * block`` whose bucket is ``< j``."""
    size = bucket.shape[0]
    n_blocks = (size + block - 1) // block
    table = np.zeros((n_blocks + 1, n_buckets + 1), dtype=np.int32)
    hist = np.zeros(n_buckets, dtype=np.int64)
    for t in range(1, n_blocks + 1):
        stop = min(t * block, size)
        for p in range((t - 1) * block, stop):
            hist[bucket[p]] += 1
        acc = 0
        for j in range(n_buckets):
            acc += hist[j]
            table[t, j + 1] = acc
    return table


@_jit
def _below(table, bucket, block, size, pos, j1, j2):
    """(#positions < pos with bucket < j1, same with bucket < j2), from the nearer block end."""
    t = pos // block
    start = t * block
    stop = start + block
    if pos - start <= stop - pos or stop > size:
        c1 = np.int64(table[t, j1])
        c2 = np.int64(table[t, j2])
        for p in range(start, pos):
            b = bucket[p]
            if b < j1:
                c1 += 1
            if b < j2:
                c2 += 1
    else:
        c1 = np.int64(table[t + 1, j1])
        c2 = np.int64(table[t + 1, j2])
        for p in range(pos, stop):
            b = bucket[p]
            if b < j1:
                c1 -= 1
            if b < j2:
                c2 -= 1
    return c1, c2


@_jit
def _lower(arr, lo, hi, value):
    """First index in arr[lo:hi] (sorted) whose value is >= value."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if arr[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


@_jit
def _edge(by_bucket, offsets, rank, j, a, b, lo_rank, hi_rank):
    """Rows of bucket j at positions [a, b) whose rank is in [lo_rank, hi_rank)."""
    start = _lower(by_bucket, offsets[j], offsets[j + 1], a)
    stop = _lower(by_bucket, start, offsets[j + 1], b)
    count = 0
    for q in range(start, stop):
        r = rank[by_bucket[q]]
        if r >= lo_rank and r < hi_rank:
            count += 1
    return count


@_jit
def count_grid(a, b, lo_rank, hi_rank, rank, bucket, bucket_of_rank, bucket_start, table,
               block, by_bucket, offsets, out):
    """Per target i: rows at positions [a_i, b_i) whose w rank lies in [lo_rank_i, hi_rank_i).

    ``rank``/``bucket``: w rank and bucket of the row at each position; ``bucket_start[j]``: the
    first rank of bucket j (``bucket_start[K]`` = number of ranks); ``by_bucket``: positions
    sorted by (bucket, position), bucket j at ``offsets[j]:offsets[j + 1]``. Adds to ``out``.
    """
    size = bucket.shape[0]
    for i in range(a.shape[0]):
        pa, pb, c, d = a[i], b[i], lo_rank[i], hi_rank[i]
        if pa >= pb or c >= d:
            continue
        bc = bucket_of_rank[c]
        bd = bucket_of_rank[d - 1]
        cut_c = bucket_start[bc] != c
        cut_d = bucket_start[bd + 1] != d
        j1 = bc + 1 if cut_c else bc
        j2 = bd if cut_d else bd + 1
        count = 0
        if j1 < j2:
            a1, a2 = _below(table, bucket, block, size, pa, j1, j2)
            b1, b2 = _below(table, bucket, block, size, pb, j1, j2)
            count += (b2 - b1) - (a2 - a1)
        if cut_c:
            count += _edge(by_bucket, offsets, rank, bc, pa, pb, c, d)
        if cut_d and (bd != bc or not cut_c):
            count += _edge(by_bucket, offsets, rank, bd, pa, pb, c, d)
        out[i] += count


@_jit
def _row_matches(i, k, lo, hi, x, d, y, closed, na_matches, ellipsoid):
    """Does target i match synthetic row k on every continuous variable (R's comparisons:
    a NaN bound or value excludes nothing in R's mode)?"""
    p = lo.shape[1]
    for v in range(p):
        yv, lv, hv = y[k, v], lo[i, v], hi[i, v]
        if closed:
            if yv < lv or yv > hv:
                return False
        elif yv <= lv or yv >= hv:
            return False
        if not na_matches and (np.isnan(yv) or np.isnan(lv) or np.isnan(hv)):
            return False
    if not ellipsoid:
        return True
    total = 0.0
    for v in range(p):
        yv, xv, dv = y[k, v], x[i, v], d[i, v]
        if np.isnan(yv) or np.isnan(xv) or np.isnan(dv):
            term = 0.0 if na_matches else np.inf
        elif dv <= 0:
            term = 0.0 if (closed and dv == 0 and yv == xv) else np.inf
        else:
            z = (yv - xv) / dv
            term = z * z
        total += term
    return total <= 1.0 if closed else total < 1.0


@_jit
def count_candidates(a, b, pool, lo, hi, x, d, y, closed, na_matches, ellipsoid, out):
    """Per target i: candidates ``pool[a[i, s]:b[i, s]]`` (every s) that match on all variables.

    Adds to ``out``. ``a``/``b`` are ``(n, S)`` ranges in ``pool`` (synthetic row ids).
    """
    for i in range(a.shape[0]):
        count = 0
        for s in range(a.shape[1]):
            for q in range(a[i, s], b[i, s]):
                if _row_matches(i, pool[q], lo, hi, x, d, y, closed, na_matches, ellipsoid):
                    count += 1
        out[i] += count


@_jit
def sort_by_key(order_by_value, skey, n_keys):
    """Stable counting sort by group key of rows already ordered by value (keys < 0 dropped).

    Returns the rows in (key, value) order and ``starts`` (key k at ``starts[k]:starts[k + 1]``).
    """
    counts = np.zeros(n_keys + 1, dtype=np.int64)
    for r in order_by_value:
        k = skey[r]
        if k >= 0:
            counts[k + 1] += 1
    for k in range(n_keys):
        counts[k + 1] += counts[k]
    starts = counts.copy()
    fill = counts[:n_keys].copy()
    rows = np.empty(counts[n_keys], dtype=np.int64)
    for r in order_by_value:
        k = skey[r]
        if k >= 0:
            rows[fill[k]] = r
            fill[k] += 1
    return rows, starts


@_jit
def lay_out_targets(first, tkey, lo_u, hi_u, keys_first, lo_first, hi_first, lo_nan, hi_nan):
    """The targets' keys, bounds and NaN flags in the order ``first`` (one gather pass).
    Returns ``(hi_sorted, has_nan)``: no upper bound is NaN and the upper bounds are sorted
    within each key in this order too (it is then their order as well); a bound is NaN."""
    hi_sorted = True
    has_nan = False
    for q in range(first.shape[0]):
        i = first[q]
        k = tkey[i]
        lv = lo_u[i]
        hv = hi_u[i]
        keys_first[q] = k
        lo_first[q] = lv
        hi_first[q] = hv
        ln = np.isnan(lv)
        hn = np.isnan(hv)
        lo_nan[q] = ln
        hi_nan[q] = hn
        has_nan |= ln | hn
        hi_sorted &= not hn
        if q > 0 and k == keys_first[q - 1]:
            hi_sorted &= hv >= hi_first[q - 1]
    return hi_sorted, has_nan


@_jit
def orders_by_key(order, keys, values):
    """Does ``order`` sort the rows as :func:`idrisk.risk._fewgrid.target_order` does: by key
    (keys < 0 together, first) and by value within a key, NaN last?"""
    for q in range(1, order.shape[0]):
        a = order[q - 1]
        b = order[q]
        ka = max(keys[a] + 1, 0)
        kb = max(keys[b] + 1, 0)
        if kb < ka:
            return False
        if kb == ka:
            va = values[a]
            vb = values[b]
            if np.isnan(va):
                if not np.isnan(vb):
                    return False
            elif vb < va:
                return False
    return True


@_jit
def merge_positions(sorted_values, starts, keys, bounds, advance_on_equal, out):
    """Positions of bounds in their key's block of sorted values, by one merge.

    The needles (``keys``, ``bounds``) come sorted by (key, bound), NaN bounds last within a
    key. ``out[j]`` is the first position of key ``keys[j]`` whose value is ``> bounds[j]``
    (``advance_on_equal``; numpy's ``searchsorted(..., "right")``) or ``>= bounds[j]``
    ("left"). Needles with a key < 0 or a NaN bound get 0 or the start of their key's block
    (the caller overrides them).
    """
    n_keys = starts.shape[0] - 1
    current = -1
    p = 0
    stop = 0
    for j in range(keys.shape[0]):
        k = keys[j]
        if k < 0 or k >= n_keys:
            out[j] = 0
            continue
        if k != current:
            current = k
            p = starts[k]
            stop = starts[k + 1]
        v = bounds[j]
        if advance_on_equal:
            while p < stop and sorted_values[p] <= v:
                p += 1
        else:
            while p < stop and sorted_values[p] < v:
                p += 1
        out[j] = p


@_jit
def risk_summaries(c, own, t, k, f, out_int, exp_risk):
    """Per dataset j (column): T, K, F of every record (R's rules: T = 1 when c = 0, K = c·T
    = 1, F = c·(1 − T) = 1) and ``out_int[j] = (s, sum K, sum F, records with c = 0)``;
    ``exp_risk[j]`` = Σ_i T_i / c_i added in record order with a double accumulator (the
    order and the operations of the R package, so the sum is R's to the last digit).
    ``t``, ``k`` and ``f`` with no rows: the sums only, no flag written."""
    n, m = c.shape
    flags = t.shape[0] > 0
    for j in range(m):
        s = 0
        ks = 0
        fs = 0
        zeros = 0
        total = 0.0
        for i in range(n):  # without branches on the data (their outcomes are random)
            ci = c[i, j]
            hit = own[i, j] & (ci > 0)
            zero = ci == 0
            unique = ci == 1
            if flags:  # (the same test for every record: no misprediction)
                t[i, j] = hit | zero
                k[i, j] = unique & hit
                f[i, j] = unique & (not hit)
            s += unique
            ks += unique & hit
            fs += unique & (not hit)
            zeros += zero
            # 1 / c when hit, else + 0.0 (R's T / c for c > 0; the total is never -0.0)
            total += (1.0 / np.float64(max(ci, 1))) if hit else 0.0
        out_int[j, 0] = s
        out_int[j, 1] = ks
        out_int[j, 2] = fs
        out_int[j, 3] = zeros
        exp_risk[j] = total


@_jit
def own_rows(tkey, skey, lo, hi, x, d, y, closed, na_matches, ellipsoid, out):
    """``out[i]``: does target i match its own synthetic row i (a key >= 0, the same key, and
    on every continuous variable the check of :func:`count_candidates` for the pair (i, i))?"""
    if ellipsoid:
        for i in range(lo.shape[0]):
            k = tkey[i]
            out[i] = k >= 0 and skey[i] == k and _row_matches(
                i, i, lo, hi, x, d, y, closed, na_matches, ellipsoid
            )
        return
    # the interval test of _row_matches without branches on the data (its outcome is random:
    # a branch per comparison costs a misprediction per record)
    p = lo.shape[1]
    for i in range(lo.shape[0]):
        k = tkey[i]
        ok = (k >= 0) & (skey[i] == k)
        for v in range(p):
            yv, lv, hv = y[i, v], lo[i, v], hi[i, v]
            if closed:
                ok &= not ((yv < lv) | (yv > hv))
            else:
                ok &= not ((yv <= lv) | (yv >= hv))
            if not na_matches:
                ok &= not (np.isnan(yv) | np.isnan(lv) | np.isnan(hv))
        out[i] = ok


@_jit
def encode_keys(codes, sizes, lut, offsets, out):
    """Group keys of code rows through the stages of a fitted key encoder (lookup tables
    ``lut[offsets[v]:]`` per stage v); -1 for a missing code, a code past the stage's size or a
    combination no confidential record has."""
    n, p = codes.shape
    for i in range(n):
        key = 0
        for v in range(p):
            col = codes[i, v]
            size = sizes[v]
            if col < 0 or col + 1 >= size:
                key = -1
                break
            key = lut[offsets[v] + key * size + col + 1]
            if key < 0:
                break
        out[i] = key


# --------------------------------------------------------------------------- few w values
# The compiled grid when the bucketed variable w has few distinct values (one bucket per
# value, no bucket ever cut): one pass lays out a dataset's synthetic side, one pass counts.


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
def _at_most(below, origin, first, last, n_values, b):
    """#values <= b (b not NaN) from ``below[t]`` = #values <= origin + t."""
    if b < first:
        return 0
    if b >= last:
        return n_values
    return below[np.int64(np.floor(b)) - origin]


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
                    _at_most(below, origin, lowest, highest, n_values, np.ceil(lv) - 1) if closed
                    else _at_most(below, origin, lowest, highest, n_values, lv)
                )  # fmt: skip
                dq = n_values if hi_nan else (
                    _at_most(below, origin, lowest, highest, n_values, hv) if closed
                    else _at_most(below, origin, lowest, highest, n_values, np.ceil(hv) - 1)
                )  # fmt: skip
        elif closed:  # cq = #values < lv, dq = #values <= hv
            cq = _at_most(below, origin, lowest, highest, n_values, np.ceil(lv) - 1)
            dq = _at_most(below, origin, lowest, highest, n_values, hv)
        else:  # cq = #values <= lv, dq = #values < hv
            cq = _at_most(below, origin, lowest, highest, n_values, lv)
            dq = _at_most(below, origin, lowest, highest, n_values, np.ceil(hv) - 1)
        c[q] = cq
        d[q] = dq


@_jit
def rank_windows(values, lo, hi, first, closed, na_matches, c, d):
    """The targets' windows ``[c, d)`` of indices in ``values`` (sorted, no NaN) for their
    bounds ``lo``/``hi`` on w, written in the targets' order ``first``: a value at index j
    lies in the open window ``(lo, hi)`` exactly when ``c <= j < d`` (closed: ``[lo, hi]``).
    A NaN bound excludes nothing on its side when ``na_matches`` (R), everything otherwise."""
    n_values = values.shape[0]
    span = _whole_span(values)
    if span > 0:  # whole-number values: #values <= b read from a table
        _whole_windows(values, span, lo, hi, first, closed, na_matches, c, d)
        return
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


@_jit
def nan_in_live_rows(skey, y):
    """Is any value of a row with a key >= 0 NaN (one pass, no temporaries)?"""
    for i in range(y.shape[0]):
        if skey[i] >= 0:
            for v in range(y.shape[1]):
                if np.isnan(y[i, v]):
                    return True
    return False


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
    # narrow windows are summed over a fixed width, masked (4, 8 or 16 ranks: a loop whose
    # length changes from target to target costs a mispredicted branch per target)
    widest = 0
    for i in range(n):
        widest = max(widest, d_rank[i] - c_rank[i])
    fixed = 4 if widest <= 4 else (8 if widest <= 8 else (16 if widest <= 16 else 0))
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
def few_dataset(order, skey, y, u, values, n_keys, last, tkey, lo, hi, x, d, keys_first,
                lo_first, hi_first, c_rank, d_rank, first, closed, na_matches, c_out, own_out):
    """One more synthetic dataset of the few-values grid's table-free sweep, in one call:
    :func:`few_cells`, :func:`few_side`, then :func:`few_kept` into ``c_out`` and ``own_out``.

    ``order``: the rows sorted by ``y[:, u]``; ``last``: the keys, w, cells and rows per key of
    an earlier dataset (reused when this one's keys and w are the same: known variables); the
    targets' arrays are those of the sweep. Returns ``(True, side)``, the dataset's side
    (``starts``, ``sorted_u``, ``rank`` of :func:`few_side`), or ``(False, empty)`` with nothing
    written when the dataset does not fit: a live row with a NaN, a key >= ``n_keys`` or a w
    outside ``values`` (the caller then counts it the general way)."""
    nothing = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64),
               np.zeros(0, dtype=np.int32))  # fmt: skip
    for r in range(skey.shape[0]):
        k = skey[r]
        if k >= n_keys or (k >= 0 and (np.isnan(y[r, 0]) or np.isnan(y[r, 1]))):
            return False, nothing
    last_skey, last_w, cells, counts = last
    if not same_rows(last_skey, skey, last_w, y[:, 1 - u]):
        cells = np.empty_like(cells)  # (int32 when the cells fit: half the random reads)
        counts, ok = few_cells(skey, y[:, 1 - u], values, n_keys, cells)
        if not ok:
            return False, nothing
    side = few_side(order, y[:, u], cells, counts, values.shape[0])
    few_kept(side[0], side[1], side[2], values.shape[0], skey, y, tkey, lo, hi, x, d,
             keys_first, lo_first, hi_first, c_rank, d_rank, first, closed, na_matches, c_out,
             own_out)  # fmt: skip
    return True, side


@_jit
def few_kept(starts, sorted_u, rank, n_values, skey, y, tkey, lo, hi, x, d, keys_first,
             lo_first, hi_first, c_rank, d_rank, first, closed, na_matches, c_out, own_out):
    """A dataset's counts from its laid-out side (:func:`few_side`, kept across radii) by
    :func:`count_few_sweep` into ``c_out``, and its own rows (:func:`own_rows`, interval rule)
    into ``own_out``."""
    count_few_sweep(starts, sorted_u, rank, n_values, keys_first, lo_first, hi_first, c_rank,
                    d_rank, first, closed, c_out)  # fmt: skip
    own_rows(tkey, skey, lo, hi, x, d, y, closed, na_matches, False, own_out)
