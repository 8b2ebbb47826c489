"""Plots of the risk-weighted synthesis papers: risk violins, whack-a-mole, weights.

Examples
--------
>>> import pandas as pd
>>> from idrisk.weighted.plots import risk_violins
>>> ax = risk_violins({"Data": pd.Series([0.1, 0.3, 0.5]), "Marginal": pd.Series([0.0, 0.1, 0.2])})
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib

matplotlib.use("Agg", force=False)
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .._align import Align, align_series  # noqa: E402

__all__ = ["risk_violins", "weights_vs_value", "whack_a_mole_scatter"]


def risk_violins(risks: Mapping[str, pd.Series], ax=None, title: str | None = None):
    """Violin plots of record-level risk distributions (e.g. Data / Unweighted /
    Marginal / Pairwise); the horizontal bar marks the mean."""
    if ax is None:
        _, ax = plt.subplots(figsize=(1.6 * len(risks) + 1.5, 3.5))
    names = list(risks)
    data = [np.asarray(risks[k], dtype=float) for k in names]
    ax.violinplot(data, showmeans=True, showextrema=True)
    ax.set_xticks(range(1, len(names) + 1), names)
    ax.set_ylabel("identification risk")
    if title:
        ax.set_title(title)
    return ax


def whack_a_mole_scatter(
    value, unweighted: pd.Series, weighted: pd.Series, threshold: float = 0.25, ax=None,
    label: str = "weighted", xlabel: str = "value", align: Align = None,
):
    """Risk under a weighted synthesizer against the value; records whose risk rose by
    more than ``threshold`` from the unweighted synthesizer are enlarged and coloured."""
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.5))
    arrs = align_series({"value": value, "unweighted": unweighted, "weighted": weighted}, align)
    x, u, w = (arrs[k].astype(float) for k in ("value", "unweighted", "weighted"))
    up = (w - u) > threshold
    ax.scatter(x[~up], w[~up], s=6, c="0.6", label="other records")
    ax.scatter(x[up], w[up], s=30, c="gold", edgecolors="k", linewidths=0.4,
               label=f"risk up > {threshold} ({int(up.sum())})")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"identification risk ({label})")
    ax.legend(fontsize=8, loc="best")
    return ax


def weights_vs_value(
    value, weights: Mapping[str, pd.Series], ax=None, xlabel: str = "value", align: Align = None
):
    """Record weights against the sensitive value, one series per weighting."""
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.5))
    x = np.asarray(value, dtype=float)
    for name, w in weights.items():
        wv = align_series({"value": value, f"weights[{name!r}]": w}, align)[f"weights[{name!r}]"]
        ax.scatter(x, wv.astype(float), s=5, alpha=0.6, label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("weight alpha")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=8)
    return ax
