"""Figures of Hornby & Hu (2021), Section 4, and of the risk report (matplotlib).

* :func:`plot_risk_by_radius` -- boxplots of file-level risk per radius, one panel per
  scenario on a shared y-scale, the maximising radius marked (Figure 6). Returns the Figure.
* :func:`plot_risk_at_max` -- boxplots per scenario at its maximising radius (Figure 7).
* :func:`plot_utility_risk` -- utility-risk scatter with first-to-third quartile boxes
  (Figures 8 and 9).
* :func:`plot_2d_boxplot` -- the "2D boxplot" of the m experiment (Figure 10).
* :func:`plot_record_risk` -- the distribution of record-level risk per scenario.
* :func:`plot_ecdf` -- empirical CDFs of a synthesized variable, confidential against synthetic.
* :func:`plot_category_shares` -- the same for a categorical variable: shares per level.

The package's plot convention (:mod:`idrisk._plotting`): every function takes an optional
``ax`` and returns the Axes it drew on (the Figure for the multi-panel
:func:`plot_risk_by_radius`), never changes the matplotlib backend, and gives a scenario the
same colour in every figure (:func:`colors_for`). Every figure has a title, axis labels with
units and a legend for every kind of mark. They take the tidy DataFrames of
:mod:`idrisk.analysis`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._plotting import CONFIDENTIAL_COLOR, colors_for, new_axes, wrap_label
from ._read import natural_key
from ._schema import label

if TYPE_CHECKING:
    from matplotlib.artist import Artist

__all__ = [
    "colors_for",
    "plot_2d_boxplot",
    "plot_category_shares",
    "plot_ecdf",
    "plot_record_risk",
    "plot_risk_at_max",
    "plot_risk_by_radius",
    "plot_utility_risk",
    "point_masses",
    "risk_axis_label",
]


def risk_axis_label(n: int | None = None, measure: str = "exp_risk") -> str:
    """Axis label with the unit of ``measure`` (the expected number of records identified).

    Examples
    --------
    >>> risk_axis_label(5571)
    'identification risk: expected number of\\nrecords identified, out of n = 5571'
    """
    if measure == "exp_risk":
        out = "identification risk: expected number of\nrecords identified, out of n"
        return out + (f" = {n}" if n else "")
    if measure == "record_mean_risk":
        return "identification risk per record\n(expected share of the n records identified)"
    if measure == "true_rate":
        return "true match rate (share of n records\nwith a unique, true match)"
    if measure == "false_rate":
        return "false match rate (share of unique\nmatches that are false)"
    return measure


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


def _boxes(ax, data, labels, colors):
    """Boxplots with one face colour per box; median lines black."""
    bp = ax.boxplot(data, tick_labels=labels, patch_artist=True,
                    medianprops={"color": "black"})
    for patch, c in zip(bp["boxes"], colors, strict=True):
        patch.set_facecolor(c)
        patch.set_alpha(0.55)
    return bp


def _box_legend() -> list:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    return [
        Patch(facecolor="#bbbbbb", edgecolor="black", label="box: middle half (Q1–Q3)"),
        Line2D([], [], color="black", label="line: median"),
        Line2D([], [], color="black", lw=0.8, label="whiskers: ≤ 1.5 IQR; circles: beyond"),
    ]


def _legend_outside(ax, handles) -> None:
    """A legend to the right of the axes, outside the plotted marks (labels wrapped)."""
    for h in handles:
        h.set_label(wrap_label(h.get_label(), 30))
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0),
              frameon=False)


def edge_of_grid(radii: Sequence, best: Any) -> str | None:
    """``"smallest"`` or ``"largest"`` when ``best`` is at that end of the sorted numeric grid.

    Examples
    --------
    >>> edge_of_grid([0.01, 0.05, 0.1], 0.01), edge_of_grid([0.01, 0.05, 0.1], 0.05)
    ('smallest', None)
    """
    numbers = [float(r) for r in radii if isinstance(r, int | float | np.number)]
    if len(numbers) < 2 or len(numbers) != len(radii) or not isinstance(
            best, int | float | np.number):
        return None
    if float(best) == min(numbers):
        return "smallest"
    if float(best) == max(numbers):
        return "largest"
    return None


def plot_risk_by_radius(sweep: pd.DataFrame, measure: str = "exp_risk", ncols: int = 2, *,
                        n: int | None = None, colors: Mapping | None = None,
                        best: Mapping | None = None, title: str | None = None,
                        ax: Any = None):
    """Boxplots of ``measure`` across datasets for every radius, one panel per scenario.

    Panels share the y-scale so that scenarios can be compared; each scenario keeps its colour
    and the maximising radius (``best``: scenario -> radius, default: the highest median) is
    marked. A maximum at the smallest or largest radius of the grid is flagged in the panel:
    the risk may be higher outside the grid, so extend it.

    Parameters
    ----------
    ax : Axes or sequence of Axes, optional
        One Axes per scenario (a single Axes for one scenario); default: a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure holding the panels (a multi-panel plot returns its Figure).

    Examples
    --------
    >>> sw = pd.DataFrame({"scenario": [1] * 4, "r": [0.1, 0.1, 0.2, 0.2],
    ...                    "dataset": [1, 2, 1, 2], "exp_risk": [1.0, 2.0, 3.0, 5.0]})
    >>> fig = plot_risk_by_radius(sw, n=100)
    >>> len(fig.axes), fig.axes[0].get_title()
    (1, 'Scenario (1)')
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    _need(sweep, ["scenario", "r", measure], "sweep")
    scenarios = list(dict.fromkeys(sweep["scenario"]))
    colors = colors_for(scenarios, colors)
    n = _n_of(sweep, n)
    if ax is None:
        import matplotlib.pyplot as plt

        ncols = max(1, min(ncols, len(scenarios)))
        nrows = int(np.ceil(len(scenarios) / ncols))
        fig, grid = plt.subplots(nrows, ncols, figsize=(max(7.5, 5.2 * ncols),
                                                        3.9 * nrows + 1.6),
                                 squeeze=False, sharey=True, layout="constrained")
        for extra in grid.ravel()[len(scenarios):]:
            extra.remove()
        axes = list(grid.ravel()[: len(scenarios)])
        first_column = [a for k, a in enumerate(axes) if k % ncols == 0]
    else:
        axes = [ax] if not isinstance(ax, Sequence | np.ndarray) else list(np.ravel(ax))
        if len(axes) != len(scenarios):
            raise ValueError(f"ax: {len(axes)} Axes for {len(scenarios)} scenarios")
        fig = axes[0].figure
        first_column = axes
    flagged = []
    for a, s in zip(axes, scenarios, strict=True):
        g = sweep[sweep["scenario"] == s]
        radii = list(dict.fromkeys(g["r"]))
        _boxes(a, [g.loc[g["r"] == r, measure].to_numpy() for r in radii],
               [_fmt_r(r) for r in radii], [colors[s]] * len(radii))
        med = g.groupby("r", sort=False)[measure].median()
        r_best = best[s] if best is not None and s in best else med.idxmax()
        if r_best in radii:
            k = radii.index(r_best) + 1
            a.axvline(k, color=colors[s], ls=":", lw=1.5)
            edge = edge_of_grid(radii, r_best)
            if edge is not None:
                flagged.append(s)
                a.text(0.5, 0.97, f"maximum at the {edge} radius of the grid:\n"
                       f"extend the grid {'below' if edge == 'smallest' else 'above'} "
                       f"{_fmt_r(r_best)}", transform=a.transAxes, ha="center", va="top",
                       fontsize=8, color="#b00000",
                       bbox={"facecolor": "white", "edgecolor": "#b00000", "alpha": 0.9})
        a.set_title(f"Scenario ({s})")
        a.set_xlabel("radius r (± share of each confidential value)")
        a.yaxis.set_tick_params(labelleft=True)
        a.grid(axis="y", alpha=0.3)
    if measure == "exp_risk":
        # once, from the data: on shared axes a per-panel "current limit + margin" compounds
        # (4 panels ran to 100 for data peaking at 53); 12% above the highest value leaves
        # room for the edge-of-grid note
        values = pd.to_numeric(sweep[measure], errors="coerce").to_numpy(dtype=float)
        values = values[np.isfinite(values)]
        if values.size:
            low, high = min(0.0, float(values.min())), float(values.max())
            span = high - low if high > low else max(abs(high), 1.0)
            for a in axes:
                a.set_ylim(bottom=low, top=high + 0.12 * span)
    for a in first_column:
        a.set_ylabel(risk_axis_label(n, measure))
    handles: list[Artist] = [Patch(facecolor=colors[s], alpha=0.55, edgecolor="black",
                                   label=f"scenario ({s}): m datasets per radius")
                             for s in scenarios]
    handles += _box_legend()
    handles.append(Line2D([], [], color="grey", ls=":", label="maximising radius (highest median)"))
    fig.suptitle(title or "Identification risk by radius\n(one box per radius over the m "
                 "synthetic datasets; shared y-scale)", fontsize=11)
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=8, frameon=False)
    return fig


