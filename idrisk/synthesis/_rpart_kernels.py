"""Compiled (numba) node work of :class:`idrisk.synthesis.rpart_tree.RpartTree`.

Each kernel follows rpart's C code (``anova.c``, ``gini.c``, ``bsplit.c``, ``surrogate.c``,
``mysort.c``): node evaluation, the split search over the sorted predictors, the surrogate
search and rpart's quicksort; :mod:`idrisk.synthesis._rpart_grow` grows the whole tree with
them (``partition.c``, ``nodesplit.c``). Every
floating-point sum is accumulated in rpart's order with the same operations (and no
fast-math), so the trees are R's bit for bit (``tests/rcompat/test_rpart_engine.py``,
``tests/synthesis/test_cart_engines.py``).

Layout: ``xt`` is the predictor matrix transposed (one row per predictor, NaN = missing,
factor levels coded 1..nc); ``sorts`` holds, per predictor, the node's rows in that
predictor's sort order (one row per predictor, all of the same length).
"""

from __future__ import annotations

import numpy as np

from .._numba import jit as _jit

__all__ = [
    "eval_anova",
    "eval_class",
    "mysort",
]

LEFT, RIGHT = -1, 1
_STACK = 128  # quicksort segments pending: the smaller side is sorted first, so <= log2(n)


# --------------------------------------------------------------------------- helpers
@_jit
def _seqsum(a):
    """Left-to-right sum starting from ``a[0]`` (as ``np.cumsum(a)[-1]``)."""
    if a.shape[0] == 0:
        return 0.0
    s = a[0]
    for i in range(1, a.shape[0]):
        s += a[i]
    return s


@_jit
def _impurity(p):
    return p * (1.0 - p)


@_jit
def _gather(xt, v, order, y, xs, ys):
    """Non-missing values of predictor ``v`` (and their y) in ``order``; their count."""
    m = 0
    for i in range(order.shape[0]):
        r = order[i]
        xv = xt[v, r]
        if not np.isnan(xv):
            xs[m] = xv
            ys[m] = y[r]
            m += 1
    return m


@_jit
def _stable_order(keys, use):
    """Indices with ``use`` true, stably sorted by ``keys`` (insertion sort, ``>`` moves)."""
    idx = np.empty(keys.shape[0], dtype=np.int64)
    m = 0
    for j in range(keys.shape[0]):
        if not use[j]:
            continue
        k = m
        while k > 0 and keys[idx[k - 1]] > keys[j]:
            idx[k] = idx[k - 1]
            k -= 1
        idx[k] = j
        m += 1
    return idx[:m]


# ------------------------------------------------------------------------------ eval
@_jit
def eval_anova(y, order):
    """(mean, sum of squares) of ``y[order]`` accumulated in ``order``."""
    n = order.shape[0]
    s = y[order[0]]
    for i in range(1, n):
        s += y[order[i]]
    mean = s / n
    d = y[order[0]] - mean
    risk = d * d
    for i in range(1, n):
        d = y[order[i]] - mean
        risk += d * d
    return mean, risk


@_jit
def eval_class(y, order, numclass, loss, prior):
    """(class number 1.., misclassification risk, class counts) of ``y[order]``."""
    freq = np.zeros(numclass)
    for i in range(order.shape[0]):
        freq[y[order[i]]] += 1.0
    dev = 0.0
    best = 0
    for i in range(numclass):
        temp = 0.0
        for j in range(numclass):
            temp += freq[j] * loss[j, i] * prior[j]
        if i == 0 or temp < dev:
            best = i
            dev = temp
    return float(best + 1), dev, freq


