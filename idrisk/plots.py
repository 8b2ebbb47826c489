"""Figures of Hornby & Hu (2021), Section 4, and of :func:`idrisk.report` (matplotlib).

* :func:`plot_risk_by_radius` -- boxplots of file-level risk per radius, one panel per
  scenario on a shared y-scale, the maximising radius marked (Figure 6).
* :func:`plot_risk_at_max` -- boxplots per scenario at its maximising radius (Figure 7).
* :func:`plot_utility_risk` -- utility-risk scatter with first-to-third quartile boxes
  (Figures 8 and 9).
* :func:`plot_2d_boxplot` -- the "2D boxplot" of the m experiment (Figure 10).
* :func:`plot_record_risk` -- the distribution of record-level risk per scenario.
* :func:`plot_ecdf` -- empirical CDFs of a synthesized variable, confidential against synthetic.
* :func:`plot_category_shares` -- the same for a categorical variable: shares per level.

Every function returns a :class:`matplotlib.figure.Figure` with a title, axis labels with units
and a legend for every kind of mark; scenarios keep one colour across all figures
(:func:`scenario_colors`). They take the tidy DataFrames of :mod:`idrisk.analysis`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

__all__ = [
    "plot_2d_boxplot",
    "plot_category_shares",
    "plot_ecdf",
    "plot_record_risk",
    "plot_risk_at_max",
    "plot_risk_by_radius",
    "plot_utility_risk",
    "risk_axis_label",
    "scenario_colors",
]

#: colour-blind-safe palette (Okabe & Ito), one colour per scenario in order
PALETTE = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#f0e442",
           "#000000"]
#: the colour of the confidential data (ECDF figure)
CONFIDENTIAL_COLOR = "#555555"


def scenario_colors(scenarios: Sequence) -> dict:
    """One colour per scenario, by position in ``scenarios`` (use the full list everywhere).

    Examples
    --------
    >>> scenario_colors([1, 2])
    {1: '#0072b2', 2: '#e69f00'}
    """
    return {s: PALETTE[k % len(PALETTE)] for k, s in enumerate(dict.fromkeys(scenarios))}


def risk_axis_label(n: int | None = None, value: str = "exp_risk") -> str:
    """Axis label with the unit of ``value`` (the expected number of records identified).

    Examples
    --------
    >>> risk_axis_label(5571)
    'identification risk: expected number of\\nrecords identified, out of n = 5571'
    """
    if value == "exp_risk":
        out = "identification risk: expected number of\nrecords identified, out of n"
        return out + (f" = {n}" if n else "")
    if value == "record_mean_risk":
        return "identification risk per record\n(expected share of the n records identified)"
    if value == "true_rate":
        return "true match rate (share of n records\nwith a unique, true match)"
    if value == "false_rate":
        return "false match rate (share of unique\nmatches that are false)"
    return value


def _need(df: pd.DataFrame, cols: Sequence[str], name: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise KeyError(f"{name} lacks the columns {missing}")


def _fmt_r(r) -> str:
    return f"{100 * r:g}%" if isinstance(r, float | np.floating) else str(r)


def _n_of(df: pd.DataFrame, n: int | None) -> int | None:
    """n from ``exp_risk / record_mean_risk`` when not given."""
    if n is not None or not {"exp_risk", "record_mean_risk"} <= set(df.columns):
        return n
    ok = df["record_mean_risk"] > 0
    if not ok.any():
        return None
    return int(round(float((df.loc[ok, "exp_risk"] / df.loc[ok, "record_mean_risk"]).iloc[0])))


def _colors(scenarios: Sequence, colors: Mapping | None) -> dict:
    if colors is None:
        return scenario_colors(scenarios)
    missing = [s for s in scenarios if s not in colors]
    if missing:
        raise KeyError(f"colors has no colour for scenario(s) {missing}")
    return dict(colors)


def _boxes(ax, data, labels, colors):
    """Boxplots with one face colour per box; median lines black."""
    bp = ax.boxplot(data, tick_labels=labels, patch_artist=True,
                    medianprops={"color": "black"})
    for patch, c in zip(bp["boxes"], colors, strict=True):
        patch.set_facecolor(c)
        patch.set_alpha(0.55)
    return bp


def _box_legend() -> list:
    return [
        Patch(facecolor="#bbbbbb", edgecolor="black", label="box: middle half (Q1–Q3)"),
        Line2D([], [], color="black", label="line: median"),
        Line2D([], [], color="black", lw=0.8, label="whiskers: ≤ 1.5 IQR; circles: beyond"),
    ]


def plot_risk_by_radius(sweep: pd.DataFrame, value: str = "exp_risk", ncols: int = 2, *,
                        n: int | None = None, colors: Mapping | None = None,
                        best: Mapping | None = None, title: str | None = None) -> Figure:
    """Boxplots of ``value`` across datasets for every radius, one panel per scenario.

    Panels share the y-scale so that scenarios can be compared; each scenario keeps its colour
    and the maximising radius (``best``: scenario -> radius, default: the highest median) is
    marked.

    Examples
    --------
    >>> sw = pd.DataFrame({"scenario": [1] * 4, "r": [0.1, 0.1, 0.2, 0.2],
    ...                    "dataset": [1, 2, 1, 2], "exp_risk": [1.0, 2.0, 3.0, 5.0]})
    >>> fig = plot_risk_by_radius(sw, n=100)
    >>> len(fig.axes), fig.axes[0].get_title()
    (1, 'Scenario (1)')
    """
    _need(sweep, ["scenario", "r", value], "sweep")
    scenarios = list(dict.fromkeys(sweep["scenario"]))
    colors = _colors(scenarios, colors)
    n = _n_of(sweep, n)
    ncols = min(ncols, len(scenarios))
    nrows = int(np.ceil(len(scenarios) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.8 * nrows + 0.9),
                             squeeze=False, sharey=True)
    for ax, s in zip(axes.ravel(), scenarios, strict=False):
        g = sweep[sweep["scenario"] == s]
        radii = list(dict.fromkeys(g["r"]))
        _boxes(ax, [g.loc[g["r"] == r, value].to_numpy() for r in radii],
               [_fmt_r(r) for r in radii], [colors[s]] * len(radii))
        med = g.groupby("r", sort=False)[value].median()
        r_best = best[s] if best is not None and s in best else med.idxmax()
        if r_best in radii:
            k = radii.index(r_best) + 1
            ax.axvline(k, color=colors[s], ls=":", lw=1.5)
        ax.set_title(f"Scenario ({s})")
        ax.set_xlabel("radius r (± share of each confidential value)")
        ax.yaxis.set_tick_params(labelleft=True)
        ax.grid(axis="y", alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel(risk_axis_label(n, value))
    for ax in axes.ravel()[len(scenarios):]:
        ax.remove()
    handles = [Patch(facecolor=colors[s], alpha=0.55, edgecolor="black",
                     label=f"scenario ({s}): m datasets per radius") for s in scenarios]
    handles += _box_legend()
    handles.append(Line2D([], [], color="grey", ls=":", label="maximising radius (highest median)"))
    fig.suptitle(title or "Identification risk by radius (one box per radius over the m "
                 "synthetic datasets; shared y-scale)")
    fig.legend(handles=handles, loc="lower center", ncol=min(4, len(handles)), fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, 0.04 + 0.03 * np.ceil(len(handles) / 4), 1, 0.97))
    return fig


def plot_risk_at_max(at_max: pd.DataFrame, value: str = "exp_risk", *, n: int | None = None,
                     colors: Mapping | None = None, title: str | None = None) -> Figure:
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
    colors = _colors(scenarios, colors)
    n = _n_of(at_max, n)
    fig, ax = plt.subplots(figsize=(6.5, 4.8))
    data, labels = [], []
    for s in scenarios:
        g = at_max[at_max["scenario"] == s]
        data.append(g[value].to_numpy())
        labels.append(f"({s})\nr = {_fmt_r(g['r'].iloc[0])}")
    _boxes(ax, data, labels, [colors[s] for s in scenarios])
    if value == "exp_risk":
        ax.set_ylim(bottom=0)
    ax.set_xlabel("scenario (its maximising radius)")
    ax.set_ylabel(risk_axis_label(n, value))
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(title or "Identification risk at each scenario's maximising radius\n"
                 "(one box over the m synthetic datasets)", fontsize=10)
    handles = [Patch(facecolor=colors[s], alpha=0.55, edgecolor="black",
                     label=f"scenario ({s})") for s in scenarios] + _box_legend()
    ax.legend(handles=handles, fontsize=7, loc="best")
    fig.tight_layout()
    return fig


def plot_utility_risk(df: pd.DataFrame, scenarios: Sequence | None = None,
                      utility: str = "U_p", risk: str = "exp_risk", *, n: int | None = None,
                      colors: Mapping | None = None, title: str | None = None) -> Figure:
    """Utility (x) against risk (y) per dataset, with a Q1-Q3 box per scenario.

    Each point is one synthetic dataset; each scenario's box spans the first to third
    quartile of its datasets on both axes.

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
    colors = _colors(list(dict.fromkeys(df["scenario"])) if colors is None else scenarios,
                     colors)
    n = _n_of(df, n)
    fig, ax = plt.subplots(figsize=(6.5, 4.8))
    handles = []
    for s in scenarios:
        g = df[df["scenario"] == s]
        if g.empty:
            raise KeyError(f"scenario {s!r} not found in df")
        c = colors[s]
        ax.scatter(g[utility], g[risk], color=c, s=18)
        (x1, x3), (y1, y3) = np.quantile(g[utility], [0.25, 0.75]), np.quantile(g[risk],
                                                                                 [0.25, 0.75])
        ax.add_patch(Rectangle((x1, y1), x3 - x1, y3 - y1, fill=False, edgecolor=c, lw=1.5))
        handles.append(Line2D([], [], color=c, marker="o", ls="", label=f"scenario ({s})"))
    handles += [
        Line2D([], [], color="grey", marker="o", ls="", label="point: one synthetic dataset"),
        Patch(fill=False, edgecolor="grey", lw=1.5,
              label="box: Q1–Q3 of utility and of risk"),
    ]
    ax.set_xlabel("propensity score utility U_p (pMSE, unitless; smaller = better)"
                  if utility == "U_p" else utility)
    ax.set_ylabel(risk_axis_label(n, risk))
    ax.grid(alpha=0.3)
    ax.set_title(title or "Utility against identification risk", fontsize=10)
    ax.legend(handles=handles, fontsize=7)
    fig.tight_layout()
    return fig


