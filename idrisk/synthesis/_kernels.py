"""Compiled loops of the CART synthesizer (numba): R's index draws, donor look-ups, routing.

R's Mersenne-Twister (``MT_genrand``) runs here on the state that
:class:`idrisk.synthesis.rng.RStream` holds (624 words and the position), and the draw kernels
take their words from it one by one as R does (rejection sampling, ``R_unif_index``,
``sample.int``'s swap with the last): no word is drawn ahead or put back.
"""

from __future__ import annotations

import numpy as np

from .._numba import jit as _jit

__all__ = [
    "donor_draws",
    "first_appearance_groups",
    "hash_build",
    "hash_lookup",
    "mt_words",
    "permutation_draws",
    "revsort",
    "route",
    "unif_index_groups",
    "weighted_picks",
]

_N, _M = 624, 397
_UPPER, _LOWER, _MATRIX_A = 0x80000000, 0x7FFFFFFF, 0x9908B0DF


@_jit
def _mt_regenerate(mt):
    """The next 624 words of R's Mersenne-Twister state (``MT_genrand``'s refill)."""
    for kk in range(_N - _M):
        y = (mt[kk] & _UPPER) | (mt[kk + 1] & _LOWER)
        mt[kk] = mt[kk + _M] ^ (y >> 1) ^ (-(y & 1) & _MATRIX_A)
    for kk in range(_N - _M, _N - 1):
        y = (mt[kk] & _UPPER) | (mt[kk + 1] & _LOWER)
        mt[kk] = mt[kk + _M - _N] ^ (y >> 1) ^ (-(y & 1) & _MATRIX_A)
    y = (mt[_N - 1] & _UPPER) | (mt[0] & _LOWER)
    mt[_N - 1] = mt[_M - 1] ^ (y >> 1) ^ (-(y & 1) & _MATRIX_A)


@_jit
def _mt_word(mt, mti):
    """(the next 32-bit word of R's Mersenne-Twister ``MT_genrand``, the new position) from
    the state ``mt`` (624 words, as int64) at position ``mti``."""
    if mti >= _N:
        _mt_regenerate(mt)
        mti = 0
    y = mt[mti]
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y, mti + 1


@_jit
def mt_words(mt, state, out):
    """Fill ``out`` with the next raw words of the stream ``(mt, state)``: ``state[0]`` is
    the position in ``mt``, ``state[1]`` counts the words drawn."""
    mti = state[0]
    for i in range(out.shape[0]):
        out[i], mti = _mt_word(mt, mti)
    state[0] = mti
    state[1] += out.shape[0]


@_jit
def _bits(n):
    """ceil(log2(n)) for n >= 1."""
    b = 0
    while (1 << b) < n:
        b += 1
    return b