def plot_risk_at_max(at_max: pd.DataFrame, measure: str = "exp_risk", *, n: int | None = None,
                     colors: Mapping | None = None, title: str | None = None, ax: Any = None):
    """Boxplots of ``measure`` per scenario (rows of :func:`idrisk.analysis.risk_at_radius`).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> d = pd.DataFrame({"scenario": [1, 1, 2, 2], "r": [0.1, 0.1, 0.2, 0.2],
    ...                   "exp_risk": [3.0, 4.0, 1.0, 2.0]})
    >>> len(plot_risk_at_max(d).get_xticklabels())
    2
    """
    from matplotlib.patches import Patch

    _need(at_max, ["scenario", "r", measure], "at_max")
    scenarios = list(dict.fromkeys(at_max["scenario"]))
    colors = colors_for(scenarios, colors)
    n = _n_of(at_max, n)
    ax = new_axes(ax, (8.6, 5.2))
    data, labels = [], []
    for s in scenarios:
        g = at_max[at_max["scenario"] == s]
        data.append(g[measure].to_numpy())
        labels.append(f"({s})\nr = {_fmt_r(g['r'].iloc[0])}")
    _boxes(ax, data, labels, [colors[s] for s in scenarios])
    if measure == "exp_risk":
        top = max((float(np.max(d)) for d in data if len(d)), default=1.0)
        ax.set_ylim(0, 1.1 * top if top > 0 else 1.0)
    ax.set_xlabel("scenario (its maximising radius)")
    ax.set_ylabel(risk_axis_label(n, measure))
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(title or "Identification risk at each scenario's maximising radius\n"
                 "(one box over the m synthetic datasets)", fontsize=10)
    handles = [Patch(facecolor=colors[s], alpha=0.55, edgecolor="black",
                     label=f"scenario ({s})") for s in scenarios] + _box_legend()
    _legend_outside(ax, handles)
    return ax


