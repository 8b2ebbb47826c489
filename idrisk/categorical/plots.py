"""Figures of Hu & Savitsky: inherent-bound histograms with synthesizer lines (Figure 4) and
table-deviation densities (Figure 1).

The package's plot convention (:mod:`idrisk._plotting`): an optional ``ax``, the Axes returned
(the Figure for the multi-panel :func:`plot_table_deviations`), the backend left alone, one
colour per synthesizer.

Examples
--------
>>> import numpy as np, pandas as pd
>>> from idrisk.risk.bounds import inherent_bounds, label_risk
>>> rng = np.random.default_rng(0)
>>> d = pd.DataFrame({"g": rng.integers(0, 2, 300), "lab": rng.geometric(0.3, 300)})
>>> b = inherent_bounds(d, "lab", "g", n_repeats=20, seed=1)
>>> syn = [d.assign(lab=rng.permutation(d["lab"].to_numpy())) for _ in range(3)]
>>> ax = plot_bounds(b, {"shuffle": label_risk(d, syn, "lab", "g")}, "attribute_count")
>>> ax.get_title()
'Exact attribute disclosures: inherent bounds (S = 20) and synthesizers'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._plotting import colors_for, new_axes

if TYPE_CHECKING:
    from ..utility.tables import TableDeviations

__all__ = ["plot_bounds", "plot_table_deviations"]

_LABELS = {
    "exp_risk": ("Expected match risk", "expected match risk (records)"),
    "true_rate": ("True match rate", "true match rate (share of records)"),
    "false_rate": ("False match rate", "false match rate (share of unique matches)"),
    "attribute_count": ("Exact attribute disclosures", "exact attribute disclosures (records)"),
    "attribute_share": ("Exact attribute disclosures", "share of records"),
}
_LINESTYLES = ["--", ":", "-.", "-"]
_BOUND_COLORS = {"min": "tab:purple", "max": "tab:green"}


def plot_bounds(bounds, synthesizers: Mapping[str, pd.DataFrame] | None = None,
                measure: str = "exp_risk", scenarios: Sequence[str] = ("min", "max"),
                ax: Any = None, bins: int = 20, colors: Mapping | None = None):
    """Histogram of the Min/Max redraws of ``measure`` with each synthesizer's minimum, mean
    and maximum over its m datasets as vertical lines (the paper's Figure 4).

    Parameters
    ----------
    bounds : InherentBounds
        From :func:`idrisk.risk.inherent_bounds`.
    synthesizers : mapping name -> DataFrame
        :func:`idrisk.risk.label_risk` frames (one row per synthetic dataset).
    measure : str
        ``exp_risk``, ``true_rate``, ``false_rate``, ``attribute_count`` or
        ``attribute_share``.
    scenarios : sequence of {"min", "max"}
        Which bound histograms to draw (the paper's Figure 4a shows Max only).
    ax : matplotlib.axes.Axes, optional
        Draw here (default: a new figure).
    colors : mapping name -> colour, optional
        Default: the package palette by the synthesizers' order.

    Returns
    -------
    matplotlib.axes.Axes
    """
    if measure not in _LABELS:
        raise ValueError(f"measure must be one of {list(_LABELS)}, got {measure!r}")
    ax = new_axes(ax, (7, 4))
    palette = colors_for(list(synthesizers or {}), colors)
    draws = bounds.draws
    for sc in scenarios:
        if sc not in _BOUND_COLORS:
            raise ValueError(f"scenarios must be 'min' and/or 'max', got {sc!r}")
        v = draws.loc[draws["scenario"] == sc, measure].dropna()
        if len(v):
            ax.hist(v, bins=bins, color=_BOUND_COLORS[sc], alpha=0.45,
                    label=f"{sc.capitalize()} scenario (S = {bounds.n_repeats})")
    for k, (name, frame) in enumerate((synthesizers or {}).items()):
        color, ls = palette[name], _LINESTYLES[k % len(_LINESTYLES)]
        v = frame[measure].dropna()
        if not len(v):
            continue
        for j, x in enumerate((v.min(), v.mean(), v.max())):
            ax.axvline(x, color=color, ls=ls, lw=2 if j == 1 else 1,
                       label=f"{name}: min / mean / max over m = {len(v)}" if j == 0 else None)
    title, xlabel = _LABELS[measure]
    ax.set_title(f"{title}: inherent bounds (S = {bounds.n_repeats}) and synthesizers")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("redraws")
    ax.legend(fontsize="small")
    return ax


def plot_table_deviations(deviations: Mapping[str, TableDeviations],
                          ways: Sequence[int] = (1, 2, 3), relative: bool = False,
                          ax: Any = None, bins: int = 40, colors: Mapping | None = None):
    """Distribution of the signed cell deviations ``syn - orig`` of one-, two- and three-way
    tables over all m datasets, one panel per table order and one line per synthesizer
    (the paper's Figure 1).

    Parameters
    ----------
    deviations : mapping name -> TableDeviations
        From :func:`idrisk.utility.table_deviations`.
    relative : bool
        Plot ``(syn - orig) / orig`` over the cells with ``orig > 0`` instead of counts.
    ax : sequence of Axes, optional
        One Axes per table order (default: a new figure with one panel per order).
    colors : mapping name -> colour, optional
        Default: the package palette by the synthesizers' order.

    Returns
    -------
    matplotlib.figure.Figure
        The figure of the panels (a multi-panel plot returns its Figure).
    """
    ways = list(ways)
    if ax is None:
        import matplotlib.pyplot as plt

        _, grid = plt.subplots(1, len(ways), figsize=(max(6.4, 4.2 * len(ways)), 4.0),
                               squeeze=False, layout="constrained")
        axes = list(grid[0])
    else:
        axes = list(np.ravel(ax)) if not hasattr(ax, "plot") else [ax]
        if len(axes) != len(ways):
            raise ValueError(f"ax: {len(axes)} Axes for {len(ways)} table orders")
    palette = colors_for(list(deviations), colors)
    names = {1: "one-way", 2: "two-way", 3: "three-way"}
    for panel, w in zip(axes, ways, strict=True):
        values = {}
        for name, td in deviations.items():
            c = td.cells[td.cells["way"] == w]
            if relative:
                c = c[c["orig"] > 0]
                values[name] = (c["diff"] / c["orig"]).to_numpy()
            else:
                values[name] = c["diff"].to_numpy()
        allv = np.concatenate([v for v in values.values() if len(v)]) if values else np.array([])
        edges = np.histogram_bin_edges(allv, bins=bins) if len(allv) else bins
        for k, (name, v) in enumerate(values.items()):
            color, ls = palette[name], _LINESTYLES[k % len(_LINESTYLES)]
            panel.hist(v, bins=edges, density=True, histtype="step", color=color, ls=ls,
                       lw=1.8, label=name)
        panel.axvline(0, color="grey", lw=0.8)
        panel.set_title(f"{names.get(w, w)} tables")
        panel.set_xlabel("relative deviation (syn - orig) / orig" if relative
                      else "cell deviation syn - orig (records)")
        panel.set_ylabel("density")
        panel.legend(fontsize="small")
    fig = axes[0].figure
    fig.suptitle("Synthetic minus confidential table counts, all m datasets")
    return fig