# ------------------------------------------------------------------------ anova split
@_jit
def _anova_numeric(y, x, edge, myrisk):
    """(improve, cut, direction) of the best cut of sorted ``x`` (improve 0: none)."""
    n = y.shape[0]
    grandmean = _seqsum(y) / n
    best = 0.0
    where = -1
    best_left = 0.0
    left = 0.0
    for i in range(n - 1):
        dev = y[i] - grandmean
        left = dev if i == 0 else left + dev
        if i >= edge - 1 and i <= n - edge - 1 and x[i + 1] != x[i]:
            lw = float(i + 1)
            rw = float(n) - lw
            sq = left * left
            temp = sq / lw + sq / rw
            if temp > best:
                best = temp
                where = i
                best_left = left
    if where < 0:
        return 0.0, np.nan, 0
    direction = LEFT if best_left < -best_left else RIGHT
    return best / myrisk, (x[where] + x[where + 1]) / 2, direction


@_jit
def _anova_factor(y, x, nc, edge, myrisk, csplit):
    """Best split of the levels ordered by mean y; fills ``csplit``; improve (0: none)."""
    n = y.shape[0]
    grandmean = _seqsum(y) / n
    sums = np.zeros(nc)
    countn = np.zeros(nc, dtype=np.int64)
    for i in range(n):
        c = np.int64(x[i]) - 1
        sums[c] += y[i] - grandmean
        countn[c] += 1
    means = np.zeros(nc)
    present = countn > 0
    tsplit = np.zeros(nc, dtype=np.int64)
    for j in range(nc):
        if present[j]:
            means[j] = sums[j] / countn[j]
            tsplit[j] = RIGHT
    best = 0.0
    found = False
    left_sum = 0.0
    left_n = 0
    for j in _stable_order(means, present):
        tsplit[j] = LEFT
        left_n += countn[j]
        right_n = n - left_n
        left_sum += sums[j]
        right_sum = -left_sum
        if left_n >= edge and right_n >= edge:
            temp = left_sum * left_sum / left_n + right_sum * right_sum / right_n
            if temp > best:
                best = temp
                found = True
                sign = -1 if left_sum > right_sum else 1
                for k in range(nc):
                    csplit[k] = sign * tsplit[k]
    return best / myrisk, found


@_jit
def _best_split(xt, y, sorts, ncat, edge, iscale, csplit, myrisk, numclass, aprior):
    """rpart's ``bsplit``: the best split over every predictor under one splitting rule.

    ``aprior`` None: the anova rule (numba compiles this function once per rule: the test on
    ``None`` is resolved at compile time, so no function is passed around and the kernels
    cache); else the Gini rule with these altered priors. Returns ``(found, improve, var,
    cut, direction, iscale)``; a factor split's directions are left in ``csplit[:ncat[var]]``.
    """
    p, k = sorts.shape
    xs = np.empty(k)
    ys = np.empty(k, y.dtype)
    work = np.zeros(csplit.shape[0], dtype=np.int64)
    found = False
    best = 0.0
    best_var = -1
    best_cut = np.nan
    best_dir = 0
    for v in range(p):
        m = _gather(xt, v, sorts[v], y, xs, ys)
        nc = ncat[v]
        if m == 0 or (nc == 0 and xs[0] == xs[m - 1]):
            continue
        cut = np.nan
        direction = 0
        has_cs = False
        if aprior is None:
            if nc == 0:
                improve, cut, direction = _anova_numeric(ys[:m], xs[:m], edge, myrisk)
            else:
                improve, has_cs = _anova_factor(ys[:m], xs[:m], nc, edge, myrisk, work)
        elif nc == 0:
            improve, cut, direction = _gini_numeric(ys[:m], xs[:m], edge, numclass, aprior)
        else:
            improve, has_cs = _gini_factor(ys[:m], xs[:m], nc, edge, numclass, aprior, work)
        if improve > iscale:
            iscale = improve
        if improve > iscale * 1e-10 and (not found or improve > best):
            found = True
            best, best_var, best_cut, best_dir = improve, v, cut, direction
            if nc > 0 and has_cs:
                csplit[:nc] = work[:nc]
    return found, best, best_var, best_cut, best_dir, iscale