def plot_utility_risk(df: pd.DataFrame, scenarios: Sequence | None = None,
                      utility: str = "U_p", risk: str = "exp_risk", *, n: int | None = None,
                      colors: Mapping | None = None, title: str | None = None, ax: Any = None):
    """Utility (x) against risk (y) per dataset, with a Q1-Q3 box per scenario.

    Each point is one synthetic dataset; each scenario's box spans the first to third
    quartile of its datasets on both axes. A scenario keeps the colour it has among all the
    scenarios of ``df`` (or in ``colors``).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> d = pd.DataFrame({"scenario": [1, 1, 1, 2, 2, 2], "U_p": [1, 2, 3, 4, 5, 6.0],
    ...                   "exp_risk": [6, 5, 4, 3, 2, 1.0]})
    >>> ax = plot_utility_risk(d)
    >>> len(ax.patches), len(ax.collections)
    (2, 2)
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle

    _need(df, ["scenario", utility, risk], "df")
    every = list(dict.fromkeys(df["scenario"]))
    if scenarios is None:
        scenarios = every
    colors = colors_for(every if colors is None else scenarios, colors)
    n = _n_of(df, n)
    ax = new_axes(ax, (8.6, 5.2))
    handles: list[Artist] = []
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
    _legend_outside(ax, handles)
    return ax


def plot_2d_boxplot(df: pd.DataFrame, group: str = "m", x: str = "U_p",
                    y: str = "record_mean_risk", *, title: str | None = None, ax: Any = None):
    """The article's "2D boxplot": per group a Q1-Q3 rectangle on both axes, median lines,
    and whiskers from the rectangle to the minimum and maximum.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> d = pd.DataFrame({"m": [1] * 5 + [10] * 5, "U_p": np.arange(10.0),
    ...                   "record_mean_risk": np.arange(10.0)[::-1]})
    >>> len(plot_2d_boxplot(d).patches)
    2
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle

    _need(df, [group, x, y], "df")
    ax = new_axes(ax, (8.6, 5.2))
    groups = list(df.groupby(group, sort=True))
    colors = colors_for([g for g, _ in groups])
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
    _legend_outside(ax, handles + [
        Patch(fill=False, edgecolor="grey", label="box: Q1–Q3 on both axes"),
        Line2D([], [], color="grey", lw=1, label="cross: medians"),
        Line2D([], [], color="grey", lw=1, ls="--", label="dashed: to min and max"),
    ])
    ax.set_title(title or f"Utility and risk by {group} (2D boxplot over repetitions)",
                 fontsize=10)
    return ax


