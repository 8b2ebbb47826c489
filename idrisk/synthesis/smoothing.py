"""Smoothing of synthesized numeric values, as synthpop's ``smoothing = "density"``.

:func:`bw_sj` is R's ``bw.SJ`` (Sheather-Jones bandwidth, binned pair counts and R's Brent
root finder); :func:`smooth_density` adds Gaussian kernel noise with that bandwidth, with
synthpop's guard against values above 70 % frequency, its top-coding check, clipping to
``[min(yobs), max(yobs) + bw]`` (``max(yobs)`` when top-coded) and rounding to synthpop's count
of decimal places (of ``x - floor(x)`` as R writes it: 15 for 12.3). Noise comes from the
stream's ``norm_rand`` (R's inversion ``rnorm`` for an R-compatible stream).
"""

from __future__ import annotations

import math
import re

import numpy as np

from .._rround import r_round
from .._rtext import r_label
from ..exceptions import InputError
from ..risk._rsums import _rmean

__all__ = ["bw_sj", "decimal_places", "smooth_density"]


def _bw_pair_counts(x: np.ndarray, nb: int) -> tuple[float, np.ndarray]:
    """R's ``bw_pair_cnts``: bin width and binned pairwise-distance counts."""
    n = x.size
    if n > nb / 2:  # binned version (R >= 3.4 for n > nb / 2)
        d = (x.max() - x.min()) * 1.01 / nb
        xx = np.trunc(np.abs(x) / d) * np.sign(x)
        xx = (xx - xx.min() + 1).astype(np.int64)
        w = np.bincount(xx[xx <= nb], minlength=nb + 1)[1:nb + 1].astype(float)
        cnt = np.correlate(w, w, mode="full")[nb - 1:].copy()  # sum_j w[j] w[j + k]
        cnt[0] = 0.5 * float(np.sum(w * (w - 1.0)))
        return float(d), cnt
    dd = (x.max() - x.min()) * 1.01 / nb
    ii = (x / dd).astype(np.int64)  # C's (int) truncation
    diff = np.abs(ii[:, None] - ii[None, :])[np.tril_indices(n, -1)]
    return float(dd), np.bincount(diff, minlength=nb).astype(float)[:nb]


_M_1_SQRT_2PI = 0.398942280401432677939946059934  # C's M_1_SQRT_2PI


def _phi(n: int, d: float, cnt: np.ndarray, h: float, six: bool) -> float:
    """R's ``bw_phi4`` / ``bw_phi6`` (R 4.2), term by term in R's order (libm's ``exp``, a
    running sum, a division by ``n (n - 1) h^k`` and a product with ``1 / sqrt(2 pi)``), so the
    bandwidth is R's to the last bit (checked against ``C_bw_phi4`` / ``C_bw_phi6``)."""
    counts = cnt.tolist()
    total = 0.0
    for i, c in enumerate(counts):
        delta = i * d / h
        delta *= delta
        if delta >= 1000:
            break
        if six:
            term = math.exp(-delta / 2) * (delta * delta * delta - 15 * delta * delta
                                           + 45 * delta - 15)
        else:
            term = math.exp(-delta / 2) * (delta * delta - 6 * delta + 3)
        total += term * c
    if six:
        total = 2 * total - 15 * n
        return total / (float(n) * (n - 1) * math.pow(h, 7.0)) * _M_1_SQRT_2PI
    total = 2 * total + n * 3
    return total / (float(n) * (n - 1) * math.pow(h, 5.0)) * _M_1_SQRT_2PI


def _r_sd(x: np.ndarray) -> float:
    """R's ``sd(x)``: the mean and the sum of squares accumulated in long double, in order.
    As R's ``cov.c``, the mean is rounded to a double and each deviation is taken and squared
    in long double (squaring the double deviations put ``sd`` one ulp off R's at times)."""
    dev = x.astype(np.longdouble) - np.longdouble(_rmean(x))  # (R's mean, as a double)
    ss = np.cumsum(dev * dev)[-1]
    return math.sqrt(float(ss / (x.size - 1)))


def _r_quantile7(x: np.ndarray, prob: float) -> float:
    """R's ``quantile(x, prob, type = 7)``: ``(1 - h) x[lo] + h x[hi]``."""
    xs = np.sort(x)
    index = 1 + (xs.size - 1) * prob
    lo, hi = math.floor(index), math.ceil(index)
    q = float(xs[lo - 1])
    if index > lo and xs[hi - 1] != q:
        h = index - lo
        q = (1 - h) * q + h * float(xs[hi - 1])
    return q


