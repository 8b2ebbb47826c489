"""Hypothesis strategy shared by the engine tests: random identification-risk problems.

Categorical columns as object or category dtype with NA, a label that only later synthetic
datasets have (R turns it into NA), continuous values on a small grid (ties on interval
boundaries, -0.0, zeros, negatives, NaN), shuffled column order, every option.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import strategies as st

LABELS = ["a", "b", "c", None]
LATER = ["a", "b", "c", "d", None]  # "d": a level only the synthetic data has
GRID = [-3.0, -1.0, -0.0, 0.0, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 10.0, 12.5, np.nan]


@st.composite
def risk_problems(draw):
    """(orig, syns, call) where call holds known, syn, r and the options."""
    n = draw(st.integers(1, 24))
    m = draw(st.integers(1, 3))
    n_cat = draw(st.integers(0, 3))
    n_num = draw(st.integers(0, 3))
    if n_cat + n_num == 0:
        n_num = 1
    names = [f"k{i}" for i in range(n_cat)] + [f"x{i}" for i in range(n_num)]
    order = draw(st.permutations(names))
    as_category = {c: draw(st.booleans()) for c in names if c.startswith("k")}

    def column(name, size, labels):
        if name.startswith("k"):
            values = draw(st.lists(st.sampled_from(labels), min_size=size, max_size=size))
            out = pd.Series(values, dtype=object)
            return out.astype("category") if as_category[name] else out
        values = draw(st.lists(st.sampled_from(GRID), min_size=size, max_size=size))
        return pd.Series(values, dtype=float)

    index = pd.RangeIndex(n) if draw(st.booleans()) else pd.Index([f"r{i}" for i in range(n)])
    orig = pd.DataFrame({c: column(c, n, LABELS) for c in order}).set_axis(index)
    syns = []
    for _ in range(m):
        frame = orig.copy()
        for c in order:
            if draw(st.booleans()):
                frame[c] = column(c, n, LATER).to_numpy()
        syns.append(frame)
    flags = draw(st.lists(st.booleans(), min_size=len(order), max_size=len(order)))
    known = [c for c, f in zip(order, flags) if f]
    syn = [c for c, f in zip(order, flags) if not f]
    if not syn:
        syn, known = known[-1:], known[:-1]
    percentage = draw(st.booleans())
    pool = [0.1, 0.25, 0.5, 1.0] if percentage else [0.0, 0.5, 1.0, 2.0, 2.5]
    n_cont = sum(1 for c in order if c.startswith("x") and c in known + syn)
    r_kind = draw(st.sampled_from(["none", "scalar", "vector"]))
    if r_kind == "none":
        r = None
    elif r_kind == "scalar" or n_cont < 2:
        r = draw(st.sampled_from(pool))
    else:
        r = draw(st.lists(st.sampled_from(pool), min_size=n_cont, max_size=n_cont))
    ellipsoid = draw(st.booleans())
    options = dict(
        percentage=percentage,
        euclidean_dist=(not ellipsoid) and draw(st.booleans()),
        closed=draw(st.booleans()),
        abs_radius=draw(st.booleans()),
        ellipsoid=ellipsoid,
        na_matches=draw(st.booleans()),
    )
    return orig, syns, dict(known=known, syn=syn, r=r, **options)
