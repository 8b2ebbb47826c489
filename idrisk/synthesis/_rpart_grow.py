"""Compiled growing of a whole rpart tree: rpart's ``partition`` in one call (numba).

:func:`grow` runs rpart's recursion (``partition.c``) on an explicit stack: evaluate the node,
stop (too few rows, complexity bound at most cp x root risk, depth), find the best split
(:func:`idrisk.synthesis._rpart_kernels._best_split`), divide the rows with surrogates, grow
the left child, then the right, then collapse the node when its weakest-link complexity is at
most cp x root risk. The arithmetic is the same as in rpart's C code and in the same order.

The node's rows live in segments of one array per predictor order (``sorts``) and of the row
numbers (``rows``): dividing a node partitions its segment in place, stably, into the left
child's rows, the right child's rows and the rows stuck at the node (no direction). Nodes get
slots in creation order (pre-order); a collapsed node's subtree is the run of slots after it,
which is freed.
"""

from __future__ import annotations

import numpy as np

from .._numba import jit as _jit
from ._rpart_kernels import _best_split, _direction, _surrogates, eval_anova, eval_class

__all__ = ["grow"]

LEFT, RIGHT = -1, 1


@_jit
def _partition_segment(seg, goes, tmp, nl, nr):
    """Stable in-place partition of ``seg`` by ``goes``: its ``nl`` left rows, then its ``nr``
    right rows, then the stuck rows (one pass into ``tmp``, copied back)."""
    a = 0
    b = nl
    c = nl + nr
    for i in range(seg.shape[0]):
        r = seg[i]
        d = goes[r]
        if d == LEFT:
            tmp[a] = r
            a += 1
        elif d == RIGHT:
            tmp[b] = r
            b += 1
        else:
            tmp[c] = r
            c += 1
    for i in range(seg.shape[0]):
        seg[i] = tmp[i]


@_jit
def _divide(xt, sorts, rows, ncat, var, cut, direction, csplit, maxsurrogate, usesurrogate,
            goes, tmp, sur_var, sur_cut, sur_dir, sur_cs, sur_agree, sur_adj):
    """rpart's ``nodesplit`` on a node's segments: (majority, surrogates found, left rows,
    right rows); the segments are partitioned in place, the surrogates left in ``sur_*``."""
    is_factor = ncat[var] > 0
    lcount = 0
    rcount = 0
    for r in rows:
        d = _direction(xt[var, r], cut, direction, csplit, is_factor)
        goes[r] = d
        if d == LEFT:
            lcount += 1
        elif d == RIGHT:
            rcount += 1
    # rpart's lastsurrogate is set by its surrogate search alone: none without surrogates
    majority = RIGHT if lcount < rcount else (LEFT if lcount > rcount else 0)
    if maxsurrogate == 0:
        majority = 0
    nsur = 0
    if maxsurrogate > 0:
        nsur = _surrogates(xt, sorts, goes, ncat, var, lcount, rcount, maxsurrogate, sur_var,
                           sur_cut, sur_dir, sur_cs, sur_agree, sur_adj)
    if usesurrogate > 0:
        for r in rows:
            if goes[r] != 0:
                continue
            d = 0
            for s in range(nsur):
                sv = sur_var[s]
                d = _direction(xt[sv, r], sur_cut[s], sur_dir[s], sur_cs[s], ncat[sv] > 0)
                if d != 0:
                    break
            if d == 0 and usesurrogate == 2:
                d = majority
            goes[r] = d
    nl = 0
    nr = 0
    for r in rows:
        if goes[r] == LEFT:
            nl += 1
        elif goes[r] == RIGHT:
            nr += 1
    _partition_segment(rows, goes, tmp, nl, nr)
    for v in range(sorts.shape[0]):
        _partition_segment(sorts[v], goes, tmp, nl, nr)
    return majority, nsur, nl, nr


@_jit
def _evaluate(y, order, numclass, loss, prior, aprior, counts):
    """(yval, risk) of a node's rows (``order``); class counts into ``counts``."""
    if aprior is None:
        return eval_anova(y, order)
    yval, risk, freq = eval_class(y, order, numclass, loss, prior)
    counts[:] = freq
    return yval, risk


@_jit
def _new_node(s, num, k, a, cpx, number, nobs, start, complexity, var, split, cut, direction,
              csplit, improve, majority, nsur, left, right):
    """Slot ``s`` as a new node (number ``num``, ``k`` rows from ``a``, complexity ``cpx``):
    a freed slot may hold an old node's fields."""
    number[s] = num
    nobs[s] = k
    start[s] = a
    complexity[s] = cpx
    var[s] = -1
    split[s] = False
    cut[s] = np.nan
    direction[s] = 0
    csplit[s, :] = 0
    improve[s] = 0.0
    majority[s] = 0
    nsur[s] = 0
    left[s] = -1
    right[s] = -1