def _zeroin(f, ax: float, bx: float, fa: float, fb: float, tol: float,
            maxit: int = 1000) -> float:
    """R's ``R_zeroin2`` (Brent's root finder), the engine of ``uniroot``."""
    eps = np.finfo(float).eps
    a, b, c, fc = ax, bx, ax, fa
    if fa == 0.0:
        return a
    if fb == 0.0:
        return b
    for _ in range(maxit + 1):
        prev_step = b - a
        if abs(fc) < abs(fb):
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol_act = 2 * eps * abs(b) + tol / 2
        new_step = (c - b) / 2
        if abs(new_step) <= tol_act or fb == 0.0:
            return b
        if abs(prev_step) >= tol_act and abs(fa) > abs(fb):
            cb = c - b
            if a == c:
                t1 = fb / fa
                p = cb * t1
                q = 1.0 - t1
            else:
                q = fa / fc
                t1 = fb / fc
                t2 = fb / fa
                p = t2 * (cb * q * (q - t1) - (b - a) * (t1 - 1.0))
                q = (q - 1.0) * (t1 - 1.0) * (t2 - 1.0)
            if p > 0:
                q = -q
            else:
                p = -p
            if p < (0.75 * cb * q - abs(tol_act * q) / 2) and p < abs(prev_step * q / 2):
                new_step = p / q
        if abs(new_step) < tol_act:
            new_step = tol_act if new_step > 0 else -tol_act
        a, fa = b, fb
        b += new_step
        fb = f(b)
        if (fb > 0 and fc > 0) or (fb < 0 and fc < 0):
            c, fc = a, fa
    return b


def bw_sj(x, nb: int = 1000) -> float:
    """Sheather-Jones bandwidth as R's ``bw.SJ(x)`` (``method = "ste"``).

    Binned pairwise distances (``nb`` bins), R's bounds and search-interval
    widening, and R's Brent root finder with ``tol = 0.1 * lower``.

    Parameters
    ----------
    x : array-like
        At least two finite values.
    nb : int
        Number of bins.

    Returns
    -------
    float

    Examples
    --------
    >>> round(bw_sj([1.0, 2.0, 2.5, 4.0, 7.0, 7.5, 8.0, 11.0]), 6)  # R: bw.SJ(x)
    1.675645
    """
    x = np.asarray(x, dtype=float)
    n = x.size
    if n < 2 or not np.all(np.isfinite(x)):
        raise ValueError("bw_sj needs at least 2 finite values")
    d, cnt = _bw_pair_counts(x, int(nb))
    iqr = _r_quantile7(x, 0.75) - _r_quantile7(x, 0.25)
    scale = min(_r_sd(x), iqr / 1.349)
    a = 1.24 * scale * n ** (-1 / 7)
    b = 1.23 * scale * n ** (-1 / 9)
    if not b > 0:  # scale 0 (IQR 0): R's TD is NaN and bw.SJ stops
        raise ValueError("sample is too sparse to find TD (bw.SJ)")
    c1 = 1 / (2 * np.sqrt(np.pi) * n)
    td = -_phi(n, d, cnt, b, six=True)
    if not np.isfinite(td) or td <= 0:
        raise ValueError("sample is too sparse to find TD (bw.SJ)")
    hmax = 1.144 * scale * n ** (-1 / 5)
    lower, upper = 0.1 * hmax, hmax
    alph2 = 1.357 * (_phi(n, d, cnt, a, six=False) / td) ** (1 / 7)
    if not np.isfinite(alph2):
        raise ValueError("sample is too sparse to find alph2 (bw.SJ)")

    def fsd(h: float) -> float:
        return (c1 / _phi(n, d, cnt, alph2 * h ** (5 / 7), six=False)) ** (1 / 5) - h

    itry = 1
    while fsd(lower) * fsd(upper) > 0:
        if itry > 99:
            raise ValueError("no solution in the specified range of bandwidths (bw.SJ)")
        if itry % 2:
            upper *= 1.2
        else:
            lower /= 1.2
        itry += 1
    tol = 0.1 * lower  # R's lazy default: the lower bound after any widening
    return float(_zeroin(fsd, lower, upper, fsd(lower), fsd(upper), tol))


def decimal_places(v: float) -> int:
    """synthpop's ``decimalplaces``: the digits after the point of R's ``as.character`` of the
    fractional part ``v - floor(v)`` (15 significant digits), so 12.3 counts 15 places
    (``0.300000000000001``) and 12.34 counts 2; 0 for a whole number.

    Examples
    --------
    >>> [decimal_places(v) for v in (12.3, 0.5, 12.34, 3.0, -1.7, 100.01)]
    [15, 1, 2, 0, 1, 16]
    """
    frac = v - np.floor(v)
    if np.isnan(frac) or frac % 1 == 0 or round(frac, 15) % 1 == 0:
        return 0
    text = r_label(float(frac))
    parts = re.sub("0+$", "", text).split(".")
    if len(parts) < 2:  # R writes it as 1e-05: synthpop's strsplit(...)[[1]][[2]] fails
        raise InputError(
            f"synthpop cannot count the decimal places of {v!r}: R writes its fractional part "
            f"as {text!r} (synthpop's decimalplaces stops with 'subscript out of bounds')")
    return len(parts[1])