@_jit
def _rbits(mt, mti, bits):
    """R's ``rbits``: (``bits`` random bits from 16-bit chunks of unif_rand(), the new
    position)."""
    v = 0
    for _c in range(bits // 16 + 1):
        w, mti = _mt_word(mt, mti)
        v = v * 65536 + (w >> 16)
    return v & ((1 << bits) - 1), mti


@_jit
def _unif_index(mt, mti, n, bits):
    """R's ``R_unif_index(n)`` (``bits`` = ceil(log2(n))) by rejection: (value, new
    position, words drawn)."""
    words = 0
    while True:
        v, mti = _rbits(mt, mti, bits)
        words += bits // 16 + 1
        if v < n:
            return v, mti, words


@_jit
def unif_index_groups(mt, state, ns, sizes, out):
    """``sizes[g]`` draws of ``R_unif_index(ns[g])`` for every group g in turn, into ``out``
    (groups one after the other), from the stream ``(mt, state)`` (see :func:`mt_words`)."""
    mti = state[0]
    words = 0
    o = 0
    for g in range(ns.shape[0]):
        n = ns[g]
        bits = _bits(n)
        for _ in range(sizes[g]):
            v, mti, used = _unif_index(mt, mti, n, bits)
            words += used
            out[o] = v
            o += 1
    state[0] = mti
    state[1] += words


@_jit
def permutation_draws(mt, state, n, size, keep, out):
    """R's ``sample.int(n, size)`` (swap with last) into ``out`` (if ``keep``), from the
    stream ``(mt, state)`` (see :func:`mt_words`)."""
    x = np.arange(n if keep else 0)
    mti = state[0]
    words = 0
    bits = _bits(n)
    for i in range(size):
        m = n - i
        while bits > 0 and (1 << (bits - 1)) >= m:  # ceil(log2(m)), m decreasing
            bits -= 1
        v, mti, used = _unif_index(mt, mti, m, bits)
        words += used
        if keep:
            out[i] = x[v]
            x[v] = x[m - 1]
    state[0] = mti
    state[1] += words


@_jit
def donor_draws(mt, state, group, counts, starts, order, out):
    """syn.cart's donor draws from the stream ``(mt, state)`` (see :func:`mt_words`): for each
    group of ``group`` (values 0..counts.size-1) in order of first appearance, for its rows in
    row order, ``out[row] = order[starts[g] + R_unif_index(counts[g])]``."""
    seq, sizes, rows = first_appearance_groups(group, counts.shape[0])
    mti = state[0]
    words = 0
    o = 0
    for j in range(seq.shape[0]):
        g = seq[j]
        n = counts[g]
        bits = _bits(n)
        for _ in range(sizes[j]):
            v, mti, used = _unif_index(mt, mti, n, bits)
            words += used
            out[rows[o]] = order[starts[g] + v]
            o += 1
    state[0] = mti
    state[1] += words


_GOLDEN = np.uint64(11400714819323198485)  # 2**64 / golden ratio (Fibonacci hashing)


@_jit
def hash_build(keys):
    """Open-addressing hash table of ``keys`` (distinct, >= 0) -> their positions.

    Returns ``(table_keys, table_positions, bits)`` for :func:`hash_lookup`.
    """
    bits = 1
    while (1 << bits) < 2 * keys.shape[0]:
        bits += 1
    size = 1 << bits
    table_keys = np.full(size, -1, dtype=np.int64)
    table_pos = np.empty(size, dtype=np.int64)
    shift = np.uint64(64 - bits)
    for i in range(keys.shape[0]):
        h = np.int64((np.uint64(keys[i]) * _GOLDEN) >> shift)
        while table_keys[h] != -1:
            h = (h + 1) & (size - 1)
        table_keys[h] = keys[i]
        table_pos[h] = i
    return table_keys, table_pos, bits


@_jit
def hash_lookup(table_keys, table_pos, bits, values, out):
    """Position of every ``values[i]`` among the hashed keys (-1 if absent) into ``out``.

    Returns the number of values not found.
    """
    shift = np.uint64(64 - bits)
    mask = table_keys.shape[0] - 1
    missing = 0
    for i in range(values.shape[0]):
        v = values[i]
        h = np.int64((np.uint64(v) * _GOLDEN) >> shift)
        while True:
            k = table_keys[h]
            if k == v:
                out[i] = table_pos[h]
                break
            if k == -1:
                out[i] = -1
                missing += 1
                break
            h = (h + 1) & mask
    return missing


@_jit
def first_appearance_groups(group, ngroups):
    """Rows grouped by ``group`` (values 0..ngroups-1), the groups in order of first appearance.

    Returns ``(seq, sizes, rows)``: the groups in that order, their sizes, and the row
    positions group after group (ascending within a group).
    """
    n = group.shape[0]
    rank = np.full(ngroups, -1, dtype=np.int64)
    seq = np.empty(ngroups, dtype=np.int64)
    m = 0
    for i in range(n):
        g = group[i]
        if rank[g] < 0:
            rank[g] = m
            seq[m] = g
            m += 1
    sizes = np.zeros(m, dtype=np.int64)
    for i in range(n):
        sizes[rank[group[i]]] += 1
    start = np.empty(m, dtype=np.int64)
    acc = 0
    for j in range(m):
        start[j] = acc
        acc += sizes[j]
    rows = np.empty(n, dtype=np.int64)
    for i in range(n):
        r = rank[group[i]]
        rows[start[r]] = i
        start[r] += 1
    return seq[:m].copy(), sizes, rows


@_jit
def _direction(x, s, split_cut, split_dir, split_cat, cat_dirs):
    if np.isnan(x):
        return 0
    start = split_cat[s]
    if start < 0:
        return split_dir[s] if x < split_cut[s] else -split_dir[s]
    return cat_dirs[start + np.int64(x) - 1]


@_jit
def route(xm, node_var, node_cut, node_lt, node_cat, child, sur_start, sur_count, left_n,
          right_n, number, split_var, split_cut, split_dir, split_cat, cat_dirs, usesurrogate,
          out):
    """rpart's ``predict`` routing of every row of ``xm`` through a flattened tree.

    Node slot 0 is the root; per node: the primary split's variable (-1: leaf), cut,
    whether ``x < cut`` goes left, factor directions offset (-1: numeric) and the two
    child slots. A row whose primary direction is 0 (missing value, level without a
    direction) tries the surrogates in order (``usesurrogate >= 1``), then goes to the
    child with more training rows (``usesurrogate == 2`` and unequal counts), else
    stops. ``out``: the node number reached.
    """
    for r in range(xm.shape[0]):
        node = 0
        while True:
            v = node_var[node]
            if v < 0:
                break
            xv = xm[r, v]
            if not np.isnan(xv):  # the primary split decides (the common case)
                c = node_cat[node]
                if c < 0:
                    node = child[node, 0 if (xv < node_cut[node]) == node_lt[node] else 1]
                    continue
                d = cat_dirs[c + np.int64(xv) - 1]
                if d != 0:
                    node = child[node, (d + 1) >> 1]
                    continue
            d = 0
            if usesurrogate > 0:
                for k in range(sur_start[node], sur_start[node] + sur_count[node]):
                    d = _direction(xm[r, split_var[k]], k, split_cut, split_dir, split_cat,
                                   cat_dirs)
                    if d != 0:
                        break
            if d == 0 and usesurrogate == 2 and left_n[node] != right_n[node]:
                d = -1 if left_n[node] > right_n[node] else 1
            if d == 0:
                break
            node = child[node, (d + 1) >> 1]
        out[r] = number[node]


@_jit
def revsort(x, ib):
    """R's ``revsort`` on ``x[1:]`` (1-based, in place): heap sort into decreasing order,
    carrying ``ib`` along (:func:`idrisk.synthesis.rng.revsort`)."""
    n = x.shape[0] - 1
    if n <= 1:
        return
    l_ = (n >> 1) + 1
    ir = n
    while True:
        if l_ > 1:
            l_ -= 1
            ra = x[l_]
            ii = ib[l_]
        else:
            ra = x[ir]
            ii = ib[ir]
            x[ir] = x[1]
            ib[ir] = ib[1]
            ir -= 1
            if ir == 1:
                x[1] = ra
                ib[1] = ii
                return
        i = l_
        j = l_ << 1
        while j <= ir:
            if j < ir and x[j] > x[j + 1]:
                j += 1
            if ra > x[j]:
                x[i] = x[j]
                ib[i] = ib[j]
                i = j
                j += j
            else:
                j = ir + 1
        x[i] = ra
        ib[i] = ii


@_jit
def weighted_picks(probs, u, out):
    """R's ``sample(k, 1, prob = p)`` for every row ``p`` of ``probs`` with the uniform
    ``u[row]``: p normalised by the sum of its positive entries (R's ``FixupProb``), sorted
    decreasingly by ``revsort``, the first class whose cumulative probability reaches u.
    Returns the first invalid row (a non-finite or negative entry, or none positive), or -1."""
    k = probs.shape[1]
    x = np.empty(k + 1)
    ib = np.empty(k + 1, dtype=np.int64)
    for r in range(probs.shape[0]):
        total = 0.0
        npos = 0
        for j in range(k):
            v = probs[r, j]
            if not np.isfinite(v) or v < 0:
                return r
            if v > 0:
                total += v
                npos += 1
        if npos == 0:
            return r
        for j in range(k):
            x[j + 1] = probs[r, j] / total
            ib[j + 1] = j
        revsort(x, ib)
        cum = 0.0
        pick = ib[k]
        for j in range(k - 1):
            cum += x[j + 1]
            if u[r] <= cum:
                pick = ib[j + 1]
                break
        out[r] = pick
    return -1
