"""Smoothing of synthesized numeric values, as synthpop's ``smoothing = "density"``.

:func:`bw_sj` is R's ``bw.SJ`` (Sheather-Jones bandwidth, binned pair counts and R's Brent
root finder); :func:`smooth_density` adds Gaussian kernel noise with that bandwidth, with
synthpop's guard against values above 70 % frequency, clipping to the observed range and
rounding to the data's decimal places. Noise comes from the stream's ``norm_rand`` (R's
inversion ``rnorm`` for an R-compatible stream).
"""

from __future__ import annotations

import numpy as np

__all__ = ["bw_sj", "smooth_density"]


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


def _phi(n: int, d: float, cnt: np.ndarray, h: float, six: bool) -> float:
    delta = (np.arange(cnt.size) * d / h) ** 2
    keep = np.flatnonzero(delta >= 1000)
    m = int(keep[0]) if keep.size else cnt.size
    delta = delta[:m]
    if six:
        term = np.exp(-delta / 2) * (delta**3 - 15 * delta**2 + 45 * delta - 15)
        tot = 2.0 * _seq_sum(term * cnt[:m]) - 15.0 * n
        return tot / (float(n) * (n - 1) * h**7.0) / np.sqrt(2 * np.pi)
    term = np.exp(-delta / 2.0) * (delta * delta - 6.0 * delta + 3.0)
    tot = 2.0 * _seq_sum(term * cnt[:m]) + n * 3.0
    return tot / (float(n) * (n - 1) * h**5.0) / np.sqrt(2 * np.pi)


def _seq_sum(a: np.ndarray) -> float:
    return float(np.cumsum(a)[-1]) if a.size else 0.0


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
    q1, q3 = np.percentile(x, [25, 75])
    scale = min(float(np.std(x, ddof=1)), (q3 - q1) / 1.349)
    a = 1.24 * scale * n ** (-1 / 7)
    b = 1.23 * scale * n ** (-1 / 9)
    c1 = 1 / (2 * np.sqrt(np.pi) * n)
    td = -_phi(n, d, cnt, b, six=True)
    if not np.isfinite(td) or td <= 0:
        raise ValueError("sample is too sparse to find TD (bw.SJ)")
    hmax = 1.144 * scale * n ** (-1 / 5)
    lower, upper = 0.1 * hmax, hmax
    tol = 0.1 * lower
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
    return float(_zeroin(fsd, lower, upper, fsd(lower), fsd(upper), tol))


def _decimal_places(v: float) -> int:
    if abs(v - round(v)) <= np.sqrt(np.finfo(float).eps):
        return 0
    txt = format(v, ".15g").rstrip("0")
    return len(txt.split(".")[1]) if "." in txt and "e" not in txt else 0


def smooth_density(ysyn, yobs, stream) -> np.ndarray:
    """synthpop's ``smoothing = "density"`` for one synthesised numeric variable.

    Missing values (NaN) of ``ysyn`` are set aside and stay where they are: only the other
    values are smoothed, by the rules below, against the non-missing ``yobs`` (synthpop's
    ``syn.sample`` smooths ``yp[!(yp %in% cont.na)]``, ``cont.na`` holding ``NA``).

    1. If one value holds more than 70 % of ``ysyn``, its rows are not smoothed.
    2. Top-coding check: if the count of the largest synthetic value exceeds the
       count of the second largest by more than 10 times the latter, rows equal
       to ``max(yobs)`` are not smoothed.
    3. The other rows get Gaussian noise, ``rnorm(mean = y, sd = bw)`` with
       ``bw = bw_sj(those values)`` (one normal per row, in row order).
    4. They are clipped to ``[min(yobs), max(yobs)]`` and rounded to the largest
       number of decimal places seen in ``yobs``.

    Parameters
    ----------
    ysyn, yobs : array-like
        Synthetic and observed values (NaN: missing).
    stream : RStream or NumpyStream
        Source of the normal draws.

    Returns
    -------
    numpy.ndarray
    """
    y = np.asarray(ysyn, dtype=float).copy()
    yo = np.asarray(yobs, dtype=float)
    yo = yo[~np.isnan(yo)]
    present = ~np.isnan(y)
    if not present.all():  # smooth the values that are there; the NAs stay in their rows
        if present.any():
            y[present] = smooth_density(y[present], yo, stream)
        return y
    vals, counts = np.unique(y, return_counts=True)
    use = np.ones(y.size, dtype=bool)
    if counts.max() / counts.sum() > 0.7:
        use &= y != vals[np.argmax(counts)]
    if counts.size >= 2 and 10 * counts[-2] < counts[-1] - counts[-2]:
        use &= y != yo.max()
    idx = np.flatnonzero(use)
    if idx.size < 2 or np.unique(y[idx]).size < 2:
        return y
    bw = bw_sj(y[idx])
    y[idx] = y[idx] + bw * stream.norm_rand(idx.size)
    y[idx] = np.clip(y[idx], yo.min(), yo.max())
    digits = max((_decimal_places(v) for v in np.unique(yo)), default=0)
    y[idx] = np.round(y[idx], digits)
    return y
