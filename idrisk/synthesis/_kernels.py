"""Compiled loops of R's index draws (numba; ``pip install 'idrisk[fast]'``).

Each kernel consumes a given array of raw 32-bit Mersenne-Twister words exactly as the
Python code in :mod:`idrisk.synthesis.rng` does (R's rejection sampling, ``R_unif_index``),
and reports how many words it used, or -1 when the words ran out (the caller then retries
with more). The numbers drawn are therefore identical with and without numba.
"""

from __future__ import annotations

import numpy as np

__all__ = ["HAVE_NUMBA", "permutation_draws", "unif_index_groups"]

try:  # pragma: no cover - depends on the environment
    import numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    numba = None
    HAVE_NUMBA = False


def _jit(func):
    if not HAVE_NUMBA:  # pragma: no cover
        return func
    return numba.njit(cache=True, nogil=True)(func)


@_jit
def _bits(n):
    """ceil(log2(n)) for n >= 1."""
    b = 0
    while (1 << b) < n:
        b += 1
    return b


@_jit
def unif_index_groups(words, ns, sizes, out):
    """``sizes[g]`` draws of ``R_unif_index(ns[g])`` for every group g in turn, into ``out``
    (groups one after the other). Returns the number of words used, or -1 if too few."""
    p = 0
    total = words.shape[0]
    o = 0
    for g in range(ns.shape[0]):
        n = ns[g]
        bits = _bits(n)
        per_try = bits // 16 + 1
        mask = (1 << bits) - 1
        for _ in range(sizes[g]):
            while True:
                if p + per_try > total:
                    return -1
                v = 0
                for _c in range(per_try):
                    v = v * 65536 + (words[p] >> 16)
                    p += 1
                v &= mask
                if v < n:
                    break
            out[o] = v
            o += 1
    return p


@_jit
def permutation_draws(words, n, size, keep, out):
    """R's ``sample.int(n, size)`` (swap with last) into ``out`` (if ``keep``).

    Returns the number of words used, or -1 if too few.
    """
    p = 0
    total = words.shape[0]
    x = np.arange(n if keep else 0)
    for i in range(size):
        m = n - i
        bits = _bits(m) if m > 1 else 0
        mask = (1 << bits) - 1
        per_try = bits // 16 + 1
        while True:
            if p + per_try > total:
                return -1
            v = 0
            for _c in range(per_try):
                v = 65536 * v + (words[p] >> 16)
                p += 1
            v &= mask
            if v < m:
                break
        if keep:
            out[i] = x[v]
            x[v] = x[m - 1]
    return p


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
