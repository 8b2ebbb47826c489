"""The report's "How precise, and what drives it" section: the Monte-Carlo interval per
scenario, the m advice, record-level stability and the what-if table with its tornado figure.

:func:`precision_tables` computes the tables (called by :func:`~idrisk.reporting.compute_report`),
:func:`precision_figure` draws the figure and :func:`precision_section` writes the section
(both called by :mod:`idrisk.reporting._render`). Nothing here prints a confidential value:
intervals and counts of records, the variable names and the settings only.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["PRECISION_CSV", "PRECISION_FILES", "RELATIVE_TARGETS", "precision_figure",
           "precision_section", "precision_tables"]

#: the relative precisions (half-width / estimate) of the m advice
RELATIVE_TARGETS = (0.10, 0.05)

#: table -> CSV file of the report
PRECISION_CSV = {"interval": "interval.csv", "m_advice": "m_advice.csv",
                 "stability": "stability.csv", "what_if": "whatif.csv"}

#: file -> (contents, who may see it), for the report's list of files
PRECISION_FILES = {
    "interval.csv": ("Monte-Carlo interval of s, expected risk and match rates per scenario",
                     "as summary.csv"),
    "m_advice.csv": ("the number of synthetic datasets m for a given precision (an estimate)",
                     "as summary.csv"),
    "stability.csv": ("number of records identified in k of the m synthetic datasets",
                      "as summary.csv"),
    "whatif.csv": ("expected risk when a known variable is dropped or known to a coarser "
                   "radius", "as summary.csv"),
}


def precision_tables(results: Mapping[Any, Any], confidential: pd.DataFrame,
                     scenarios: Mapping[Any, Any], known: Sequence[str], r: Any,
                     options: Mapping[str, Any], *, level: float = 0.95,
                     what_if: bool = True, n_jobs: int | None = None) -> dict[str, pd.DataFrame]:
    """The section's tables: ``interval``, ``m_advice``, ``stability`` and (``what_if``) the
    what-if table of the first scenario."""
    from ..risk.precision import interval, record_stability, required_m, stability_counts

    parts, advice, stab = [], [], []
    for name, res in results.items():
        t = interval(res, level).reset_index()
        t.insert(0, "scenario", name)
        parts.append(t)
        row: dict[str, Any] = {"scenario": name, "m": res.m,
                               "exp_risk": float(res.exp_risk.mean())}
        if res.m >= 2:
            half = float(t.set_index("measure").loc["exp_risk", "upper"]
                         - t.set_index("measure").loc["exp_risk", "mean"])
            row["half_width"] = half
            for share in RELATIVE_TARGETS:
                try:
                    row[f"m_for_{100 * share:g}pct"] = required_m(res, relative=share,
                                                                  level=level)
                except ValueError:  # a mean risk of 0: no relative precision
                    row[f"m_for_{100 * share:g}pct"] = np.nan
        advice.append(row)
        counts = stability_counts(record_stability(res), res.m)
        stab.append({"scenario": name, "m": res.m,
                     "identified_in_every_dataset": int(counts["records"].iloc[-1]),
                     "identified_in_some_not_all": int(counts["records"].iloc[:-1].sum()),
                     "identified_in_none": int(len(confidential) - counts["records"].sum())})
    tables = {"interval": pd.concat(parts, ignore_index=True),
              "m_advice": pd.DataFrame(advice), "stability": pd.DataFrame(stab)}
    first = next(iter(scenarios))
    if what_if:
        from ..risk.options import RiskOptions
        from ..risk.whatif import what_if as compute_what_if

        sc = scenarios[first]
        used = set(known) | set(sc.syn)
        kinds = {k: tuple(c for c in (options.get(k) or ()) if c in used)
                 for k in ("categorical", "continuous")}
        opts = RiskOptions(known=known, syn=sc.syn, r=r, **{**options, **kinds})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the report's notes hold the baseline's warnings
            wi = compute_what_if(confidential, sc.synthetic, level=level, options=opts,
                                 n_jobs=n_jobs)
        table = wi.table.copy()
        table.attrs.update(scenario=first, n=wi.n, m=wi.m, level=level)
        tables["what_if"] = table
    return tables


def precision_figure(tables: Any, new_axes: Any) -> tuple[Any, str]:
    """The tornado figure of the what-if table (``tables``: the report's
    :class:`~idrisk.reporting.ReportTables`): (Figure, caption)."""
    from ..risk.whatif import WhatIfResult

    table = tables.what_if
    a = table.attrs
    wi = WhatIfResult(table=table, datasets=pd.DataFrame(), n=a["n"], m=a["m"],
                      level=a["level"])
    fig, ax = new_axes(8.6, max(4.4, 1.4 + 0.34 * len(table)))
    wi.plot(ax=ax[0, 0], title=f"What drives the risk of scenario ({a['scenario']}): one "
            "change at a time")
    caption = ("Each bar runs from the baseline's expected risk (vertical line; grey band: "
               "its interval) to the expected risk after one change: a known variable the "
               "intruder does not know, or a continuous known variable known only to a coarser "
               "radius. Whiskers: the Monte-Carlo interval of each row. Every row is an "
               "ordinary identification-risk computation on the changed inputs.")
    return fig, caption


def _fmt_m(v: Any) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{int(v)}"


def precision_section(doc: Any, report_tables: Any, fig: Any) -> None:
    """Write the section into the report ``doc`` (``report_tables``: the report's
    :class:`~idrisk.reporting.ReportTables`; ``fig(key)`` places a figure)."""
    tables = dict(report_tables.items())
    if "interval" not in tables:
        return
    it = tables["interval"]
    level = float(it["level"].iloc[0])
    pct = f"{100 * level:g}%"
    doc.heading("How precise, and what drives it")
    doc.para(
        "Each file-level number is a mean over the m synthetic datasets, which are random "
        f"draws. The {pct} interval below (mean ± t × se, se = sd / √m, a t-interval with "
        "m − 1 degrees of freedom) covers the randomness of those draws given the "
        "confidential data and, where one fitted synthesizer drew them all, given that fit. "
        "It does not cover the sampling of the confidential data from its population, nor "
        "the choice of radius and known variables.")
    shown = it[it["measure"].isin(["exp_risk", "true_rate", "false_rate"])]
    table = shown.pivot(index="scenario", columns="measure", values=["mean", "lower", "upper"])
    rows = {}
    for name in dict.fromkeys(shown["scenario"]):
        entry = {}
        for measure, label in (("exp_risk", "expected risk (records)"),
                               ("true_rate", "true match rate (% of n)"),
                               ("false_rate", "false match rate (% of s)")):
            scale = 1 if measure == "exp_risk" else 100
            mean, lo, hi = (table.loc[name, (k, measure)] for k in ("mean", "lower", "upper"))
            if np.isnan(lo):
                entry[label] = f"{_num(scale * mean)} (no interval: m = 1)"
            else:
                entry[label] = (f"{_num(scale * mean)} [{_num(scale * lo)}, "
                                f"{_num(scale * hi)}]")
        rows[name] = entry
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "scenario"
    doc.para(f"Mean over the m datasets and its {pct} Monte-Carlo interval [lower, upper]:")
    doc.table(out)
    if (it["m"] < 2).any():
        doc.para("With m = 1 no interval can be given: the spread over synthetic datasets "
                 "needs two or more.")
    adv = tables["m_advice"]
    if "half_width" in adv:
        cols = {"m": "m now", "half_width": f"half-width now (records, {pct})"}
        cols.update({f"m_for_{100 * s:g}pct": f"m for ±{100 * s:g}%" for s in
                     RELATIVE_TARGETS})
        a = adv.set_index("scenario")[[c for c in cols if c in adv]].copy()
        for c in a.columns:
            if c.startswith("m"):
                a[c] = [_fmt_m(v) for v in a[c]]
        doc.para(
            "How many synthetic datasets are needed for the interval of the expected risk to "
            "reach ±10% or ±5% of the estimate. **An estimate**: it extrapolates the spread of "
            "the datasets at hand, itself uncertain with few datasets; check the interval of "
            "the final run. For another precision: `required_m(result, relative=...)` in "
            "Python, `idrisk risk ... --relative` or `--precision` on the command line.")
        doc.table(a.rename(columns=cols))
    st = tables["stability"].set_index("scenario").rename(columns={
        "identified_in_every_dataset": "identified in every dataset",
        "identified_in_some_not_all": "in some, not all",
        "identified_in_none": "in none"})
    doc.para("Record-level stability: records with a unique true match (c = 1, T = 1) in "
             "every synthetic dataset are at risk whatever the draw; those identified in only "
             "some datasets are at risk by chance. Counts of records (of n):")
    doc.table(st)
    wi = tables.get("what_if")
    if wi is not None:
        a = wi.attrs
        doc.para(
            f"What drives the risk of scenario ({a['scenario']}): the expected risk, with its "
            f"{pct} interval, when one thing changes. Every row is an ordinary "
            "identification-risk computation on changed inputs (nothing is modelled): "
            "`drop` = the intruder does not know that variable; `radius` = a continuous known "
            "variable known only to a coarser radius (2, 3 and 5 times the radius). "
            "`difference` is the change in records from the baseline.")
        shown_wi = wi[["change", "variable", "setting", "exp_risk", "lower", "upper",
                       "difference"]].rename(columns={"exp_risk": "expected risk (records)"})
        doc.table(shown_wi, index=False)
        fig("whatif")


def _num(v: float) -> str:
    if not np.isfinite(v):
        return "–"
    return f"{v:.3g}" if abs(v) < 10 else f"{v:.1f}"