def plot_2d_boxplot(df: pd.DataFrame, group: str = "m", x: str = "U_p",
                    y: str = "record_mean_risk", *, title: str | None = None) -> Figure:
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
    fig, ax = plt.subplots(figsize=(6.5, 4.8))
    groups = list(df.groupby(group, sort=True))
    colors = scenario_colors([g for g, _ in groups])
    for gval, g in groups:
        c = colors[gval]
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
    ax.set_xlabel("mean propensity score utility U_p (unitless; smaller = better)"
                  if x == "U_p" else x)
    ax.set_ylabel(risk_axis_label(None, y))
    handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=handles + [
        Patch(fill=False, edgecolor="grey", label="box: Q1–Q3 on both axes"),
        Line2D([], [], color="grey", lw=1, label="cross: medians"),
        Line2D([], [], color="grey", lw=1, ls="--", label="dashed: to min and max"),
    ], fontsize=7)
    ax.set_title(title or f"Utility and risk by {group} (2D boxplot over repetitions)",
                 fontsize=10)
    fig.tight_layout()
    return fig


def plot_record_risk(record_risk: pd.DataFrame, *, colors: Mapping | None = None,
                     title: str | None = None) -> Figure:
    """Distribution of record-level risk (mean of T/c over the m datasets) per scenario.

    Parameters
    ----------
    record_risk : DataFrame
        One column per scenario, one row per confidential record (``result.record_risk``).

    Examples
    --------
    >>> rr = pd.DataFrame({1: [0.0, 0.0, 0.5, 1.0], 2: [0.0, 0.1, 0.2, 0.0]})
    >>> fig = plot_record_risk(rr)
    >>> fig.axes[0].get_yscale()
    'log'
    """
    scenarios = list(record_risk.columns)
    colors = _colors(scenarios, colors)
    fig, ax = plt.subplots(figsize=(6.5, 4.4))
    bins = np.linspace(0, 1, 21)
    width = (bins[1] - bins[0]) / (len(scenarios) + 0.5)
    for k, s in enumerate(scenarios):
        counts, _ = np.histogram(np.clip(record_risk[s].to_numpy(dtype=float), 0, 1), bins=bins)
        ax.bar(bins[:-1] + k * width, np.maximum(counts, 0), width=width, align="edge",
               color=colors[s], label=f"scenario ({s})", log=True)
    ax.set_xlabel("record-level risk: mean of T/c over the m datasets\n"
                  "(probability an intruder identifies the record)")
    ax.set_ylabel("number of confidential records (log scale)")
    ax.set_title(title or "Distribution of record-level identification risk", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def plot_ecdf(original: pd.Series, synthetic: Mapping[object, Sequence], variable: str, *,
              colors: Mapping | None = None, unit: str = "", title: str | None = None) -> Figure:
    """Empirical CDFs of ``variable``: confidential data (grey) and every synthetic dataset
    (thin lines in its scenario's colour).

    Examples
    --------
    >>> o = pd.Series([1.0, 2.0, 3.0])
    >>> fig = plot_ecdf(o, {1: [o + 0.5, o]}, "x")
    >>> len(fig.axes[0].lines)
    3
    """
    scenarios = list(synthetic)
    colors = _colors(scenarios, colors)
    fig, ax = plt.subplots(figsize=(6.5, 4.4))

    def step(values, **kw):
        v = np.sort(pd.to_numeric(pd.Series(values), errors="coerce").dropna().to_numpy())
        if v.size:
            ax.step(v, np.arange(1, v.size + 1) / v.size, where="post", **kw)

    handles = []
    for s in scenarios:
        for values in synthetic[s]:
            step(values, color=colors[s], lw=0.7, alpha=0.6)
        handles.append(Line2D([], [], color=colors[s], lw=1,
                              label=f"scenario ({s}): one line per synthetic dataset"))
    step(original, color=CONFIDENTIAL_COLOR, lw=2.2)
    handles.insert(0, Line2D([], [], color=CONFIDENTIAL_COLOR, lw=2.2, label="confidential"))
    lo, hi = np.nanquantile(pd.to_numeric(original, errors="coerce"), [0.005, 0.995])
    if np.isfinite(lo) and np.isfinite(hi) and hi > lo:
        ax.set_xlim(lo - 0.02 * (hi - lo), hi + 0.02 * (hi - lo))
    ax.set_xlabel(f"{variable}{f' ({unit})' if unit else ''} (central 99% of confidential)")
    ax.set_ylabel("cumulative share of records")
    ax.set_title(title or f"ECDF of {variable}: confidential against synthetic", fontsize=10)
    ax.legend(handles=handles, fontsize=7, loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def plot_category_shares(original: pd.Series, synthetic: Mapping[object, Sequence], variable: str,
                         *, colors: Mapping | None = None, title: str | None = None) -> Figure:
    """Share of records in each level of a categorical ``variable``: confidential (grey) and,
    per scenario, the mean over its synthetic datasets with the range as an error bar.

    Examples
    --------
    >>> o = pd.Series(["a", "b", "b", "c"])
    >>> fig = plot_category_shares(o, {1: [o, pd.Series(["a", "a", "b", "c"])]}, "x")
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['a', 'b', 'c']
    """
    scenarios = list(synthetic)
    colors = _colors(scenarios, colors)
    levels = list(dict.fromkeys(
        [*pd.Series(original).dropna().astype(str)]
        + [v for s in scenarios for f in synthetic[s] for v in pd.Series(f).dropna().astype(str)]
    ))
    levels = sorted(levels, key=lambda v: (len(v), v))

    def shares(values) -> np.ndarray:
        v = pd.Series(values).dropna().astype(str)
        return v.value_counts(normalize=True).reindex(levels, fill_value=0.0).to_numpy()

    fig, ax = plt.subplots(figsize=(6.5, 4.4))
    k = len(scenarios) + 1
    width = 0.8 / k
    x = np.arange(len(levels))
    ax.bar(x, shares(original), width=width, color=CONFIDENTIAL_COLOR, label="confidential")
    for i, s in enumerate(scenarios, start=1):
        table = np.array([shares(f) for f in synthetic[s]])
        mean = table.mean(axis=0)
        err = np.vstack([mean - table.min(axis=0), table.max(axis=0) - mean])
        ax.bar(x + i * width, mean, width=width, color=colors[s], yerr=err, capsize=2,
               label=f"scenario ({s}): mean of the m datasets (bar: min–max)")
    ax.set_xticks(x + width * (k - 1) / 2, levels)
    ax.set_xlabel(f"{variable} (level)")
    ax.set_ylabel("share of records")
    ax.set_title(title or f"{variable}: share of records per level, confidential against "
                 "synthetic", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig
