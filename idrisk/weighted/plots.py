"""Plots of the risk-weighted synthesis papers: risk violins, whack-a-mole, weights.

The package's plot convention (:mod:`idrisk._plotting`): each function takes an optional
``ax``, returns the Axes, leaves the matplotlib backend alone, and colours a synthesizer by
its position in the names given (the same name list gives the same colours everywhere).

Examples
--------
>>> import pandas as pd
>>> from idrisk.weighted.plots import plot_risk_violins
>>> ax = plot_risk_violins({"Data": pd.Series([0.1, 0.3, 0.5]),
...                         "Marginal": pd.Series([0.0, 0.1, 0.2])})
>>> [t.get_text() for t in ax.get_xticklabels()]
['Data', 'Marginal']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._align import Align, align_series
from .._plotting import colors_for, new_axes

__all__ = ["plot_risk_violins", "plot_weights_vs_value", "plot_whack_a_mole"]


def plot_risk_violins(risks: Mapping[str, pd.Series], ax: Any = None,
                      title: str | None = None, colors: Mapping | None = None):
    """Violin plots of record-level risk distributions (e.g. Data / Unweighted /
    Marginal / Pairwise), one colour per synthesizer; the horizontal bar marks the mean.

    Returns
    -------
    matplotlib.axes.Axes
    """
    names = list(risks)
    palette = colors_for(names, colors)
    ax = new_axes(ax, (1.6 * len(names) + 1.5, 3.5))
    data = [np.asarray(risks[k], dtype=float) for k in names]
    parts = ax.violinplot(data, showmeans=True, showextrema=True)
    for body, name in zip(parts["bodies"], names, strict=True):
        body.set_facecolor(palette[name])
        body.set_alpha(0.6)
    ax.set_xticks(range(1, len(names) + 1), names)
    ax.set_xlabel("synthesizer (Data: the confidential records)")
    ax.set_ylabel("record-level identification risk (probability)")
    ax.set_title(title or "Record-level identification risk (bar: mean)")
    return ax


def plot_whack_a_mole(
    value, unweighted: pd.Series, weighted: pd.Series, threshold: float = 0.25, ax: Any = None,
    label: str = "weighted", xlabel: str = "value", align: Align = None,
    title: str | None = None,
):
    """Risk under a weighted synthesizer against the value; records whose risk rose by
    more than ``threshold`` from the unweighted synthesizer are enlarged and coloured.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = new_axes(ax, (5, 3.5))
    arrs = align_series({"value": value, "unweighted": unweighted, "weighted": weighted}, align)
    x, u, w = (arrs[k].astype(float) for k in ("value", "unweighted", "weighted"))
    up = (w - u) > threshold
    ax.scatter(x[~up], w[~up], s=6, c="0.6", label="other records")
    ax.scatter(x[up], w[up], s=30, c="gold", edgecolors="k", linewidths=0.4,
               label=f"risk up > {threshold} ({int(up.sum())})")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"identification risk ({label}, probability)")
    ax.set_title(title or f"Whack-a-mole: records whose risk rose under {label}")
    ax.legend(fontsize=8, loc="best")
    return ax


def plot_weights_vs_value(
    value, weights: Mapping[str, pd.Series], ax: Any = None, xlabel: str = "value",
    align: Align = None, title: str | None = None, colors: Mapping | None = None,
):
    """Record weights against the sensitive value, one series (colour) per weighting.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = new_axes(ax, (5, 3.5))
    palette = colors_for(list(weights), colors)
    x = np.asarray(value, dtype=float)
    for name, w in weights.items():
        wv = align_series({"value": value, f"weights[{name!r}]": w}, align)[f"weights[{name!r}]"]
        ax.scatter(x, wv.astype(float), s=5, alpha=0.6, label=name, color=palette[name])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("record weight alpha (0 to 1)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title or "Risk weights against the value")
    ax.legend(fontsize=8)
    return ax
