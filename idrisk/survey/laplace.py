"""The Laplace-mechanism baseline for survey tables, with local sensitivities.

On the confidential sample with its raw weights (spec ``survey-tables.md``):

* sensitivity of a cell count ``sum_{i in c} w_i``: ``Delta^c_c = max_{i in c} w_i``;
* of a cell mean: ``Delta^a_c = max_{i in c} |mu_c - mu_c(-i)|`` (leave one out), which is
  ``w_i |y_i - mu_c| / (N_c - w_i)``;
* every row of the table uses the maxima over rows, ``Delta^c*`` and ``Delta^a*``;
* standard errors from R random half-sample replicates (:func:`half_sample_replicates`),
  each replicate estimate noised like the point estimate (with the local sensitivities of
  the replicate weights), the SE computed from the noised replicates (post-processing).

Budget: the table releases, for counts and for means, one statistic per row for the full
sample and for each replicate.  Rows of one grouping (the cells, or the field margins, ...)
are disjoint (parallel composition); groupings, the two statistics and the 1 + R weight
sets compose sequentially, so each release gets ``epsilon / (2 G (1 + R))`` with G the number
of groupings (4 for two ``by`` columns with margins: cells, two margins, total).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._stack import user_stacklevel
from ..exceptions import SensitivityWarning
from .design import (
    SurveyTable,
    _by_list,
    _numeric,
    _point,
    half_sample_replicates,
    table_cells,
)

__all__ = ["laplace_noise", "laplace_sensitivities", "laplace_table"]

BACKENDS = ("numpy", "opendp")


def laplace_sensitivities(
    data: pd.DataFrame,
    y: str,
    weight: str | np.ndarray,
    by: Sequence[str] | str,
    *,
    margins: bool = True,
) -> pd.DataFrame:
    """Local sensitivities of every row's weighted count and mean.

    Parameters
    ----------
    data, y, by, margins
        As :func:`design_table`.
    weight : str or array
        The weight column, or a weight vector (e.g. one replicate's weights).

    Returns
    -------
    pandas.DataFrame
        The ``by`` columns, ``count_sensitivity`` (largest weight in the row) and
        ``mean_sensitivity`` (largest leave-one-out change of the row's mean; NaN for a
        row with a single unit of positive weight, whose leave-one-out mean does not exist).

    Examples
    --------
    >>> df = pd.DataFrame({"g": ["a", "a", "b"], "y": [1.0, 3.0, 5.0], "w": [1.0, 3.0, 2.0]})
    >>> laplace_sensitivities(df, "y", "w", by=["g"])
         g  count_sensitivity  mean_sensitivity
    0    a                3.0          1.500000
    1    b                2.0               NaN
    2  All                3.0          0.833333
    """
    by = _by_list(by)
    yv = _numeric(data, y, "y")
    w = _numeric(data, weight, "weight") if isinstance(weight, str) else np.asarray(
        weight, dtype=float)
    if w.shape != (len(data),):
        raise ValueError(f"weight must have one value per row ({len(data)}), got {w.shape}")
    labels, member = table_cells(data, by, margins=margins)
    cs, ms = _sensitivities(w, yv, member)
    out = labels.copy()
    out["count_sensitivity"] = cs
    out["mean_sensitivity"] = ms
    return out


def _sensitivities(w: np.ndarray, yv: np.ndarray, member: np.ndarray):
    count, mean = _point(w, yv, member)
    inside = member & (w[:, None] > 0)
    cs = np.where(inside, w[:, None], 0.0).max(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rest = count[None, :] - w[:, None]
        change = np.abs(w[:, None] * (yv[:, None] - mean[None, :])) / rest
    n_pos = inside.sum(axis=0)
    ms = np.where(inside, change, -np.inf).max(axis=0)
    return cs, np.where(n_pos >= 2, ms, np.nan)


def laplace_noise(
    scale: np.ndarray | float, size: int | None = None, *, rng=None, backend: str = "numpy"
) -> np.ndarray:
    """Laplace(0, scale) noise.

    ``backend="numpy"`` draws from ``rng`` (a seeded ``numpy.random.Generator``);
    ``backend="opendp"`` uses OpenDP's floating-point-safe sampler (``make_laplace``), which
    cannot be seeded.
    """
    scale = np.broadcast_to(np.asarray(scale, dtype=float), (size,) if size else np.shape(scale))
    if np.any(~np.isfinite(scale)) or np.any(scale < 0):
        raise ValueError("Laplace scale must be finite and non-negative")
    if backend == "numpy":
        if rng is None:
            raise ValueError("backend='numpy' needs a numpy Generator (rng)")
        return rng.laplace(0.0, 1.0, size=scale.shape) * scale
    if backend == "opendp":
        dp = _opendp()
        out = np.empty(scale.shape)
        flat_scale = scale.ravel()
        flat = out.ravel()
        cache: dict[float, Any] = {}  # OpenDP measurements (callables)
        for k, s in enumerate(flat_scale):
            if s == 0:
                flat[k] = 0.0
                continue
            meas = cache.get(float(s))
            if meas is None:
                meas = dp.m.make_laplace(
                    dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
                    scale=float(s),
                )
                cache[float(s)] = meas
            flat[k] = meas(0.0)
        return flat.reshape(scale.shape)
    raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")


def _opendp():
    try:
        import opendp.prelude as dp
    except ImportError as exc:
        raise ImportError(
            "backend='opendp' needs OpenDP >= 0.16: pip install 'idrisk[dp]'"
        ) from exc
    dp.enable_features("contrib")
    return dp


def laplace_table(
    data: pd.DataFrame,
    y: str,
    weight: str,
    strata: str | None,
    by: Sequence[str] | str,
    *,
    epsilon: float,
    replicates: int = 10,
    seed: int | None = None,
    backend: str = "numpy",
    margins: bool = True,
    sample_counts: bool = False,
) -> SurveyTable:
    """A table of counts and means protected by the Laplace mechanism.

    Parameters
    ----------
    data, y, weight, strata, by, margins
        As :func:`design_table`.
    epsilon : float
        Total privacy budget of the table (e.g. ``2 Delta_alpha m`` of a synthesizer to
        compare at equal budgets).
    replicates : int
        Number R of random half-sample replicates for the standard errors.
    seed : int
        Seeds the replicates and (numpy backend) the noise.
    backend : {"numpy", "opendp"}
        Noise sampler.  OpenDP's is floating-point safe but cannot be seeded, so a table
        made with it is not reproducible (the replicates still are).
    sample_counts : bool
        Add ``n_not_private``, the exact number of sample units in each row. It is
        **not** protected by the mechanism: do not release it with the table.

    Returns
    -------
    SurveyTable
        ``method="laplace"``; ``info`` holds the budget split (``epsilon_per_release``,
        ``releases``) and the sensitivities ``count_sensitivity``, ``mean_sensitivity``.
        The table holds only what the mechanism protects: the ``by`` columns, the noised
        ``count``, ``count_se``, ``mean``, ``mean_se`` and their Laplace scales
        ``count_scale``, ``mean_scale`` (public: functions of epsilon and the released
        sensitivities). Counts are not additive (cells need not sum to their margins).

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> df = pd.DataFrame({"h": np.repeat(["a", "b"], 50), "g": rng.choice(["f", "m"], 100),
    ...                    "y": rng.lognormal(10, 0.3, 100), "w": rng.uniform(5, 20, 100)})
    >>> tab = laplace_table(df, "y", "w", "h", by=["g"], epsilon=10.0, seed=1)
    >>> tab.info["releases"], round(tab.info["epsilon_per_release"], 4)
    (44, 0.2273)
    >>> list(tab.to_frame().columns)
    ['g', 'count', 'count_se', 'mean', 'mean_se', 'count_scale', 'mean_scale']
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "opendp":
        _opendp()
    if (not isinstance(epsilon, (int, float, np.number)) or isinstance(epsilon, bool)
            or not np.isfinite(epsilon) or epsilon <= 0):
        raise ValueError(f"epsilon must be a positive number, got {epsilon!r}")
    if not isinstance(replicates, (int, np.integer)) or replicates < 2:
        raise ValueError(f"replicates must be an integer >= 2, got {replicates!r}")
    by = _by_list(by)
    yv = _numeric(data, y, "y")
    w = _numeric(data, weight, "weight", positive=True)
    seq = np.random.SeedSequence(seed)
    rep_seed, noise_seed = seq.spawn(2)
    reps = half_sample_replicates(
        data, strata, weight, R=replicates, seed=int(rep_seed.generate_state(1)[0])
    ).to_numpy()
    rng = np.random.default_rng(noise_seed)
    labels, member = table_cells(data, by, margins=margins)
    n_groupings = 2 ** len(by) if margins else 1
    releases = 2 * n_groupings * (1 + replicates)
    eps_q = epsilon / releases

    def noised(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
        cs, ms = _sensitivities(weights, yv, member)
        if np.isnan(ms).any():
            warnings.warn(
                "rows with one unit have no leave-one-out mean; they are left out of the "
                "maximum mean sensitivity", SensitivityWarning, stacklevel=user_stacklevel(),
            )
        dc = float(np.max(cs))
        da = float(np.nanmax(ms))
        count, mean = _point(weights, yv, member)
        k = len(count)
        count = count + laplace_noise(dc / eps_q, k, rng=rng, backend=backend)
        mean = mean + laplace_noise(da / eps_q, k, rng=rng, backend=backend)
        return count, mean, dc, da

    count, mean, dc, da = noised(w)
    count_r = np.empty((replicates, len(count)))
    mean_r = np.empty_like(count_r)
    for r in range(replicates):
        count_r[r], mean_r[r], _, _ = noised(reps[:, r])
    table = labels.copy()
    table["count"] = count
    table["count_se"] = count_r.std(axis=0, ddof=1)
    table["mean"] = mean
    table["mean_se"] = mean_r.std(axis=0, ddof=1)
    table["count_scale"] = dc / eps_q
    table["mean_scale"] = da / eps_q
    if sample_counts:
        table["n_not_private"] = member.sum(axis=0)
    info = {
        "epsilon": float(epsilon),
        "releases": releases,
        "epsilon_per_release": eps_q,
        "count_sensitivity": dc,
        "mean_sensitivity": da,
        "replicates": replicates,
        "backend": backend,
        "seed": seed,
    }
    return SurveyTable(table, by=by, method="laplace", variance="replicate", info=info)
