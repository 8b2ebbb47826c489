"""R's ``round(x, digits)`` (R >= 4.0.0), the one rounding of the package: synthpop's
rounding of smoothed values (:mod:`idrisk.synthesis.smoothing`) and the tables R prints
rounded (:mod:`idrisk._rtext`, :mod:`idrisk._rdisclosure`)."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["r_round", "r_round_one"]


def r_round(x: np.ndarray, digits: int) -> np.ndarray:
    """R's ``round(x, digits)`` (R >= 4.0.0). For ``digits >= 1``: of the two neighbours
    ``floor(x * 10^d) / 10^d`` and ``ceil(x * 10^d) / 10^d`` the nearer one (ties to the even
    last digit), and ``x`` itself when it has no more than 15 significant digits to spare
    (``log10|x| + digits > 15``, with R's cheap ``log10``). ``numpy.round`` scales and rounds
    instead, so ``round(12.345, 2)`` is 12.35 in R and 12.34 in numpy. ``digits <= 0``
    rounds half to even, as R does.

    Examples
    --------
    >>> r_round(np.array([12.345, 2.675, 0.285, -1.005, 12.3, 1.15]), 2).tolist()
    [12.35, 2.67, 0.28, -1.0, 12.3, 1.15]
    >>> r_round(np.array([1.15, 2.5]), 1).tolist(), r_round(np.array([2.5, 3.5]), 0).tolist()
    ([1.1, 2.5], [2.0, 4.0])
    """
    x = np.asarray(x, dtype=float)
    if digits <= 0:
        return np.rint(x) if digits == 0 else np.round(x, digits)
    out = x.copy()
    a = np.abs(x)
    ok = np.isfinite(x) & (x != 0)
    with np.errstate(divide="ignore"):
        l10x = np.log10(2.0) * (0.5 + np.floor(np.log2(np.where(ok, a, 1.0))))
    todo = ok & (l10x + digits <= 15)
    if not todo.any():
        return out
    pow10 = 1.0
    for _ in range(digits):  # R_pow_di: repeated multiplication
        pow10 *= 10.0
    v = a[todo]
    x10 = v * pow10
    i10 = np.floor(x10)
    down = i10 / pow10
    up = np.ceil(x10) / pow10
    du, dd = up - v, v - down
    pick_up = (du < dd) | ((np.fmod(i10, 2.0) == 1) & (du == dd))
    out[todo] = np.sign(x[todo]) * np.where(pick_up, up, down)
    return out


def r_round_one(x: float, digits: int) -> float:
    """:func:`r_round` of one number (NaN and infinities unchanged).

    Examples
    --------
    >>> r_round_one(1.15, 1), r_round_one(12.345, 2), r_round_one(float("nan"), 2)
    (1.1, 12.35, nan)
    """
    x = float(x)
    return float(r_round(np.array([x]), digits)[0]) if math.isfinite(x) else x
