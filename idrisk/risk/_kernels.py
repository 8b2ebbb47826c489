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
* the same grid when w has few distinct values (one bucket per value, so no bucket is ever
  cut) has kernels of its own: :mod:`idrisk.risk._fewkernels` (driven by
  :mod:`idrisk.risk._fewgrid`).
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
    "count_candidates", "count_grid", "encode_keys", "grid_table", "lay_out_targets",
    "merge_positions", "nan_in_live_rows", "orders_by_key", "own_rows", "risk_summaries",
    "sort_by_key",
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
def _in_interval(yv, lv, hv, closed, na_matches):
    """The interval test of :func:`_row_matches` for one variable, without branches on the
    data (its outcome is random: a branch per comparison costs a misprediction per record)."""
    if closed:
        ok = not ((yv < lv) | (yv > hv))
    else:
        ok = not ((yv <= lv) | (yv >= hv))
    if not na_matches:
        ok &= not (np.isnan(yv) | np.isnan(lv) | np.isnan(hv))
    return ok


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
    p = lo.shape[1]
    for i in range(lo.shape[0]):
        k = tkey[i]
        ok = (k >= 0) & (skey[i] == k)
        for v in range(p):
            ok &= _in_interval(y[i, v], lo[i, v], hi[i, v], closed, na_matches)
        out[i] = ok


@_jit
def own_rows_pair(tkey, skey, lo, hi, y0, y1, closed, na_matches, out):
    """:func:`own_rows` (the intervals) of two variables given as columns ``y0``, ``y1`` (the
    synthetic frame's own arrays: no stacked copy)."""
    for i in range(lo.shape[0]):
        k = tkey[i]
        ok = (k >= 0) & (skey[i] == k)
        ok &= _in_interval(y0[i], lo[i, 0], hi[i, 0], closed, na_matches)
        ok &= _in_interval(y1[i], lo[i, 1], hi[i, 1], closed, na_matches)
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


@_jit
def first_codes(raw, lut, codes, uniques):
    """``pd.factorize(raw)`` for small integers (``0 <= raw < len(lut)``): each row's code,
    numbered in order of first appearance, into ``codes``; the values in that order into
    ``uniques`` and their codes into ``lut`` (filled with -1 by the caller). Returns the
    number of distinct values."""
    found = 0
    for i in range(raw.shape[0]):
        r = raw[i]
        k = lut[r]
        if k < 0:
            k = lut[r] = found
            uniques[found] = r
            found += 1
        codes[i] = k
    return found


@_jit
def nan_or_empty(x, d, closed):
    """Is any value of ``x`` NaN, or any interval empty (x not NaN and d < 0, or d == 0 with
    open intervals; ``d``, C-contiguous as ``x``, with no rows: no intervals)? One pass
    without temporaries, stopped at the first: the usual answer of
    :func:`idrisk.risk._checks.check_counts` is no."""
    is_open = not closed
    xs, ds = x.ravel(), d.ravel()  # (C-contiguous: views)
    for start in range(0, xs.shape[0], 8192):  # (branch-free blocks: vectorised)
        stop = min(start + 8192, xs.shape[0])
        found = 0
        for i in range(start, stop):
            found += xs[i] != xs[i]
        if ds.shape[0] > 0:
            for i in range(start, stop):
                found += (ds[i] < 0) + ((ds[i] == 0) & is_open)
        if found:
            return True
    return False


@_jit
def nan_in_live_rows(skey, y):
    """Is any value of a row with a key >= 0 NaN (one pass, no temporaries)? Blocks of rows
    are first counted without branches (vectorised: NaN is rare); a block with a NaN is
    checked row by row."""
    n, p = y.shape
    for start in range(0, n, 4096):
        stop = min(start + 4096, n)
        found = 0
        for i in range(start, stop):
            for v in range(p):
                found += y[i, v] != y[i, v]
        if found:
            for i in range(start, stop):
                if skey[i] >= 0:
                    for v in range(p):
                        if np.isnan(y[i, v]):
                            return True
    return False