# ------------------------------------------------------------------------- gini split
@_jit
def _gini_total(y, aprior, numclass):
    """(class counts, total prior weight, total impurity) of a node's rows ``y``."""
    n = y.shape[0]
    right = np.zeros(numclass)
    aw = np.empty(n)
    for i in range(n):
        right[y[i]] += 1.0
        aw[i] = aprior[y[i]]
    rwt = _seqsum(aw)
    total_ss = 0.0
    for i in range(numclass):
        temp = aprior[i] * right[i] / rwt
        total_ss += rwt * _impurity(temp)
    return right, aw, rwt, total_ss


@_jit
def _gini_score(left, right, lwt, rwt, aprior, numclass):
    """(impurity, left class score, right class score) of a candidate split."""
    temp = 0.0
    lmean = 0.0
    rmean = 0.0
    for j in range(numclass):
        p = aprior[j] * left[j] / lwt
        temp += lwt * _impurity(p)
        lmean += p * j
        p = aprior[j] * right[j] / rwt
        temp += rwt * _impurity(p)
        rmean += p * j
    return temp, lmean, rmean


@_jit
def _gini_numeric(y, x, edge, numclass, aprior):
    """(improve, cut, direction) of the best cut of sorted ``x`` by the Gini rule."""
    n = y.shape[0]
    right, aw, rwt, total_ss = _gini_total(y, aprior, numclass)
    best = total_ss
    where = -1
    best_dir = 0
    left = np.zeros(numclass)
    rightm = np.empty(numclass)
    lw = 0.0
    rw = rwt
    for i in range(n - 1):
        left[y[i]] += 1.0
        lw = aw[i] if i == 0 else lw + aw[i]
        rw = rw - aw[i]
        if i >= edge - 1 and i <= n - edge - 1 and x[i + 1] != x[i]:
            for j in range(numclass):
                rightm[j] = right[j] - left[j]
            temp, lmean, rmean = _gini_score(left, rightm, lw, rw, aprior, numclass)
            if temp < best:
                best = temp
                where = i
                best_dir = LEFT if lmean < rmean else RIGHT
    if where < 0:
        return 0.0, np.nan, 0
    improve = total_ss - best
    if improve <= 0:
        return 0.0, np.nan, 0
    return improve, (x[where] + x[where + 1]) / 2, best_dir


@_jit
def _gray_order(countn, rate, ordered):
    """Levels changing sides, in rpart's order (``_gray_sequence`` of rpart_tree)."""
    nc = countn.shape[0]
    if ordered:
        return _stable_order(rate, countn > 0)
    gray = np.zeros(nc, dtype=np.int64)
    for i in range(nc):
        if countn[i] != 0:
            gray[i] = 1
    seq = []
    while True:
        i = 0
        while i < nc:
            if gray[i] == 1:
                gray[i] = 2
                break
            if gray[i] == 2:
                gray[i] = 1
            i += 1
        if i >= nc:
            break
        seq.append(i)
    out = np.empty(len(seq), dtype=np.int64)
    for j in range(len(seq)):
        out[j] = seq[j]
    return out


@_jit
def _gini_factor(y, x, nc, edge, numclass, aprior, csplit):
    """Best subset split of the levels by the Gini rule; fills ``csplit``; improve."""
    n = y.shape[0]
    right, aw, rwt, total_ss = _gini_total(y, aprior, numclass)
    best = total_ss
    ccnt = np.zeros((numclass, nc))
    awt = np.zeros(nc)
    countn = np.zeros(nc, dtype=np.int64)
    for i in range(n):
        c = np.int64(x[i]) - 1
        ccnt[y[i], c] += 1.0
        awt[c] += aw[i]
        countn[c] += 1
    tsplit = np.zeros(nc, dtype=np.int64)
    rate = np.zeros(nc)
    for j in range(nc):
        if awt[j] != 0:
            tsplit[j] = RIGHT
            rate[j] = ccnt[0, j] / awt[j]
    left = np.zeros(numclass)
    rightv = right.copy()
    lwt = 0.0
    rtot = n
    ltot = 0
    found = False
    for i in _gray_order(countn, rate, numclass == 2):
        if tsplit[i] == LEFT:
            tsplit[i] = RIGHT
            rwt += awt[i]
            lwt -= awt[i]
            rtot += countn[i]
            ltot -= countn[i]
            for j in range(numclass):
                rightv[j] += ccnt[j, i]
                left[j] -= ccnt[j, i]
        else:
            tsplit[i] = LEFT
            rwt -= awt[i]
            lwt += awt[i]
            rtot -= countn[i]
            ltot += countn[i]
            for j in range(numclass):
                rightv[j] -= ccnt[j, i]
                left[j] += ccnt[j, i]
        if ltot >= edge and rtot >= edge:
            temp, lmean, rmean = _gini_score(left, rightv, lwt, rwt, aprior, numclass)
            if temp < best:
                best = temp
                found = True
                sign = 1 if lmean < rmean else -1
                for k in range(nc):
                    csplit[k] = sign * tsplit[k]
    if not found:
        return 0.0, False
    return total_ss - best, True


