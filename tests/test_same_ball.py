"""One radius, one ball: every public entry point that draws a ball around a value draws the
same one for the same ``r``, ``percentage``, ``abs_radius`` and ``closed``.

The entry points: :func:`idrisk.identification_risk` (a synthetic value matches a
confidential record when it lies in the ball around the confidential value), the ball itself
(:func:`idrisk.weighted.weights.ball_bounds`), the risk weights
(:func:`idrisk.weighted.weights.confidential_marginal_risk`, :func:`risk_weights`) and the
risk-weighted synthesizer's weights (:meth:`RiskWeightedSynthesizer.compute_weights`). Each
answers "is y in the ball around x?" for a grid of centres x and values y, including the
bounds themselves, and every answer is compared with the definition written out below.
"""

from __future__ import annotations

import inspect
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from idrisk import identification_risk
from idrisk.weighted import RiskWeightedSynthesizer
from idrisk.weighted.weights import ball_bounds, confidential_marginal_risk, risk_weights

BALLS = [dict(percentage=p, abs_radius=a, closed=c)
         for p, a, c in itertools.product([True, False], repeat=3)
         if p or not a]  # abs_radius only means something with percentage=True
CENTRES = [-20.0, -3.0, 0.0, 2.5, 10.0, 100.0]
RADII = [0.0, 0.2, 1.5]


def definition(y: float, x: float, r: float, percentage: bool, abs_radius: bool,
               closed: bool) -> bool:
    """The glossary's words, literally: half-width d = r*|x|, r*x or r; y within d of x,
    compared as R does, against the bounds ``x - d`` and ``x + d`` (``|x - y| <= d`` can
    round the other way at a bound)."""
    d = (r * abs(x) if abs_radius else r * x) if percentage else r
    return x - d <= y <= x + d if closed else x - d < y < x + d


def candidates(x: float, r: float, ball: dict) -> list[float]:
    """Values around x: the bounds themselves, just inside and outside them, x, far away."""
    d = abs(r * x) if ball["percentage"] else r
    pts = {x, x - 1000.0, x + 1000.0, x + 0.5 * d, x - 0.5 * d}
    for b in (x - r * x, x + r * x, x - r * abs(x), x + r * abs(x), x - r, x + r):
        pts.update({b, np.nextafter(b, np.inf), np.nextafter(b, -np.inf)})
    return sorted(pts)


def via_identification_risk(x: float, ys: list[float], r: float, ball: dict) -> np.ndarray:
    """One confidential record, one synthetic dataset per y: the record's risk is 1 exactly
    when the synthetic value is in the ball (c = 1, T = 1), else 0 (c = 0: R's T = 1, risk 0)."""
    conf = pd.DataFrame({"k": ["a"], "v": [x]})
    syn = [pd.DataFrame({"k": ["a"], "v": [y]}) for y in ys]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = identification_risk(conf, syn, known=["k"], syn=["v"], r=r, progress=False,
                                  **ball)
    return np.asarray(res.exp_risk, dtype=float) == 1.0


def _outside_share(values: list[float], r: float, ball: dict) -> float:
    return float(confidential_marginal_risk(values, [0] * len(values), r, **ball).iloc[0])


def via_weights(x: float, ys: list[float], r: float, ball: dict) -> np.ndarray:
    """``IR_c`` of x in the pattern {x, y} counts y when it is outside x's ball."""
    own = _outside_share([x], r, ball)  # x itself is outside an empty ball
    return np.array([2 * _outside_share([x, y], r, ball) - own == 0 for y in ys])


def via_risk_weights(x: float, ys: list[float], r: float, ball: dict) -> np.ndarray:
    own = 1 - risk_weights([x], [0], r, weighting="marginal", **ball).iloc[0]
    return np.array([2 * (1 - risk_weights([x, y], [0, 0], r, weighting="marginal",
                                           **ball).iloc[0]) - own == 0 for y in ys])


def via_synthesizer(x: float, ys: list[float], r: float, ball: dict) -> np.ndarray:
    rws = RiskWeightedSynthesizer(syn="v", known=["k"], weighting="marginal", r=r, **ball)
    own = 1 - rws.compute_weights(pd.DataFrame({"v": [x], "k": ["a"]})).iloc[0]
    out = []
    for y in ys:
        alpha = rws.compute_weights(pd.DataFrame({"v": [x, y], "k": ["a", "a"]})).iloc[0]
        out.append(2 * (1 - alpha) - own == 0)
    return np.array(out)


def via_bounds(x: float, ys: list[float], r: float, ball: dict) -> np.ndarray:
    lo, hi = (float(b[0]) for b in ball_bounds([x], r, **ball))
    y = np.asarray(ys)
    return (lo <= y) & (y <= hi) if ball["closed"] else (lo < y) & (y < hi)


ENTRY_POINTS = {"identification_risk": via_identification_risk, "ball_bounds": via_bounds,
                "confidential_marginal_risk": via_weights, "risk_weights": via_risk_weights,
                "RiskWeightedSynthesizer.compute_weights": via_synthesizer}


@pytest.mark.parametrize("ball", BALLS, ids=lambda b: ",".join(f"{k}={v}" for k, v in b.items()))
@pytest.mark.parametrize("r", RADII)
def test_every_entry_point_draws_the_same_ball(ball, r):
    for x in CENTRES:
        ys = candidates(x, r, ball)
        expected = np.array([definition(y, x, r, **ball) for y in ys])
        for name, entry in ENTRY_POINTS.items():
            got = entry(x, ys, r, ball)
            bad = [y for y, g, e in zip(ys, got, expected, strict=True) if g != e]
            assert not bad, f"{name}: x={x}, r={r}, {ball}: disagrees at y={bad}"


def test_the_defaults_are_the_documented_ones():
    """identification_risk keeps R's ball (open, r*x); the weights the papers' (closed,
    r*|y|); the synthesizer the weights'."""
    def defaults(fn, names=("percentage", "abs_radius", "closed")):
        params = inspect.signature(fn).parameters
        return {n: params[n].default for n in names}

    from idrisk import RiskOptions

    r_side = {n: getattr(RiskOptions(syn=["v"]), n) for n in ("percentage", "abs_radius",
                                                              "closed")}
    assert r_side == {"percentage": True, "abs_radius": False, "closed": False}
    papers = {"percentage": True, "abs_radius": True, "closed": True}
    for fn in (risk_weights, confidential_marginal_risk, ball_bounds,
               RiskWeightedSynthesizer.__init__):
        assert defaults(fn) == papers, fn
    assert "kind" not in inspect.signature(risk_weights).parameters


def test_abs_radius_is_never_an_absolute_radius():
    """The old meaning of the weights' abs_radius (an absolute radius) is gone: with r = 10
    and abs_radius=True the ball around 50 is +-1000 % (percentage), not +-10."""
    lo, hi = ball_bounds([50.0], 10.0, abs_radius=True)
    assert (lo[0], hi[0]) == (-450.0, 550.0)
    lo, hi = ball_bounds([50.0], 10.0, percentage=False)
    assert (lo[0], hi[0]) == (40.0, 60.0)
