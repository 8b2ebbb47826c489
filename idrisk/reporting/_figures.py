"""The figures of a :class:`~idrisk.reporting.RiskReport`: one per topic, each with its caption.

Figures are drawn on :class:`matplotlib.figure.Figure` objects
(:func:`idrisk._plotting.figure_grid`), never through ``pyplot``'s global state, so the user's
backend and open figures are left alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._compute import RiskReport, _radius_text
from ._precision import precision_figure


def _categorical(rep: RiskReport, v: str) -> bool:
    """The package's rule (:func:`idrisk._schema.column_kinds`) with the report's declared
    types."""
    from .._schema import column_kinds

    options = rep.options
    assert rep.confidential is not None  # kept by compute_report
    kinds = column_kinds(rep.confidential, [v],
                         categorical=None if options is None else options.categorical,
                         continuous=None if options is None else options.continuous)
    return kinds[v] == "categorical"


def report_figures(rep: RiskReport) -> dict[str, tuple[Any, str]]:
    """Figure name -> (Figure, caption)."""
    from .._plotting import colors_for, figure_grid
    from ..plots import (
        plot_category_shares,
        plot_ecdf,
        plot_record_risk,
        plot_risk_at_max,
        plot_risk_by_radius,
        plot_utility_risk,
    )

    names = list(rep.results)
    colors = colors_for(names)
    r_text = _radius_text(rep.r)
    out: dict[str, tuple[Any, str]] = {}
    record_risk = pd.DataFrame({k: res.record_risk.to_numpy() for k, res in rep.results.items()})
    fig, ax = figure_grid(8.6, 5.0)
    plot_record_risk(record_risk, colors=colors, ax=ax[0, 0],
                     title=f"Distribution of record-level identification risk at r = {r_text}")
    out["record_risk"] = (fig, "Record-level risk: for each confidential record, the mean over "
                          "the m synthetic datasets of T/c (the probability that an intruder "
                          "who picks one of the c matching synthetic records at random picks "
                          "the record's own). Most records have risk 0.")
    sweep = rep.tables.sweep
    if sweep is not None:
        best = rep.tables.best_radius
        assert best is not None  # computed with the sweep
        ncols = min(2, len(names))
        nrows = int(np.ceil(len(names) / ncols))
        fig, grid = figure_grid(max(8.6, 5.2 * ncols), 4.2 * nrows + 1.8, nrows, ncols,
                              sharey=True)
        for extra in grid.ravel()[len(names):]:
            extra.remove()
        plot_risk_by_radius(sweep, n=rep.n, colors=colors, ax=list(grid.ravel()[: len(names)]),
                            best={k: best.loc[k, "r"] for k in best.index})
        out["risk_by_radius"] = (fig, "File-level risk (expected number of records identified, "
                                 "out of n) for every radius of the sweep; one box per radius "
                                 "over the m synthetic datasets; the dotted line marks the "
                                 "radius with the highest median risk. A maximum at the edge "
                                 "of the grid is flagged: extend the grid there.")
        fig, ax = figure_grid(8.6, 5.2)
        plot_risk_at_max(rep.tables.risk_at_max, n=rep.n, colors=colors, ax=ax[0, 0])
        out["risk_at_max"] = (fig, "Each scenario at its own maximising radius: the worst case "
                              "an intruder can reach by choosing the radius.")
    if rep.tables.what_if is not None:
        out["whatif"] = precision_figure(rep.tables, figure_grid)
    ru = rep.tables.risk_utility
    if ru is not None and ru["U_p"].notna().any():
        ok = [k for k in names if ru.loc[ru.scenario == k, "U_p"].notna().all()]
        fig, ax = figure_grid(8.6, 5.2)
        plot_utility_risk(ru, ok, n=rep.n, colors=colors, ax=ax[0, 0],
                          title=f"Utility against identification risk at r = {r_text}")
        out["utility_risk"] = (fig, "Each point is one synthetic dataset: propensity-score "
                               "utility U_p (x; smaller = closer to the confidential data) "
                               "against risk (y). Boxes span the first to third quartile of a "
                               "scenario's datasets on both axes.")
    conf = rep.confidential
    if rep.utility and conf is not None:
        ecdf = rep.tables.ecdf_utility
        ecdf_vars = list(dict.fromkeys(ecdf["variable"])) if ecdf is not None else []
        cat_vars = []
        for sc in rep.scenarios.values():
            for v in sc.syn:
                if v not in ecdf_vars and v not in cat_vars and _categorical(rep, v):
                    cat_vars.append(v)
        for v in ecdf_vars:
            with_v = {k: [f[v] for f in sc.synthetic] for k, sc in rep.scenarios.items()
                      if v in sc.syn}
            fig, ax = figure_grid(8.6, 5.0)
            plot_ecdf(conf[v], with_v, v, colors=colors, ax=ax[0, 0])
            out[f"ecdf_{v}"] = (fig, f"Empirical CDF of {v}: the confidential values (grey) "
                                "and each synthetic dataset; close curves mean the "
                                "distribution is preserved. A value held by many records (a "
                                "code such as −8) is marked.")
        for v in cat_vars:
            with_v = {k: [f[v] for f in sc.synthetic] for k, sc in rep.scenarios.items()
                      if v in sc.syn}
            levels = conf[v].nunique()
            fig, ax = figure_grid(max(8.6, 3.0 + 0.5 * levels), 6.0)
            plot_category_shares(conf[v], with_v, v, colors=colors, ax=ax[0, 0])
            out[f"shares_{v}"] = (fig, f"Share of records in each level of {v}: confidential "
                                  "(grey) and each scenario's synthetic datasets (mean, with "
                                  "their range).")
    return out