# ------------------------------------------------------------------ surrogates, divide
@_jit
def _direction(xv, cut, direction, csplit, is_factor):
    if np.isnan(xv):
        return 0
    if is_factor:
        return csplit[np.int64(xv) - 1]
    return direction if xv < cut else -direction


@_jit
def _surrogate_numeric(x, y):
    """(found, agree, cut, direction) of the best agreeing cut of sorted ``x``."""
    m = x.shape[0]
    ll0 = 0
    rl0 = 0
    for i in range(m):
        if y[i] == LEFT:
            ll0 += 1
        elif y[i] == RIGHT:
            rl0 += 1
    if ll0 + rl0 < 4 or m < 2:
        return False, 0.0, np.nan, 0
    agree = max(ll0, rl0)
    best_k = -1
    best_dir = 0
    lb = 0
    rb = 0
    for k in range(m):
        if k >= 1 and lb + rb >= 2 and (ll0 - lb) + (rl0 - rb) >= 2 and x[k] != x[k - 1]:
            a_right = (ll0 - lb) + rb
            a_left = lb + (rl0 - rb)
            if a_right > agree:
                agree = a_right
                best_k = k
                best_dir = RIGHT
            elif a_left > agree:
                agree = a_left
                best_k = k
                best_dir = LEFT
        if y[k] == LEFT:
            lb += 1
        elif y[k] == RIGHT:
            rb += 1
    if best_k < 0:
        return False, 0.0, np.nan, 0
    return True, float(agree), (x[best_k] + x[best_k - 1]) / 2, best_dir


@_jit
def _surrogate_factor(x, y, nc, csplit):
    """(found, agree): each level to its better side, into ``csplit[:nc]``."""
    left = np.zeros(nc, dtype=np.int64)
    right = np.zeros(nc, dtype=np.int64)
    lsum = 0
    rsum = 0
    for i in range(x.shape[0]):
        c = np.int64(x[i]) - 1
        if y[i] == LEFT:
            left[c] += 1
            lsum += 1
        elif y[i] == RIGHT:
            right[c] += 1
            rsum += 1
    defdir = LEFT if lsum > rsum else RIGHT
    agree = 0
    lcount = 0
    rcount = 0
    for i in range(nc):
        csplit[i] = 0
        if left[i] == 0 and right[i] == 0:
            continue
        if left[i] < right[i] or (left[i] == right[i] and defdir == RIGHT):
            agree += right[i]
            csplit[i] = RIGHT
            lcount += left[i]
            rcount += right[i]
        else:
            agree += left[i]
            csplit[i] = LEFT
            lcount += right[i]
            rcount += left[i]
    if not (lcount > 1 and rcount > 1):
        return False, 0.0
    return True, float(agree)