@_jit
def grow(xt, y, sorts, ncat, edge, minsplit, cp, maxnode, maxsurrogate, usesurrogate,
         numclass, loss, prior, aprior, cap):
    """Grow the tree of ``y`` on the predictors ``xt`` (one row per predictor) as rpart does.

    ``sorts`` (one row per predictor, each a sort order of all rows) is reordered in place.
    ``aprior`` None: the anova rule; else the Gini rule with these altered priors (class
    trees: ``loss``, ``prior``, ``numclass``). Returns the node arrays, one entry per slot
    ``0 .. count - 1`` in pre-order (see :meth:`RpartTree._grow`), and each row's node.

    ``cap``: the node slots allocated (see :func:`node_capacity`); a tree that needs more
    raises ``ValueError`` (the caller grows again with ``2 n + 1``, which always suffices).
    Level directions are stored as int8 (-1, 0, 1): the per-slot level tables are the
    largest arrays (slots x surrogates x levels).
    """
    p = sorts.shape[0]
    n = y.shape[0]
    width = 1
    for v in range(p):
        width = max(width, ncat[v])
    ms = max(1, maxsurrogate)
    number = np.zeros(cap, dtype=np.int64)
    nobs = np.zeros(cap, dtype=np.int64)
    start = np.zeros(cap, dtype=np.int64)
    risk = np.zeros(cap)
    yval = np.zeros(cap)
    complexity = np.zeros(cap)
    var = np.full(cap, -1, dtype=np.int64)
    split = np.zeros(cap, dtype=np.bool_)  # a split was found (a leaf if it collapsed)
    cut = np.full(cap, np.nan)
    direction = np.zeros(cap, dtype=np.int64)
    csplit = np.zeros((cap, width), dtype=np.int8)
    improve = np.zeros(cap)
    majority = np.zeros(cap, dtype=np.int64)
    nsur = np.zeros(cap, dtype=np.int64)
    svar = np.zeros((cap, ms), dtype=np.int64)
    scut = np.zeros((cap, ms))
    sdir = np.zeros((cap, ms), dtype=np.int64)
    scs = np.zeros((cap, ms, width), dtype=np.int8)
    sagree = np.zeros((cap, ms))
    sadj = np.zeros((cap, ms))
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    nright = np.zeros(cap, dtype=np.int64)
    counts = np.zeros((cap, max(1, numclass)))
    rows = np.arange(n)
    goes = np.zeros(n, dtype=np.int64)
    tmp = np.empty(n, dtype=np.int64)
    cbuf = np.zeros(width, dtype=np.int64)
    t_var = np.zeros(ms, dtype=np.int64)
    t_cut = np.zeros(ms)
    t_dir = np.zeros(ms, dtype=np.int64)
    t_cs = np.zeros((ms, width), dtype=np.int64)
    t_agree = np.zeros(ms)
    t_adj = np.zeros(ms)

    number[0] = 1
    nobs[0] = n
    root_order = sorts[0] if p > 0 else rows
    yv, rk = _evaluate(y, root_order, numclass, loss, prior, aprior, counts[0])
    yval[0] = yv
    risk[0] = rk
    complexity[0] = risk[0]
    alpha = cp * risk[0]
    iscale = 0.0
    count = 1
    # the stack of nodes being partitioned: slot, phase, the left subtree's (splits, risk)
    st_slot = np.zeros(64, dtype=np.int64)
    st_phase = np.zeros(64, dtype=np.int64)
    st_lsplit = np.zeros(64, dtype=np.int64)
    st_lrisk = np.zeros(64)
    top = 1
    ret_split = 0
    ret_risk = 0.0
    while top > 0:
        s = st_slot[top - 1]
        phase = st_phase[top - 1]
        a = start[s]
        k = nobs[s]
        if phase == 0:
            if s > 0:
                order = sorts[0, a:a + k] if p > 0 else rows[a:a + k]
                yv, rk = _evaluate(y, order, numclass, loss, prior, aprior, counts[s])
                yval[s] = yv
                risk[s] = rk
                tempcp = complexity[s] if complexity[s] < risk[s] else risk[s]
            else:
                tempcp = risk[s]
            found = False
            imp = 0.0
            bv = -1
            bcut = np.nan
            bdir = 0
            if not (k < minsplit or tempcp <= alpha or number[s] > maxnode):
                found, imp, bv, bcut, bdir, iscale = _best_split(
                    xt, y, sorts[:, a:a + k], ncat, edge, iscale, cbuf, risk[s], numclass,
                    aprior)
            if not found:
                complexity[s] = alpha
                ret_split = 0
                ret_risk = risk[s]
                top -= 1
                continue
            split[s] = True
            improve[s] = imp
            var[s] = bv
            nc = ncat[bv]
            if nc > 0:
                csplit[s, :nc] = cbuf[:nc]
            else:
                cut[s] = bcut
                direction[s] = bdir
            maj, ns, nl, nr = _divide(xt, sorts[:, a:a + k], rows[a:a + k], ncat, bv, cut[s],
                                      direction[s], csplit[s], maxsurrogate, usesurrogate,
                                      goes, tmp, t_var, t_cut, t_dir, t_cs, t_agree, t_adj)
            majority[s] = maj
            nsur[s] = ns
            for i in range(ns):
                svar[s, i] = t_var[i]
                scut[s, i] = t_cut[i]
                sdir[s, i] = t_dir[i]
                scs[s, i, :] = t_cs[i, :]
                sagree[s, i] = t_agree[i]
                sadj[s, i] = t_adj[i]
            if count + 2 > cap:  # both children's slots
                raise ValueError("rpart tree: more nodes than the slots allocated")
            kid = count
            count += 1
            _new_node(kid, 2 * number[s], nl, a, tempcp - alpha, number, nobs, start,
                      complexity, var, split, cut, direction, csplit, improve, majority, nsur,
                      left, right)
            left[s] = kid
            nright[s] = nr
            st_phase[top - 1] = 1
            st_slot[top] = kid
            st_phase[top] = 0
            top += 1
        elif phase == 1:
            lk = left[s]
            st_lsplit[top - 1] = ret_split
            st_lrisk[top - 1] = ret_risk
            tempcp = (risk[s] - ret_risk) / (ret_split + 1)
            tempcp2 = risk[s] - risk[lk]
            if tempcp < tempcp2:
                tempcp = tempcp2
            if tempcp > complexity[s]:
                tempcp = complexity[s]
            kid = count
            count += 1
            _new_node(kid, 2 * number[s] + 1, nright[s], a + nobs[lk], tempcp - alpha, number,
                      nobs, start, complexity, var, split, cut, direction, csplit, improve,
                      majority, nsur, left, right)
            right[s] = kid
            st_phase[top - 1] = 2
            st_slot[top] = kid
            st_phase[top] = 0
            top += 1
        else:
            lk = left[s]
            rk = right[s]
            left_split = st_lsplit[top - 1]
            left_risk = st_lrisk[top - 1]
            right_split = ret_split
            right_risk = ret_risk
            tempcp = (risk[s] - (left_risk + right_risk)) / (left_split + right_split + 1)
            if complexity[rk] > complexity[lk]:
                if tempcp > complexity[lk]:
                    left_risk = risk[lk]
                    left_split = 0
                    tempcp = (risk[s] - (left_risk + right_risk)) / (left_split + right_split
                                                                     + 1)
                    if tempcp > complexity[rk]:
                        right_risk = risk[rk]
                        right_split = 0
            elif tempcp > complexity[rk]:
                right_split = 0
                right_risk = risk[rk]
                tempcp = (risk[s] - (left_risk + right_risk)) / (left_split + right_split + 1)
                if tempcp > complexity[lk]:
                    left_risk = risk[lk]
                    left_split = 0
            complexity[s] = (risk[s] - (left_risk + right_risk)) / (left_split + right_split
                                                                    + 1)
            if complexity[s] <= alpha:  # collapse (a leaf keeps its split's fields)
                left[s] = -1
                right[s] = -1
                count = s + 1
                ret_split = 0
                ret_risk = risk[s]
            else:
                ret_split = left_split + right_split + 1
                ret_risk = left_risk + right_risk
            top -= 1
    where = np.empty(n, dtype=np.int64)
    for s in range(count):
        a = start[s]
        if left[s] < 0:  # a leaf
            lo = a
        else:  # the rows stuck at an internal node: its segment after both children
            lo = a + nobs[left[s]] + nobs[right[s]]
        for i in range(lo, a + nobs[s]):
            where[rows[i]] = number[s]
    return (count, number, nobs, risk, yval, complexity, var, split, cut, direction, csplit,
            improve, majority, nsur, svar, scut, sdir, scs, sagree, sadj, left, right, counts,
            where)


def node_capacity(n: int, minbucket: int) -> int:
    """Node slots for a tree of ``n`` rows: every child of a split holds at least
    ``minbucket`` rows, so a tree has at most ``n // minbucket`` leaves and twice as many
    nodes (``2 n + 1`` is the bound for any ``minbucket``)."""
    return min(2 * n + 1, 2 * (n // max(1, minbucket)) + 3)
