"""A plain O(n^2 m) reference for identification risk, written straight from the spec.

It loops over every (target, synthetic record) pair and shares no code with idrisk's engine,
so the fast path can be checked against it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def _is_text(s: pd.Series) -> bool:
    return not (pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype))


def _label(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return str(v)


def reference_risk(
    orig,
    syns,
    known,
    syn,
    r=None,
    percentage=True,
    euclidean_dist=False,
    closed=False,
    abs_radius=False,
    ellipsoid=False,
    na_matches=True,
):
    used = set(known) | set(syn)
    cols = [c for c in orig.columns if c in used]
    cat = [c for c in cols if r is None or _is_text(orig[c])]
    cont = [c for c in cols if c not in cat]
    if r is None:
        radii = {}
    elif np.ndim(r) == 0:
        radii = {c: float(r) for c in cont}
    else:
        radii = dict(zip(cont, [float(v) for v in r]))
    levels = {
        c: {_label(v) for v in orig[c]} | {_label(v) for v in syns[0][c]} - {None}
        for c in cat
        if _is_text(orig[c])
    }
    n, m = len(orig), len(syns)

    def cat_value(frame, c, i):
        v = frame[c].iloc[i]
        if c in levels:
            lab = _label(v)
            return lab if lab in levels[c] else None
        v = float(v) if v is not None and not pd.isna(v) else None
        return v

    def half_width(i):
        d = {}
        for c in cont:
            x = float(orig[c].iloc[i]) if not pd.isna(orig[c].iloc[i]) else math.nan
            base = abs(x) if abs_radius else x
            d[c] = radii[c] * base if percentage else radii[c]
        if euclidean_dist:
            dk = math.sqrt(sum(d[c] * d[c] for c in cont if c in known))
            ds = math.sqrt(dk + sum(d[c] * d[c] for c in cont if c in syn))
            d = {c: dk if c in known else ds for c in cont}
        return d

    def matches(i, frame, k, d):
        for c in cat:
            a, b = cat_value(orig, c, i), cat_value(frame, c, k)
            if a is None or b is None or a != b:
                return False
        total = 0.0
        for c in cont:
            x = float(orig[c].iloc[i]) if not pd.isna(orig[c].iloc[i]) else math.nan
            y = float(frame[c].iloc[k]) if not pd.isna(frame[c].iloc[k]) else math.nan
            lo, hi = x - d[c], x + d[c]
            if any(math.isnan(v) for v in (x, y, lo, hi)):
                if not na_matches:
                    return False
                continue  # NA never excludes in R
            inside = (lo <= y <= hi) if closed else (lo < y < hi)
            if not inside:
                return False
            if ellipsoid:
                if d[c] > 0:
                    total += ((y - x) / d[c]) ** 2
                elif not (closed and d[c] == 0 and y == x):
                    return False
        if ellipsoid and not (total <= 1 if closed else total < 1):
            return False
        return True

    c_mat = np.zeros((n, m), dtype=np.int64)
    t_mat = np.zeros((n, m), dtype=np.int64)
    for j, frame in enumerate(syns):
        for i in range(n):
            d = half_width(i)
            hits = [k for k in range(n) if matches(i, frame, k, d)]
            c_mat[i, j] = len(hits)
            t_mat[i, j] = 1 if (i in hits or not hits) else 0
    risk = np.where(c_mat > 0, t_mat / np.maximum(c_mat, 1), 0.0)
    k_mat = (c_mat * t_mat == 1).astype(np.int64)
    f_mat = (c_mat * (1 - t_mat) == 1).astype(np.int64)
    s = (c_mat == 1).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        false_rate = f_mat.sum(axis=0) / s
    exp_risk = np.array([sum(risk[:, j].tolist()) for j in range(m)])
    return {
        "c_vector": c_mat,
        "T_vector": t_mat,
        "K_vector": k_mat,
        "F_vector": f_mat,
        "Risk_vector": risk,
        "s_vector": s,
        "exp.risk_vector": exp_risk,
        "true.rate_vector": k_mat.sum(axis=0) / n,
        "false.rate_vector": false_rate,
    }


def brute_force_numpy(orig, syns, known, syn, r=None, percentage=True, euclidean_dist=False,
                      block=512):
    """R's algorithm shape: every target against every synthetic record, O(n^2) per dataset.

    Vectorised with numpy in row blocks (so it is usable as a timing baseline on CE-sized data);
    shares only the input preparation with idrisk, not the counting.
    """
    from idrisk.risk._prepare import prepare_inputs
    from idrisk.risk.matching import half_widths
    from idrisk.risk.options import RiskOptions
    from idrisk.risk.result import IdentificationRiskResult

    prep = prepare_inputs(orig, syns, RiskOptions(known=known, syn=syn, r=r))
    n, m = prep.n, prep.m
    x = prep.cont_orig if prep.radii is not None else np.empty((n, 0))
    if prep.radii is not None:
        radii = np.array([prep.radii[c] for c in prep.continuous])
        d = half_widths(x, radii, percentage=percentage, euclidean_dist=euclidean_dist,
                        known=prep.cont_known)
    else:
        d = x
    lo, hi = x - d, x + d
    c = np.zeros((n, m), dtype=np.int64)
    own = np.zeros((n, m), dtype=bool)
    for j in range(m):
        ys = prep.cont_syn[j] if prep.radii is not None else np.empty((n, 0))
        cs = prep.cat_syn[j]
        for start in range(0, n, block):
            stop = min(start + block, n)
            ok = np.ones((stop - start, n), dtype=bool)
            for v in range(cs.shape[1]):
                a = prep.cat_orig[start:stop, v][:, None]
                ok &= (a == cs[None, :, v]) & (a >= 0)
            for v in range(ys.shape[1]):
                yv = ys[None, :, v]
                ok &= ~((yv <= lo[start:stop, v][:, None]) | (yv >= hi[start:stop, v][:, None]))
            c[start:stop, j] = ok.sum(axis=1)
            own[start:stop, j] = ok[np.arange(stop - start), np.arange(start, stop)]
    return IdentificationRiskResult.from_counts(c, own, index=prep.index)