@_jit
def _surrogates(xt, sorts, goes, ncat, var, lcount, rcount, maxsurrogate, sur_var, sur_cut,
                sur_dir, sur_cs, sur_agree, sur_adj):
    """rpart's ``surrogate`` search: fills the ``sur_*`` arrays, ranked; their number."""
    p, k = sorts.shape
    total = float(lcount + rcount)
    majority = float(max(lcount, rcount)) / total
    xs = np.empty(k)
    ys = np.empty(k, dtype=np.int64)
    cs = np.zeros(sur_cs.shape[1], dtype=np.int64)
    count = 0
    for v in range(p):
        if v == var:
            continue
        m = _gather(xt, v, sorts[v], goes, xs, ys)
        nc = ncat[v]
        cut = np.nan
        direction = 0
        if nc == 0:
            ok, agree, cut, direction = _surrogate_numeric(xs[:m], ys[:m])
        else:
            ok, agree = _surrogate_factor(xs[:m], ys[:m], nc, cs)
        if not ok:
            continue
        agreement = agree / total
        adj = (agreement - majority) / (1.0 - majority)
        if adj <= 1e-10:
            continue
        pos = 0  # insert_split: after the entries with an agreement >= this one
        while pos < count and not agreement > sur_agree[pos]:
            pos += 1
        if pos >= maxsurrogate:
            continue
        if pos == 0 and count == 2 and maxsurrogate == 2:
            # rpart's insert_split on a full list of two: a new best entry is kept alone (its
            # relinking drops both old entries), as R reports and routes with it
            count = 0
        last = min(count, maxsurrogate - 1)
        for q in range(last, pos, -1):
            sur_var[q] = sur_var[q - 1]
            sur_cut[q] = sur_cut[q - 1]
            sur_dir[q] = sur_dir[q - 1]
            sur_cs[q, :] = sur_cs[q - 1, :]
            sur_agree[q] = sur_agree[q - 1]
            sur_adj[q] = sur_adj[q - 1]
        sur_var[pos] = v
        sur_cut[pos] = cut
        sur_dir[pos] = direction
        sur_cs[pos, :] = 0
        if nc > 0:
            sur_cs[pos, :nc] = cs[:nc]
        sur_agree[pos] = agreement
        sur_adj[pos] = adj
        count = min(count + 1, maxsurrogate)
    return count


# ---------------------------------------------------------------------------- mysort
@_jit
def _insertion(x, cvec, start, stop):
    for i in range(start + 1, stop + 1):
        temp = x[i]
        tempd = cvec[i]
        j = i - 1
        while j >= start and x[j] > temp:
            x[j + 1] = x[j]
            cvec[j + 1] = cvec[j]
            j -= 1
        x[j + 1] = temp
        cvec[j + 1] = tempd


@_jit
def _median3(x, i, j, k):
    median = x[k]
    if x[i] >= x[k]:
        if x[j] > x[k]:
            median = x[j] if x[i] > x[j] else x[i]
    elif x[j] < x[k]:
        median = x[i] if x[i] > x[j] else x[j]
    return median


@_jit
def mysort(x, cvec):
    """rpart's ``mysort`` on ``x`` (in place), carrying ``cvec`` along.

    The segments are disjoint, so the order in which they are sorted does not change
    the result: the smaller side is sorted first and the larger waits on a stack.
    """
    stack = np.empty((_STACK, 2), dtype=np.int64)
    top = 0
    stack[0, 0] = 0
    stack[0, 1] = x.shape[0] - 1
    top = 1
    while top > 0:
        top -= 1
        start = stack[top, 0]
        stop = stack[top, 1]
        while start < stop:
            if stop - start < 11:
                _insertion(x, cvec, start, stop)
                break
            i = start
            j = stop
            median = _median3(x, i, j, (start + stop) // 2)
            while i < j:
                while x[i] < median:
                    i += 1
                while x[j] > median:
                    j -= 1
                if i < j:
                    if x[i] > x[j]:
                        x[i], x[j] = x[j], x[i]
                        cvec[i], cvec[j] = cvec[j], cvec[i]
                    i += 1
                    j -= 1
            while x[i] >= median and i > start:
                i -= 1
            while x[j] <= median and j < stop:
                j += 1
            if (i - start) < (stop - j):  # left part smaller: sort it first
                if stop > j:
                    stack[top, 0] = j
                    stack[top, 1] = stop
                    top += 1
                stop = i
            else:
                if i > start:
                    stack[top, 0] = start
                    stack[top, 1] = i
                    top += 1
                start = j
