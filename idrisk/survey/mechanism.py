"""The pseudo posterior mechanism: Lipschitz bounds, privacy weights alpha and epsilon.

Following Hu, Savitsky & Williams, *Private tabular survey data products through synthetic
microdata generation* (after Savitsky, Williams & Hu's pseudo posterior mechanism):

1. from S posterior draws of an unweighted fit, record i's Lipschitz bound is
   ``Delta_i = max_s |log p(y_i | theta_s)|``;
2. ``alpha_i = c (1 - (Delta_i - min Delta) / (max Delta - min Delta)) + g`` clipped to
   [0, 1]; records with a non-finite log-likelihood get ``alpha_i = 0``;
3. the alpha-weighted fit's bound is ``Delta_alpha = max_i max_s |alpha_i log p(y_i | theta_s)|``;
4. releasing m synthetic datasets gives ``epsilon = 2 Delta_alpha m``.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

__all__ = [
    "alpha_weights",
    "epsilon",
    "find_alpha_scaling",
    "lipschitz_bounds",
    "weighted_lipschitz_bounds",
]


def _loglik(loglik) -> np.ndarray:
    ll = np.asarray(loglik, dtype=float)
    if ll.ndim != 2:
        raise ValueError(f"loglik must have shape (draws, records), got {ll.shape}")
    if ll.shape[0] == 0 or ll.shape[1] == 0:
        raise ValueError("loglik is empty")
    return ll


def lipschitz_bounds(loglik) -> np.ndarray:
    """Record-level Lipschitz bounds ``Delta_i = max_s |loglik[s, i]|``.

    A record with any non-finite log-likelihood gets ``inf``.

    Parameters
    ----------
    loglik : array, shape (draws, records)

    Examples
    --------
    >>> lipschitz_bounds([[-1.0, 0.5], [-2.0, -0.2]]).tolist()
    [2.0, 0.5]
    """
    ll = _loglik(loglik)
    out = np.max(np.abs(ll), axis=0)
    out[~np.all(np.isfinite(ll), axis=0)] = np.inf
    return out


def alpha_weights(delta, c: float = 1.0, g: float = 0.0) -> np.ndarray:
    """Privacy weights ``alpha_i = c (1 - (Delta_i - min) / (max - min)) + g`` in [0, 1].

    ``min`` and ``max`` are taken over the finite bounds; non-finite bounds get 0.  When
    every finite bound is equal the scaled term is 1 (``alpha = c + g`` clipped).

    Examples
    --------
    >>> alpha_weights([1.0, 2.0, 3.0, float("inf")]).tolist()
    [1.0, 0.5, 0.0, 0.0]
    >>> alpha_weights([1.0, 2.0, 3.0], c=0.5, g=0.1).round(3).tolist()
    [0.6, 0.35, 0.1]
    """
    d = np.asarray(delta, dtype=float)
    if d.ndim != 1 or d.size == 0:
        raise ValueError("delta must be a non-empty vector of record-level bounds")
    if not (np.isfinite(c) and np.isfinite(g)):
        raise ValueError(f"c and g must be finite, got c={c}, g={g}")
    ok = np.isfinite(d)
    out = np.zeros_like(d)
    if not ok.any():
        return out
    lo, hi = d[ok].min(), d[ok].max()
    scaled = np.ones(ok.sum()) if hi == lo else 1.0 - (d[ok] - lo) / (hi - lo)
    out[ok] = np.clip(c * scaled + g, 0.0, 1.0)
    return out


def weighted_lipschitz_bounds(loglik, alpha) -> np.ndarray:
    """Record-level bounds of the alpha-weighted fit, ``max_s |alpha_i loglik[s, i]|``.

    A record with ``alpha_i = 0`` has bound 0 even if its log-likelihood is not finite.

    Examples
    --------
    >>> weighted_lipschitz_bounds([[-1.0, 4.0], [-2.0, 1.0]], [0.5, 0.25]).tolist()
    [1.0, 1.0]
    """
    ll = _loglik(loglik)
    a = np.asarray(alpha, dtype=float)
    if a.shape != (ll.shape[1],):
        raise ValueError(f"alpha must have one value per record ({ll.shape[1]}), got {a.shape}")
    with np.errstate(invalid="ignore"):
        prod = np.abs(ll) * a[None, :]
    prod[:, a == 0] = 0.0
    out = np.max(prod, axis=0)
    out[np.isnan(out)] = np.inf
    return out


def epsilon(delta_alpha: float, m: int) -> float:
    """The (asymptotic) privacy budget of releasing m synthetic datasets: ``2 Delta_alpha m``.

    Examples
    --------
    >>> epsilon(1.8, 3)
    10.8
    """
    if not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m must be a positive integer, got {m!r}")
    if not np.isfinite(delta_alpha) or delta_alpha < 0:
        raise ValueError(f"delta_alpha must be a finite non-negative number, got {delta_alpha!r}")
    return float(round(2.0 * float(delta_alpha) * int(m), 12))


def find_alpha_scaling(
    delta, target_delta: float, *, c: float | None = None, g: float = 0.0, at=None
) -> tuple[float, float]:
    """Find ``(c, g)`` with ``max_i alpha_i(c, g) B_i = target_delta``.

    ``alpha_i(c, g)`` is :func:`alpha_weights` of the unweighted bounds ``delta``; ``B_i``
    is ``at`` when given (e.g. ``max_s |log p_i|`` under the current weighted fit's draws,
    for a refit) and ``delta`` otherwise.

    With ``c=None`` (default) the shift ``g`` is held and the scale ``c`` is solved for;
    with ``c`` given, ``g`` is solved for.  ``Delta`` should be the bounds the alpha-weighted
    fit will have at alpha = 1 -- in practice the unweighted fit's bounds, so the achieved
    ``Delta_alpha`` of the weighted refit differs somewhat (the weighted posterior is wider);
    :class:`idrisk.survey.FBS` refits to correct for that.

    Examples
    --------
    >>> d = np.array([1.0, 2.0, 4.0, 8.0])
    >>> c, g = find_alpha_scaling(d, 1.5)
    >>> round(float(np.max(alpha_weights(d, c, g) * d)), 10)
    1.5
    """
    d = np.asarray(delta, dtype=float)
    b = d if at is None else np.asarray(at, dtype=float)
    if b.shape != d.shape:
        raise ValueError(f"at must have the shape of delta {d.shape}, got {b.shape}")
    if not np.isfinite(target_delta) or target_delta <= 0:
        raise ValueError(f"target_delta must be a positive number, got {target_delta!r}")
    finite = np.isfinite(d) & np.isfinite(b)

    def achieved(cc: float, gg: float) -> float:
        a = alpha_weights(d, cc, gg)
        return float(np.max(np.where(finite, a * np.where(finite, b, 0.0), 0.0)))

    if c is None:
        lo, hi = 0.0, 1.0
        while achieved(hi, g) < target_delta and hi < 1e6:
            hi *= 2
        f_lo, f_hi = achieved(lo, g) - target_delta, achieved(hi, g) - target_delta
        if f_lo > 0:
            raise ValueError(
                f"target_delta {target_delta} is below the bound at c=0 with g={g} "
                f"({f_lo + target_delta:.4g}); lower g"
            )
        if f_hi < 0:
            raise ValueError(
                f"target_delta {target_delta} is not reachable: alpha = 1 for every record gives "
                f"max Delta = {achieved(hi, g):.4g}"
            )
        root = optimize.brentq(lambda x: achieved(x, g) - target_delta, lo, hi, xtol=1e-14)
        return float(root), float(g)
    lo, hi = -1.0 - abs(c), 1.0
    f_lo, f_hi = achieved(c, lo) - target_delta, achieved(c, hi) - target_delta
    if f_lo > 0 or f_hi < 0:
        raise ValueError(
            f"target_delta {target_delta} is outside [{f_lo + target_delta:.4g}, "
            f"{f_hi + target_delta:.4g}] reachable by shifting g with c={c}"
        )
    root = optimize.brentq(lambda x: achieved(c, x) - target_delta, lo, hi, xtol=1e-14)
    return float(c), float(root)