def plot_record_risk(record_risk: pd.DataFrame, *, colors: Mapping | None = None,
                     title: str | None = None, ax: Any = None):
    """Distribution of record-level risk (mean of T/c over the m datasets) per scenario.

    Parameters
    ----------
    record_risk : DataFrame
        One column per scenario, one row per confidential record (``result.record_risk``).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> rr = pd.DataFrame({1: [0.0, 0.0, 0.5, 1.0], 2: [0.0, 0.1, 0.2, 0.0]})
    >>> plot_record_risk(rr).get_yscale()
    'log'
    """
    scenarios = list(record_risk.columns)
    colors = colors_for(scenarios, colors)
    ax = new_axes(ax, (8.6, 5.0))
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
    _legend_outside(ax, ax.get_legend_handles_labels()[0])
    ax.grid(axis="y", alpha=0.3)
    return ax


def point_masses(values: Any, share: float = 0.02, top: int = 3) -> pd.Series:
    """Values that look like codes: each holds at least ``share`` of the non-missing records
    and lies apart from the other values (below their 1st or above their 99th percentile, or
    negative where the rest are not), such as a missing-value code −8. Largest share first,
    at most ``top``.

    Examples
    --------
    >>> point_masses(pd.Series([-8.0] * 5 + list(range(1, 21)))).to_dict()
    {-8.0: 0.2}
    >>> point_masses(pd.Series([1000.0] * 5 + list(range(990, 1010)))).empty  # a heap, no code
    True
    """
    v = pd.to_numeric(pd.Series(values), errors="coerce").dropna()
    if v.empty:
        return pd.Series(dtype=float)
    shares = v.value_counts(normalize=True)
    typical = 1 / len(shares)  # a code stands out from a discrete variable's ordinary values
    keep = []
    for value, frac in shares[(shares >= share) & (shares >= 3 * typical)].items():
        rest = v[v != value]
        if rest.empty:
            continue
        low, high = rest.quantile([0.01, 0.99])
        negative_code = value < 0 and (rest >= 0).mean() > 0.9
        if value < low or value > high or negative_code:
            keep.append((value, frac))
    return pd.Series(dict(keep[:top]), dtype=float)


def plot_ecdf(confidential: pd.Series, synthetic: Mapping[object, Sequence], variable: str, *,
              colors: Mapping | None = None, unit: str = "", title: str | None = None,
              ax: Any = None):
    """Empirical CDFs of ``variable``: confidential data (grey) and every synthetic dataset
    (thin lines in its scenario's colour).

    Values that hold a large share of the confidential records (:func:`point_masses`, e.g. a
    missing-value code like −8) are marked and named: the jump of the curve there is a code,
    not a distribution.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> o = pd.Series([1.0, 2.0, 3.0])
    >>> len(plot_ecdf(o, {1: [o + 0.5, o]}, "x").lines)
    3
    """
    from matplotlib.lines import Line2D

    scenarios = list(synthetic)
    colors = colors_for(scenarios, colors)
    ax = new_axes(ax, (8.6, 5.0))

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
    step(confidential, color=CONFIDENTIAL_COLOR, lw=2.2)
    handles.insert(0, Line2D([], [], color=CONFIDENTIAL_COLOR, lw=2.2, label="confidential"))
    numbers = pd.to_numeric(pd.Series(confidential), errors="coerce")
    masses = point_masses(numbers)
    lo, hi = np.nanquantile(numbers, [0.005, 0.995]) if numbers.notna().any() else (0, 0)
    if len(masses):
        lo, hi = min(lo, float(masses.index.min())), max(hi, float(masses.index.max()))
    if np.isfinite(lo) and np.isfinite(hi) and hi > lo:
        ax.set_xlim(lo - 0.02 * (hi - lo), hi + 0.02 * (hi - lo))
    for value, share in masses.items():
        ax.axvline(value, color="#b00000", ls="--", lw=0.9)
        ax.annotate(f"{label(value)}: {100 * share:.0f}% of records", (value, 0.5),
                    xytext=(4, 0), textcoords="offset points", rotation=90, va="center",
                    fontsize=7, color="#b00000")
    if len(masses):
        handles.append(Line2D([], [], color="#b00000", ls="--", lw=0.9,
                              label="one value held by many records (a code?)"))
    ax.set_xlabel(f"{variable}{f' ({unit})' if unit else ''} (central 99% of confidential)")
    ax.set_ylabel("cumulative share of records")
    ax.set_title(title or f"ECDF of {variable}: confidential against synthetic", fontsize=10)
    _legend_outside(ax, handles)
    ax.grid(alpha=0.3)
    return ax


