"""The one description of a radius: the ball ``B(x, r)`` around a value.

Every radius in idrisk -- :func:`idrisk.identification_risk`, the risk weights of
:mod:`idrisk.weighted.weights` and :class:`idrisk.weighted.RiskWeightedSynthesizer` -- is
described by the same four words:

``r``
    The radius (a non-negative number).
``percentage``
    True: the half-width is ``r * x`` (relative to the value, 0.2 = 20%); False: it is ``r``
    (absolute, in the variable's units).
``abs_radius``
    Only with ``percentage=True``: the half-width is ``r * |x|`` instead of ``r * x``. With
    ``r * x`` (R's rule) the ball around a negative value has a negative half-width and holds
    nothing; ``abs_radius`` makes it the mirror image of the ball around ``|x|``.
``closed``
    True: ``|x - y| <= d`` (closed ball); False: ``|x - y| < d`` (R's open ball, empty when
    ``d <= 0``).

The defaults differ by measure, not by meaning: :func:`idrisk.identification_risk` follows
the R package (``percentage=True, abs_radius=False, closed=False``), the risk weights follow
the papers' ``B(y, r) = [y - r|y|, y + r|y|]`` (``percentage=True, abs_radius=True,
closed=True``).

Examples
--------
>>> lo, hi = ball_bounds([100.0, -10.0], 0.2)          # the papers' ball (closed, r|y|)
>>> lo.tolist(), hi.tolist()
([80.0, -12.0], [120.0, -8.0])
>>> in_ball([79.0, 80.0, 119.0], [100.0] * 3, 0.2).tolist()
[False, True, True]
>>> in_ball([80.0, 100.0], [100.0, 100.0], 0.2, closed=False).tolist()   # open: 80 is out
[False, True]
>>> in_ball([-10.0], [-10.0], 0.2, abs_radius=False).tolist()  # R: r*x < 0, empty ball
[False]
"""

from __future__ import annotations

import numpy as np

__all__ = ["ball_bounds", "half_width", "in_ball"]


def half_width(x, r, *, percentage: bool = True, abs_radius: bool = False) -> np.ndarray:
    """Half-width ``d`` of the ball around each value: ``r*x``, ``r*|x|`` or ``r``.

    ``r`` broadcasts against ``x`` (one radius per column of a 2-d ``x``, say). The product
    is computed exactly as ``r * x`` so that it equals R's ``r * x`` bit for bit.

    Examples
    --------
    >>> half_width([10.0, -10.0], 0.1).tolist()
    [1.0, -1.0]
    >>> half_width([10.0, -10.0], 0.1, abs_radius=True).tolist()
    [1.0, 1.0]
    >>> half_width([10.0, -10.0], 2.0, percentage=False).tolist()
    [2.0, 2.0]
    """
    arr = np.asarray(x, dtype=np.float64)
    radius = np.asarray(r, dtype=np.float64)
    if percentage:
        return radius * (np.abs(arr) if abs_radius else arr)
    return np.array(np.broadcast_to(radius, np.broadcast_shapes(radius.shape, arr.shape)),
                    dtype=np.float64)


def _check_r(r) -> float:
    r_value = r  # not narrowed by np.isscalar below
    if (isinstance(r, bool) or not np.isscalar(r) or not np.isfinite(r_value)
            or r_value < 0):
        raise ValueError(f"r must be a non-negative number, got {r!r}")
    return float(r_value)


def ball_bounds(
    x, r: float, *, percentage: bool = True, abs_radius: bool = True, closed: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Bounds ``(lo, hi) = (x - d, x + d)`` of the ball around each value.

    The ball is ``[lo, hi]`` when ``closed`` and ``(lo, hi)`` otherwise. A ball that holds
    nothing (``d < 0``, or ``d == 0`` with an open ball) is returned as ``(inf, inf)``, so
    that counting "values below lo" and "values above hi" counts every value as outside.

    Parameters
    ----------
    x : array-like
        The centres.
    r : float
        Radius, non-negative.
    percentage : bool
        True: the half-width is ``r * x`` (relative, 0.2 = 20%); False: ``r`` (absolute).
    abs_radius : bool
        Only with ``percentage=True``: ``r * |x|`` instead of R's ``r * x``.
    closed : bool
        True: ``[lo, hi]``; False: ``(lo, hi)`` (R's open ball).

    The defaults are the papers' ball of the risk weights, ``[x - r|x|, x + r|x|]``;
    :func:`idrisk.identification_risk` defaults to R's ``(x - r x, x + r x)``.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)

    Examples
    --------
    >>> [b.tolist() for b in ball_bounds([100.0, -10.0], 0.2)]
    [[80.0, -12.0], [120.0, -8.0]]
    >>> [b.tolist() for b in ball_bounds([-10.0], 0.2, abs_radius=False)]
    [[inf], [inf]]
    >>> [b.tolist() for b in ball_bounds([5.0], 1.0, percentage=False)]
    [[4.0], [6.0]]
    """
    arr = np.asarray(x, dtype=np.float64)
    d = half_width(arr, _check_r(r), percentage=percentage, abs_radius=abs_radius)
    lo, hi = arr - d, arr + d
    empty = (d < 0) | ((d == 0) & (not closed))
    if np.any(empty):
        lo = np.where(empty, np.inf, lo)
        hi = np.where(empty, np.inf, hi)
    return lo, hi


def in_ball(
    y, x, r: float, *, percentage: bool = True, abs_radius: bool = True, closed: bool = True
) -> np.ndarray:
    """Whether each ``y`` lies in the ball around the matching ``x`` (straight comparison).

    Examples
    --------
    >>> in_ball([9.0, 11.0], [10.0, 10.0], 0.1).tolist()
    [True, True]
    >>> in_ball([9.0, 11.0], [10.0, 10.0], 0.1, closed=False).tolist()
    [False, False]
    """
    lo, hi = ball_bounds(x, r, percentage=percentage, abs_radius=abs_radius, closed=closed)
    yv = np.asarray(y, dtype=np.float64)
    if closed:
        return (yv >= lo) & (yv <= hi)
    return (yv > lo) & (yv < hi)
