"""R's sums of doubles for synthpop's disclosure measures (and ``sd``'s mean in synthpop's
smoothing, :mod:`idrisk.synthesis.smoothing`): ``sum()``, ``mean()`` and ``colSums()``
accumulate in long double, so their last bits differ from numpy's pairwise sums."""

from __future__ import annotations

import numpy as np

__all__: list[str] = []


def _rsum(x: np.ndarray) -> np.float64:
    """R's ``sum()`` of doubles: in column-major order, accumulated in long double."""
    flat = np.asarray(x, dtype=float).ravel(order="F")
    if not flat.size:
        return np.float64(0.0)
    return np.float64(np.cumsum(flat, dtype=np.longdouble)[-1])


def _rmean(x: object, whole: bool = False) -> float:
    """R's ``mean()`` of doubles: a long-double sum over n, then one correction pass
    (``whole``: the values are whole numbers, whose sum is exact in any order)."""
    v = np.asarray(x, dtype=float)
    if not v.size:
        return float("nan")
    total = np.longdouble(v.sum()) if whole else np.cumsum(v, dtype=np.longdouble)[-1]
    s = total / v.size
    if np.isfinite(s):
        s = s + np.cumsum(v.astype(np.longdouble) - s)[-1] / v.size
    return float(s)


def _colsums(x: np.ndarray) -> np.ndarray:
    """R's ``colSums()``: each column accumulated in long double, row after row. A column
    with at most one non-zero value sums to it exactly; only the others take long double."""
    x = np.asarray(x, dtype=float)
    out = x.sum(axis=0)
    seen = np.zeros(x.shape[1], dtype=bool)
    twice = seen.copy()
    for row in x != 0:
        twice |= seen & row
        seen |= row
    several = np.flatnonzero(twice)
    if several.size:
        acc = np.zeros(several.size, dtype=np.longdouble)
        for row in np.take(x, several, axis=1):
            acc += row
        out[several] = acc
    return out


def _total(counts: np.ndarray) -> np.float64:
    """R's ``sum()`` of whole numbers held as doubles: exact in any order below 2**53, so
    numpy's sum equals R's long-double one."""
    return np.float64(counts.sum())