def _r_table(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R's ``table(y)`` of numbers: the labels' values (``as.numeric(names(...))``) and counts,
    in increasing order; values that ``as.character`` writes alike are one cell."""
    vals, counts = np.unique(y, return_counts=True)
    labels = [r_label(float(v)) for v in vals]
    keys: list[str] = []
    merged: list[int] = []
    for lab, c in zip(labels, counts.tolist()):
        if keys and keys[-1] == lab:
            merged[-1] += c
        else:
            keys.append(lab)
            merged.append(c)
    return np.array([float(k) for k in keys]), np.array(merged)


def smooth_density(ysyn, yobs, stream) -> np.ndarray:
    """synthpop's ``smoothing = "density"`` (``syn.smooth``) for one synthesised numeric variable.

    Missing values (NaN) of ``ysyn`` are set aside and stay where they are: only the other
    values are smoothed, by the rules below, against the non-missing ``yobs`` (synthpop's
    ``syn.sample`` smooths ``yp[!(yp %in% cont.na)]``, ``cont.na`` holding ``NA``).

    1. If one value (one cell of R's ``table``) holds more than 70 % of ``ysyn``, its rows
       are not smoothed.
    2. Top-coding check: if the count of the largest synthetic value exceeds the count of
       the second largest by more than 10 times the latter, the data are top-coded: the
       rows equal to ``max(yobs)`` are not smoothed (synthpop drops them by position from
       the rows kept by rule 1, ``ys[-which(ysyn == max(yobs))]``, and so does this; when no
       synthetic value is ``max(yobs)`` that leaves no row, and synthpop stops) and
       the upper bound is ``max(yobs)``; otherwise the upper bound is ``max(yobs) + bw``.
    3. The other rows get Gaussian noise, ``rnorm(mean = y, sd = bw)`` with
       ``bw = bw_sj(those values)`` (one normal per row, in row order).
    4. They are clipped to ``[min(yobs), upper bound]`` and rounded (R's ``round``, see
       ``r_round``) to the largest ``decimal_places`` of ``yobs`` -- 15 or more for
       values such as 12.3, which leaves them in effect unrounded.

    Where synthpop stops with an error, so does this (:class:`~idrisk.exceptions.InputError`,
    saying what synthpop does): the synthetic values are all one value (or none), fewer than
    two are left by rules 1 and 2, or those left have no bandwidth (all equal).

    Parameters
    ----------
    ysyn, yobs : array-like
        Synthetic and observed values (NaN: missing).
    stream : RStream or NumpyStream
        Source of the normal draws.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    InputError
        Where synthpop's ``syn.smooth`` stops.
    """
    y = np.asarray(ysyn, dtype=float).copy()
    yo = np.asarray(yobs, dtype=float)
    yo = yo[~np.isnan(yo)]
    present = ~np.isnan(y)
    if not present.all():  # smooth the values that are there; the NAs stay in their rows
        if present.any():
            y[present] = smooth_density(y[present], yo, stream)
        return y
    vals, counts = _r_table(y)
    if counts.size < 2:  # R: table(ysyn)[length - 1] is empty, if () gets logical(0)
        what = "no values" if y.size == 0 else f"one value only ({vals[0]!r})"
        raise InputError(
            f"smoothing='density': the synthetic values hold {what}; synthpop's syn.smooth "
            "stops here with the error 'argument is of length zero'")
    ys = np.arange(y.size)
    top = vals[np.argmax(counts)]
    if counts.max() / counts.sum() > 0.7:
        ys = np.flatnonzero(y != top)
    upper = None
    if counts.size >= 2 and 10 * counts[-2] < counts[-1] - counts[-2]:
        drop = np.flatnonzero(y == yo.max())
        # R's ys[-which(...)]: by position, and no rows at all when no value is max(yobs)
        ys = np.delete(ys, drop[drop < ys.size]) if drop.size else ys[:0]
        upper = float(yo.max())
    if ys.size < 2:
        raise InputError(
            f"smoothing='density': {ys.size} synthetic value(s) left to smooth after synthpop's "
            "rules for a value above 70 % and for top-coding; synthpop's syn.smooth stops here "
            "with the error 'need at least 2 points to select a bandwidth automatically'")
    if np.unique(y[ys]).size < 2:
        raise InputError(
            f"smoothing='density': the {ys.size} synthetic values left to smooth are all equal; "
            "synthpop's syn.smooth stops here with bw.SJ's error 'sample is too sparse to find "
            "TD'")
    try:
        bw = bw_sj(y[ys])
    except ValueError as err:  # all equal ("too sparse to find TD"), or no root
        raise InputError(
            f"smoothing='density': no Sheather-Jones bandwidth for the {ys.size} synthetic "
            f"values left to smooth; synthpop's syn.smooth stops here with R's error "
            f"({err})") from err
    y[ys] = y[ys] + bw * stream.norm_rand(ys.size)
    if upper is None:
        upper = float(yo.max()) + bw
    y[ys] = np.maximum(np.minimum(y[ys], upper), yo.min())
    digits = max((decimal_places(float(v)) for v in np.unique(yo)), default=0)
    y[ys] = r_round(y[ys], digits)
    return y
