"""Figures of Hornby & Hu (2021), Section 4 (matplotlib).

* :func:`plot_risk_by_radius` -- boxplots of file-level risk per radius, one panel per
  scenario (Figure 6).
* :func:`plot_risk_at_max` -- boxplots per scenario at its maximising radius (Figure 7).
* :func:`plot_utility_risk` -- utility-risk scatter with first-to-third quartile rectangles
  (Figures 8 and 9).
* :func:`plot_2d_boxplot` -- the "2D boxplot" of the m experiment (Figure 10).

Every function returns a :class:`matplotlib.figure.Figure` and takes the tidy DataFrames of
:mod:`idrisk.analysis`.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

__all__ = ["plot_2d_boxplot", "plot_risk_at_max", "plot_risk_by_radius", "plot_utility_risk"]


def _need(df: pd.DataFrame, cols: Sequence[str], name: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise KeyError(f"{name} lacks the columns {missing}")


def _fmt_r(r) -> str:
    return f"{100 * r:g}%" if isinstance(r, float | np.floating) else str(r)


def plot_risk_by_radius(sweep: pd.DataFrame, value: str = "exp_risk",
                        ncols: int = 2) -> Figure:
    """Boxplots of ``value`` across datasets for every radius, one panel per scenario.

    Examples
    --------
    >>> sw = pd.DataFrame({"scenario": [1] * 4, "r": [0.1, 0.1, 0.2, 0.2],
    ...                    "dataset": [1, 2, 1, 2], "exp_risk": [1.0, 2.0, 3.0, 5.0]})
    >>> fig = plot_risk_by_radius(sw)
    >>> len(fig.axes)
    1
    """
    _need(sweep, ["scenario", "r", value], "sweep")
    scenarios = list(dict.fromkeys(sweep["scenario"]))
    ncols = min(ncols, len(scenarios))
    nrows = int(np.ceil(len(scenarios) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(5 * ncols, 3.6 * nrows), squeeze=False)
    for ax, s in zip(axes.ravel(), scenarios, strict=False):
        g = sweep[sweep["scenario"] == s]
        radii = list(dict.fromkeys(g["r"]))
        ax.boxplot([g.loc[g["r"] == r, value].to_numpy() for r in radii],
                   tick_labels=[_fmt_r(r) for r in radii])
        ax.set_title(f"Scenario ({s})")
        ax.set_xlabel("radius r")
        ax.set_ylabel("identification risk" if value == "exp_risk" else value)
    for ax in axes.ravel()[len(scenarios):]:
        ax.remove()
    fig.tight_layout()
    return fig


def plot_risk_at_max(at_max: pd.DataFrame, value: str = "exp_risk") -> Figure:
    """Boxplots of ``value`` per scenario (rows of :func:`idrisk.analysis.risk_at_radius`).

    Examples
    --------
    >>> d = pd.DataFrame({"scenario": [1, 1, 2, 2], "r": [0.1, 0.1, 0.2, 0.2],
    ...                   "exp_risk": [3.0, 4.0, 1.0, 2.0]})
    >>> len(plot_risk_at_max(d).axes[0].get_xticklabels())
    2
    """
    _need(at_max, ["scenario", "r", value], "at_max")
    scenarios = list(dict.fromkeys(at_max["scenario"]))
    fig, ax = plt.subplots(figsize=(6, 4))
    data, labels = [], []
    for s in scenarios:
        g = at_max[at_max["scenario"] == s]
        data.append(g[value].to_numpy())
        labels.append(f"({s})\nr = {_fmt_r(g['r'].iloc[0])}")
    ax.boxplot(data, tick_labels=labels)
    ax.set_xlabel("scenario (maximising radius)")
    ax.set_ylabel("identification risk" if value == "exp_risk" else value)
    fig.tight_layout()
    return fig


def plot_utility_risk(df: pd.DataFrame, scenarios: Sequence | None = None,
                      utility: str = "U_p", risk: str = "exp_risk") -> Figure:
    """Utility (x) against risk (y) per dataset, with a Q1-Q3 rectangle per scenario.

    Examples
    --------
    >>> d = pd.DataFrame({"scenario": [1, 1, 1, 2, 2, 2], "U_p": [1, 2, 3, 4, 5, 6.0],
    ...                   "exp_risk": [6, 5, 4, 3, 2, 1.0]})
    >>> fig = plot_utility_risk(d)
    >>> len(fig.axes[0].patches), len(fig.axes[0].collections)
    (2, 2)
    """
    _need(df, ["scenario", utility, risk], "df")
    if scenarios is None:
        scenarios = list(dict.fromkeys(df["scenario"]))
    fig, ax = plt.subplots(figsize=(6, 4.5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, s in enumerate(scenarios):
        g = df[df["scenario"] == s]
        if g.empty:
            raise KeyError(f"scenario {s!r} not found in df")
        c = colors[k % len(colors)]
        ax.scatter(g[utility], g[risk], color=c, s=18, label=f"scenario ({s})")
        (x1, x3), (y1, y3) = np.quantile(g[utility], [0.25, 0.75]), np.quantile(g[risk],
                                                                                 [0.25, 0.75])
        ax.add_patch(Rectangle((x1, y1), x3 - x1, y3 - y1, fill=False, edgecolor=c, lw=1.5))
    ax.set_xlabel("propensity score utility U_p (smaller = better)" if utility == "U_p"
                  else utility)
    ax.set_ylabel("identification risk" if risk == "exp_risk" else risk)
    ax.legend()
    fig.tight_layout()
    return fig


def plot_2d_boxplot(df: pd.DataFrame, group: str = "m", x: str = "U_p",
                    y: str = "record_mean_risk") -> Figure:
    """The article's "2D boxplot": per group a Q1-Q3 rectangle on both axes, median lines,
    and whiskers from the rectangle to the minimum and maximum.

    Examples
    --------
    >>> d = pd.DataFrame({"m": [1] * 5 + [10] * 5, "U_p": np.arange(10.0),
    ...                   "record_mean_risk": np.arange(10.0)[::-1]})
    >>> len(plot_2d_boxplot(d).axes[0].patches)
    2
    """
    _need(df, [group, x, y], "df")
    fig, ax = plt.subplots(figsize=(6, 4.5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (gval, g) in enumerate(df.groupby(group, sort=True)):
        c = colors[k % len(colors)]
        qx = np.quantile(g[x], [0, 0.25, 0.5, 0.75, 1])
        qy = np.quantile(g[y], [0, 0.25, 0.5, 0.75, 1])
        ax.add_patch(Rectangle((qx[1], qy[1]), qx[3] - qx[1], qy[3] - qy[1], fill=False,
                               edgecolor=c, lw=1.8, label=f"{group} = {gval}"))
        ax.plot([qx[2], qx[2]], [qy[1], qy[3]], color=c, lw=1)
        ax.plot([qx[1], qx[3]], [qy[2], qy[2]], color=c, lw=1)
        ax.plot([qx[0], qx[1]], [qy[2], qy[2]], color=c, lw=1, ls="--")
        ax.plot([qx[3], qx[4]], [qy[2], qy[2]], color=c, lw=1, ls="--")
        ax.plot([qx[2], qx[2]], [qy[0], qy[1]], color=c, lw=1, ls="--")
        ax.plot([qx[2], qx[2]], [qy[3], qy[4]], color=c, lw=1, ls="--")
    ax.autoscale_view()
    ax.set_xlabel("mean propensity score utility U_p" if x == "U_p" else x)
    ax.set_ylabel("mean record-level risk (IR / n)" if y == "record_mean_risk" else y)
    ax.legend()
    fig.tight_layout()
    return fig