def _levels(confidential: pd.Series, others: Sequence[pd.Series]) -> list[str]:
    """Factor order: declared categories in their order, else numbers by value, then text;
    levels only the synthetic data hold come last."""
    series = pd.Series(confidential)
    if isinstance(series.dtype, pd.CategoricalDtype):
        levels = [label(v) for v in series.cat.categories]
    else:
        levels = sorted({label(v) for v in series.dropna()}, key=natural_key)
    extra = {label(v) for o in others for v in pd.Series(o).dropna()} - set(levels)
    return levels + sorted(extra, key=natural_key)


def plot_category_shares(confidential: pd.Series, synthetic: Mapping[object, Sequence],
                         variable: str, *, colors: Mapping | None = None,
                         title: str | None = None, ax: Any = None):
    """Share of records in each level of a categorical ``variable``: confidential (grey) and,
    per scenario, the mean over its synthetic datasets with the range as an error bar.

    Levels keep the factor's order (declared categories; else numeric codes by value); long
    labels are wrapped and, with many levels, rotated; the legend sits below the bars.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> o = pd.Series(["a", "b", "b", "c"])
    >>> ax = plot_category_shares(o, {1: [o, pd.Series(["a", "a", "b", "c"])]}, "x")
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['a', 'b', 'c']
    """
    scenarios = list(synthetic)
    colors = colors_for(scenarios, colors)
    levels = _levels(confidential, [f for s in scenarios for f in synthetic[s]])

    def shares(values) -> np.ndarray:
        v = pd.Series(values).dropna().map(label)
        return v.value_counts(normalize=True).reindex(levels, fill_value=0.0).to_numpy()

    ax = new_axes(ax, (max(8.6, 2.5 + 0.55 * len(levels) * (len(scenarios) + 1) ** 0.5),
                       5.6))
    k = len(scenarios) + 1
    width = 0.8 / k
    x = np.arange(len(levels))
    ax.bar(x, shares(confidential), width=width, color=CONFIDENTIAL_COLOR, label="confidential")
    for i, s in enumerate(scenarios, start=1):
        table = np.array([shares(f) for f in synthetic[s]])
        mean = table.mean(axis=0)
        err = np.vstack([mean - table.min(axis=0), table.max(axis=0) - mean])
        ax.bar(x + i * width, mean, width=width, color=colors[s], yerr=err, capsize=2,
               label=f"scenario ({s}): mean of the m datasets (bar: min–max)")
    longest = max((len(v) for v in levels), default=1)
    rotate = len(levels) > 8 or (len(levels) > 4 and longest > 12)
    ax.set_xticks(x + width * (k - 1) / 2, [wrap_label(v, 18 if rotate else 12)
                                            for v in levels])
    if rotate:
        ax.tick_params(axis="x", labelrotation=60, labelsize=7)
        for t in ax.get_xticklabels():
            t.set_horizontalalignment("right")
            t.set_rotation_mode("anchor")
    declared = isinstance(pd.Series(confidential).dtype, pd.CategoricalDtype)
    ax.set_xlabel(f"{variable} (level{', in the order of its categories' if declared else ''})")
    ax.set_ylabel("share of records")
    ax.set_title(title or f"{variable}: share of records per level,\nconfidential against "
                 "synthetic", fontsize=10)
    handles, _ = ax.get_legend_handles_labels()
    _legend_outside(ax, handles)
    ax.grid(axis="y", alpha=0.3)
    return ax
