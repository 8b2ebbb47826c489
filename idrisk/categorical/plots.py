"""Figures of Hu & Savitsky: inherent-bound histograms with synthesizer lines (Figure 4) and
table-deviation densities (Figure 1).

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import numpy as np, pandas as pd
>>> from idrisk.risk.bounds import inherent_bounds, label_risk
>>> rng = np.random.default_rng(0)
>>> d = pd.DataFrame({"g": rng.integers(0, 2, 300), "lab": rng.geometric(0.3, 300)})
>>> b = inherent_bounds(d, "lab", "g", S=20, seed=1)
>>> syn = [d.assign(lab=rng.permutation(d["lab"].to_numpy())) for _ in range(3)]
>>> ax = plot_bounds(b, {"shuffle": label_risk(d, syn, "lab", "g")}, "attribute_count")
>>> ax.get_title()
'Exact attribute disclosures: inherent bounds (S = 20) and synthesizers'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["plot_bounds", "plot_table_deviations"]

_LABELS = {
    "exp_risk": ("Expected match risk", "expected match risk (records)"),
    "true_rate": ("True match rate", "true match rate (share of records)"),
    "false_rate": ("False match rate", "false match rate (share of unique matches)"),
    "attribute_count": ("Exact attribute disclosures", "exact attribute disclosures (records)"),
    "attribute_share": ("Exact attribute disclosures", "share of records"),
}
_STYLES = [("tab:orange", "--"), ("tab:blue", ":"), ("tab:red", "-."), ("tab:brown", "-")]
_BOUND_COLORS = {"min": "tab:purple", "max": "tab:green"}


def plot_bounds(bounds, synthesizers: Mapping[str, pd.DataFrame] | None = None,
                measure: str = "exp_risk", scenarios: Sequence[str] = ("min", "max"),
                ax=None, bins: int = 20):
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
    """
    import matplotlib.pyplot as plt

    if measure not in _LABELS:
        raise ValueError(f"measure must be one of {list(_LABELS)}, got {measure!r}")
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    draws = bounds.draws
    for sc in scenarios:
        if sc not in _BOUND_COLORS:
            raise ValueError(f"scenarios must be 'min' and/or 'max', got {sc!r}")
        v = draws.loc[draws["scenario"] == sc, measure].dropna()
        if len(v):
            ax.hist(v, bins=bins, color=_BOUND_COLORS[sc], alpha=0.45,
                    label=f"{sc.capitalize()} scenario (S = {bounds.S})")
    for (name, frame), (color, ls) in zip((synthesizers or {}).items(), _STYLES * 3):
        v = frame[measure].dropna()
        if not len(v):
            continue
        for j, x in enumerate((v.min(), v.mean(), v.max())):
            ax.axvline(x, color=color, ls=ls, lw=2 if j == 1 else 1,
                       label=f"{name}: min / mean / max over m = {len(v)}" if j == 0 else None)
    title, xlabel = _LABELS[measure]
    ax.set_title(f"{title}: inherent bounds (S = {bounds.S}) and synthesizers")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("redraws")
    ax.legend(fontsize="small")
    return ax


def plot_table_deviations(deviations: Mapping[str, object], ways: Sequence[int] = (1, 2, 3),
                          relative: bool = False, axes=None, bins: int = 40):
    """Distribution of the signed cell deviations ``syn - orig`` of one-, two- and three-way
    tables over all m datasets, one panel per table order and one line per synthesizer
    (the paper's Figure 1).

    Parameters
    ----------
    deviations : mapping name -> TableDeviations
        From :func:`idrisk.utility.table_deviations`.
    relative : bool
        Plot ``(syn - orig) / orig`` over the cells with ``orig > 0`` instead of counts.
    """
    import matplotlib.pyplot as plt

    ways = list(ways)
    if axes is None:
        _, axes = plt.subplots(1, len(ways), figsize=(4.2 * len(ways), 3.6), squeeze=False)
        axes = axes[0]
    names = {1: "one-way", 2: "two-way", 3: "three-way"}
    for ax, w in zip(axes, ways):
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
        for (name, v), (color, ls) in zip(values.items(), _STYLES * 3):
            ax.hist(v, bins=edges, density=True, histtype="step", color=color, ls=ls, lw=1.8,
                    label=name)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_title(f"{names.get(w, w)} tables")
        ax.set_xlabel("relative deviation (syn - orig) / orig" if relative
                      else "cell deviation syn - orig (records)")
        ax.set_ylabel("density")
        ax.legend(fontsize="small")
    axes[0].figure.suptitle("Synthetic minus confidential table counts, all m datasets")
    axes[0].figure.tight_layout()
    return axes
