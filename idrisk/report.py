"""A report a statistician can read alone: :func:`report` (``idrisk report`` on the command line).

For the confidential data and one or more scenarios of synthetic datasets it computes the
identification risk at the chosen radius, a radius sweep, the record-level risk and the
utility, and writes

* ``report.html`` -- self-contained (figures embedded as PNG data, no network access);
* ``report.md`` -- the same text and tables, with the figures as PNG files beside it;
* ``summary.csv``, ``datasets.csv``, ``top_records.csv``, ``risk_by_radius.csv``,
  ``risk_utility.csv``, ``ecdf_utility.csv`` and the PNG figures.

Every figure has a title, axis labels with units and a legend for every mark; a scenario has
one colour in all figures, and panels that are compared share their y-scale.
"""

from __future__ import annotations

import base64
import html
import io
import sys
import time
import types
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Report", "report"]

DEFAULT_RADII = (0.01, 0.025, 0.05, 0.1, 0.2, 0.3)


@dataclass
class Report:
    """What :func:`report` wrote and computed.

    Attributes
    ----------
    html, markdown
        Paths of ``report.html`` and ``report.md``.
    results
        Scenario -> :class:`~idrisk.IdentificationRiskResult` at the report's radius.
    tables
        The tables of the report (``summary``, ``datasets``, ``top_records``, ``sweep``,
        ``best_radius``, ``risk_utility``, ``ecdf_utility``), as DataFrames.
    notes
        The warnings raised while computing the risk at the report's radius (each once).
    figures
        Figure name -> PNG path.
    """

    html: Path
    markdown: Path
    results: dict
    tables: dict[str, pd.DataFrame]
    notes: list[str] = field(default_factory=list)
    figures: dict[str, Path] = field(default_factory=dict)

    def __repr__(self) -> str:
        return (
            f"Report(html={str(self.html)!r}, markdown={str(self.markdown)!r}, "
            f"scenarios={list(self.results)}, figures={len(self.figures)}, "
            f"notes={len(self.notes)})"
        )


def _fmt(v: Any, digits: int = 4) -> str:
    """Numbers for people: no exponent for ordinary values, 4 significant digits."""
    if isinstance(v, (float, np.floating)):
        if np.isnan(v):
            return "NaN"
        if v == 0:
            return "0"
        if abs(v) >= 10 ** digits or float(v).is_integer():
            return f"{v:.0f}"
        if abs(v) < 1e-3:
            return f"{v:.3g}"
        return f"{v:.{digits}g}"
    return str(v)


#: display names of the summary columns (the CSV keeps the short names)
_SUMMARY_NAMES = {
    "synthesized": "synthesized",
    "m": "m",
    "s": "unique matches s",
    "exp_risk": "expected risk (records identified, of n)",
    "exp_risk_pct": "expected risk (% of n)",
    "true_rate_pct": "true match rate (% of n)",
    "false_rate_pct": "false match rate (% of s)",
    "c_zero": "records with c = 0",
    "max_risk_radius": "maximising radius",
    "max_median_risk": "median risk there (records)",
    "U_p": "utility U_p",
}


def _display_summary(summary: pd.DataFrame) -> pd.DataFrame:
    t = summary.copy()
    t["exp_risk_pct"] = 100 * t["exp_risk_share"]
    t["true_rate_pct"] = 100 * t["true_rate"]
    t["false_rate_pct"] = 100 * t["false_rate"]
    if "max_risk_radius" in t:
        t["max_risk_radius"] = [
            _radius_text(x) if isinstance(x, (float, np.floating)) else str(x)
            for x in t["max_risk_radius"]
        ]
    cols = [c for c in _SUMMARY_NAMES if c in t.columns]
    return t[cols].rename(columns=_SUMMARY_NAMES)


def _checks_table(results: Mapping) -> pd.DataFrame:
    def span(col: pd.Series) -> str:
        if col.isna().any():
            return "–"
        lo, hi = int(col.min()), int(col.max())
        return f"{lo}" if lo == hi else f"{lo}–{hi}"

    rows = {}
    for name, res in results.items():
        ch = res.checks
        rows[name] = {
            "NA in origdata (continuous var.)": span(ch["na_confidential"]),
            "NA per synthetic dataset": span(ch["na_synthetic"]),
            "never matched (value ≤ 0 under a % radius)": span(ch["never_match"]),
            "c = 0 per dataset (T = 1, risk 0)": span(ch["c_zero"]),
        }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "scenario"
    return out


def _md_table(df: pd.DataFrame, index: bool = True) -> str:
    cols = ([df.index.name or ""] if index else []) + [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "| " + " | ".join(["---"] * len(cols)) + " |"]
    for i, row in zip(df.index, df.itertuples(index=False), strict=True):
        cells = ([_fmt(i)] if index else []) + [_fmt(v) for v in row]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def _html_table(df: pd.DataFrame, index: bool = True) -> str:
    return df.to_html(index=index, border=0, classes="tbl", na_rep="NaN",
                      float_format=lambda v: _fmt(v), escape=True)


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def _radius_text(r: Any) -> str:
    if isinstance(r, Mapping):
        return ", ".join(f"{k} {100 * v:g}%" for k, v in r.items())
    if isinstance(r, (list, tuple, np.ndarray)):
        return ", ".join(f"{100 * float(v):g}%" for v in r)
    return f"{100 * float(r):g}%"


def report(
    origdata: pd.DataFrame,
    synthetic: Any,
    known: Sequence[str],
    syn: Sequence[str] | Mapping[Any, Sequence[str]] | None = None,
    r: float | Sequence[float] | Mapping[str, float] = 0.1,
    out_dir: str | PathLike = "idrisk-report",
    *,
    radii: Sequence[float] | None = DEFAULT_RADII,
    percentage: bool = True,
    euclidean_dist: bool = False,
    categorical: Sequence[str] | None = None,
    continuous: Sequence[str] | None = None,
    align: str | None = None,
    utility: bool = True,
    maxorder: int = 1,
    top: int = 10,
    title: str = "Identification risk of synthetic data",
    sources: Mapping[str, Any] | None = None,
    intro: Sequence[str] = (),
    progress: bool | None = None,
    n_jobs: int | None = None,
) -> Report:
    """Compute risk and utility of synthetic data and write an HTML and a Markdown report.

    Parameters
    ----------
    origdata
        The confidential data (n rows).
    synthetic
        The synthetic datasets of one scenario (a DataFrame, a list of m, or a
        :class:`~idrisk.SynthResult`), or several scenarios as a dict ``{name: datasets or
        Scenario}``. Row i of each is the synthetic version of confidential record i.
    known
        Variables the intruder knows (not synthesized).
    syn
        Synthesized variables (a dict ``{name: variables}`` for several scenarios).
    r
        Radius of the risk tables (as in :func:`idrisk.identification_risk`).
    out_dir
        Created if needed; receives ``report.html``, ``report.md``, CSV tables and PNG figures.
    radii
        Percentage radii of the sweep (applied to every continuous known/syn variable);
        None skips the sweep.
    percentage, euclidean_dist, categorical, continuous, align
        As in :func:`idrisk.identification_risk`.
    utility
        Compute the propensity-score utility U_p (:func:`idrisk.utility.propensity_utility`,
        ``maxorder`` as there: 1 = main effects and two-way interactions, the article's choice)
        and the ECDF utility of each continuous synthesized variable.
    top
        Number of highest-risk records listed per scenario.
    title, intro
        Report title and extra introductory paragraphs (Markdown/plain text).
    sources
        Names of the inputs for the report text, e.g. ``{"origdata": "conf.csv",
        "synthetic": {name: ["syn1.csv", ...]}}``.
    progress
        Progress bars (default: on for long work).
    n_jobs
        Passed to :func:`idrisk.identification_risk`.

    Returns
    -------
    Report
        Paths, results, tables and the warnings seen.

    Examples
    --------
    >>> import tempfile
    >>> from idrisk.datasets import load_demo
    >>> from idrisk import syn
    >>> d = load_demo(n=300, seed=1)
    >>> s = syn(d, m=2, visit_sequence=["Income"], seed=1, rng="numpy").synthetic
    >>> rep = report(d, s, ["Age", "Urban", "Marital"], ["Income"], r=0.1,
    ...              out_dir=tempfile.mkdtemp(), radii=[0.05, 0.1], maxorder=0)
    >>> rep.html.name, sorted(rep.results)
    ('report.html', [1])
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from idrisk._schema import is_categorical
    from idrisk.analysis import Scenario, _scenarios, maximizing_radius, radius_sweep
    from idrisk.plots import (
        plot_category_shares,
        plot_ecdf,
        plot_record_risk,
        plot_risk_at_max,
        plot_risk_by_radius,
        plot_utility_risk,
        scenario_colors,
    )
    from idrisk.risk import identification_risk

    t0 = time.perf_counter()
    if isinstance(synthetic, Mapping):
        scen = _scenarios(synthetic, syn)
    else:
        if syn is None:
            raise ValueError("syn (the synthesized variables) is required")
        scen = {1: Scenario(list(syn) if not isinstance(syn, str) else [syn], synthetic)}
    if top < 0:
        raise ValueError(f"top must be >= 0, got {top}")
    known = [known] if isinstance(known, str) else list(known)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    n = len(origdata)
    names = list(scen)
    colors = scenario_colors(names)
    options = dict(percentage=percentage, euclidean_dist=euclidean_dist,
                   categorical=categorical, continuous=continuous, align=align)
    show = progress if progress is not None else (n * sum(len(s.synthetic) for s in
                                                          scen.values()) > 2_000_000)

    # ---------------------------------------------------------------- risk at the radius
    results, notes, seen = {}, [], set()
    for name, sc in scen.items():
        cat_s = [c for c in (categorical or []) if c in known + sc.syn] or None
        cont_s = [c for c in (continuous or []) if c in known + sc.syn] or None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results[name] = identification_risk(
                origdata, sc.synthetic, known, sc.syn, r=r, progress=show, n_jobs=n_jobs,
                **{**options, "categorical": cat_s, "continuous": cont_s},
            )
        for w in caught:
            body = str(w.message)
            if body in seen:
                continue
            seen.add(body)
            text = f"scenario ({name}): {body}" if len(scen) > 1 else body
            notes.append(text)
            warnings.warn(text, w.category, stacklevel=2)

    def per_dataset(res) -> pd.DataFrame:
        t = res.to_frame("dataset").copy()
        t.insert(2, "exp_risk_share", t["exp_risk"] / res.n)
        return t

    rows, dataset_tables = [], []
    for name, res in results.items():
        t = per_dataset(res)
        rows.append({
            "scenario": name,
            "synthesized": ", ".join(scen[name].syn),
            "m": res.m,
            "s": t["s"].mean(),
            "exp_risk": t["exp_risk"].mean(),
            "exp_risk_share": t["exp_risk_share"].mean(),
            "true_rate": t["true_rate"].mean(),
            "false_rate": t["false_rate"].mean(),
            "c_zero": res.checks["c_zero"].mean(),
        })
        dataset_tables.append(t.reset_index().assign(scenario=name))
    summary = pd.DataFrame(rows).set_index("scenario")
    datasets = pd.concat(dataset_tables, ignore_index=True)
    datasets = datasets[["scenario"] + [c for c in datasets.columns if c != "scenario"]]

    # ---------------------------------------------------------------- record level
    record_risk = pd.DataFrame({name: res.record_risk.to_numpy() for name, res in
                                results.items()})
    top_rows = []
    all_vars = known + [v for sc in scen.values() for v in sc.syn if v not in known]
    all_vars = list(dict.fromkeys(all_vars))
    for name, res in results.items():
        rr = res.record_risk.to_numpy()
        order = np.argsort(-rr, kind="stable")[:top]
        values = origdata.iloc[order][all_vars].reset_index(drop=True)
        part = pd.DataFrame({
            "scenario": name,
            "record": order + 1,
            "record_risk": rr[order],
            "unique_true_matches": res.K.to_numpy()[order].sum(axis=1),
            "mean_c": res.c.to_numpy()[order].mean(axis=1),
        })
        if not (isinstance(origdata.index, pd.RangeIndex) and origdata.index.start == 0):
            part.insert(2, "index", origdata.index[order])
        top_rows.append(pd.concat([part, values], axis=1))
    top_records = pd.concat(top_rows, ignore_index=True) if top_rows else pd.DataFrame()

    # ---------------------------------------------------------------- radius sweep
    sweep = best = None
    if radii is not None and len(radii):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sweep = radius_sweep(origdata, scen, known, radii=list(radii), progress=show,
                                 percentage=percentage, euclidean_dist=euclidean_dist,
                                 categorical=categorical, continuous=continuous, align=align)
        best = maximizing_radius(sweep)
        summary["max_risk_radius"] = [best.loc[nm, "r"] for nm in summary.index]
        summary["max_median_risk"] = [best.loc[nm, "risk"] for nm in summary.index]

    # ---------------------------------------------------------------- utility
    ru = ecdf_table = None
    ecdf_vars: list[str] = []
    cat_vars: list[str] = []
    if utility:
        from idrisk.utility import ecdf_utility, propensity_utility

        parts = []
        for name, sc in scen.items():
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    up = propensity_utility(origdata, sc.synthetic, maxorder=maxorder)
            except (ValueError, TypeError, KeyError, np.linalg.LinAlgError) as err:
                text = f"scenario ({name}): U_p could not be computed: {err}"
                notes.append(text)
                warnings.warn(text, UserWarning, stacklevel=2)
                up = pd.Series(np.nan, index=results[name].exp_risk.index)
            res = results[name]
            parts.append(pd.DataFrame({
                "scenario": name, "r": _radius_text(r), "dataset": res.exp_risk.index,
                "exp_risk": res.exp_risk.to_numpy(),
                "record_mean_risk": res.exp_risk.to_numpy() / n, "U_p": up.to_numpy(),
            }))
        ru = pd.concat(parts, ignore_index=True)
        summary["U_p"] = ru.groupby("scenario", sort=False)["U_p"].mean().reindex(
            summary.index).to_numpy()
        erows = []
        for name, sc in scen.items():
            for v in sc.syn:
                if is_categorical(origdata[v]) or v in (categorical or []):
                    if v not in cat_vars:
                        cat_vars.append(v)
                    continue
                o = pd.to_numeric(origdata[v], errors="coerce").dropna()
                if o.empty:
                    continue
                ss = [pd.to_numeric(f[v], errors="coerce").dropna() for f in sc.synthetic]
                u = ecdf_utility(o.to_numpy(), [s.to_numpy() for s in ss])
                erows.append(u.reset_index().assign(scenario=name, variable=v))
                if v not in ecdf_vars:
                    ecdf_vars.append(v)
        if erows:
            ecdf_table = pd.concat(erows, ignore_index=True)[
                ["scenario", "variable", "dataset", "U_m", "U_a"]]

    # ---------------------------------------------------------------- figures
    figures: dict[str, Any] = {}
    figures["record_risk"] = (
        plot_record_risk(record_risk, colors=colors,
                         title="Distribution of record-level identification risk "
                               f"at r = {_radius_text(r)}"),
        "Record-level risk: for each confidential record, the mean over the m synthetic "
        "datasets of T/c (the probability that an intruder who picks one of the c matching "
        "synthetic records at random picks the record's own). Most records have risk 0.",
    )
    if sweep is not None:
        figures["risk_by_radius"] = (
            plot_risk_by_radius(sweep, n=n, colors=colors,
                                best={k: best.loc[k, "r"] for k in best.index}),
            "File-level risk (expected number of records identified, out of n) for every "
            "radius of the sweep; one box per radius over the m synthetic datasets; the dotted "
            "line marks the radius with the highest median risk.",
        )
        from idrisk.analysis import risk_at_radius

        figures["risk_at_max"] = (
            plot_risk_at_max(risk_at_radius(sweep), n=n, colors=colors),
            "Each scenario at its own maximising radius: the worst case an intruder can reach "
            "by choosing the radius.",
        )
    if ru is not None and ru["U_p"].notna().any():
        ok = [k for k in names if ru.loc[ru.scenario == k, "U_p"].notna().all()]
        figures["utility_risk"] = (
            plot_utility_risk(ru, ok, n=n, colors=colors,
                              title=f"Utility against identification risk at r = "
                                    f"{_radius_text(r)}"),
            "Each point is one synthetic dataset: propensity-score utility U_p (x; smaller = "
            "closer to the confidential data) against risk (y). Boxes span the first to third "
            "quartile of a scenario's datasets on both axes.",
        )
    for v in ecdf_vars:
        with_v = {k: [f[v] for f in sc.synthetic] for k, sc in scen.items() if v in sc.syn}
        figures[f"ecdf_{v}"] = (
            plot_ecdf(origdata[v], with_v, v, colors=colors),
            f"Empirical CDF of {v}: the confidential values (grey) and each synthetic "
            "dataset; close curves mean the distribution is preserved.",
        )
    for v in cat_vars:
        with_v = {k: [f[v] for f in sc.synthetic] for k, sc in scen.items() if v in sc.syn}
        figures[f"shares_{v}"] = (
            plot_category_shares(origdata[v], with_v, v, colors=colors),
            f"Share of records in each level of {v}: confidential (grey) and each scenario's "
            "synthetic datasets (mean, with their range).",
        )
    png_paths, png_bytes = {}, {}
    for key, (fig, _) in figures.items():
        data = _png(fig)
        plt.close(fig)
        path = out / f"fig_{key}.png"
        path.write_bytes(data)
        png_paths[key], png_bytes[key] = path, data

    # ---------------------------------------------------------------- tables to CSV
    tables = {"summary": summary, "datasets": datasets, "top_records": top_records}
    if sweep is not None:
        tables["sweep"] = sweep
        tables["best_radius"] = best
    if ru is not None:
        tables["risk_utility"] = ru
    if ecdf_table is not None:
        tables["ecdf_utility"] = ecdf_table
    csv_names = {"summary": "summary.csv", "datasets": "datasets.csv",
                 "top_records": "top_records.csv", "sweep": "risk_by_radius.csv",
                 "best_radius": "best_radius.csv", "risk_utility": "risk_utility.csv",
                 "ecdf_utility": "ecdf_utility.csv"}
    for key, table in tables.items():
        table.to_csv(out / csv_names[key], index=key in ("summary", "best_radius"))

    # ---------------------------------------------------------------- text
    elapsed = time.perf_counter() - t0
    sources = dict(sources or {})
    doc = _Document(title)
    conf_name = sources.get("origdata")
    doc.para(
        f"Confidential data: {conf_name + ', ' if conf_name else ''}n = {n} records. "
        "Known variables (what the intruder "
        f"knows): {', '.join(known) or 'none'}. Radius r = {_radius_text(r)} "
        + ("(a synthetic value matches within ± r × the confidential value)" if percentage
           else "(absolute: within ± r)")
        + (", R's Euclidean rule." if euclidean_dist else ".")
    )
    for p in intro:
        doc.para(p)
    scen_table = pd.DataFrame({
        "synthesized": [", ".join(sc.syn) for sc in scen.values()],
        "m": [len(sc.synthetic) for sc in scen.values()],
        "files": [_files(sources.get("synthetic", {}), k, len(sc.synthetic))
                  for k, sc in scen.items()],
    }, index=pd.Index(names, name="scenario"))
    doc.table(scen_table)
    doc.heading("How to read the numbers")
    doc.bullets([
        "**expected risk** (`exp_risk`): Σ_i T_i / c_i, the expected number of confidential "
        f"records an intruder identifies, out of n = {n}; `exp_risk_share` is the same as a "
        "share of n. c_i is the number of synthetic records matching record i on the known "
        "and synthesized variables, T_i = 1 when record i's own synthetic row is among them.",
        "**s**: records with exactly one match (c = 1); **true match rate**: share of the n "
        "records with a unique match that is their own (K); **false match rate**: share of "
        "the s unique matches that are someone else's (F).",
        "Records with c = 0 (no match) have T = 1 and risk 0 (the R package's convention): "
        "nothing can be identified.",
    ])
    doc.heading("Risk per scenario")
    doc.table(_display_summary(summary))
    doc.para("Means over the m synthetic datasets. Per dataset:")
    doc.details("Per-dataset table", datasets, index=False)
    doc.heading("Checks on the data")
    doc.para(f"Records (of n = {n}) whose risk R's rules set without a word: NA in a "
             "continuous known/synthesized variable "
             + ("matches anything" if results[names[0]].na_matches
                else "never matches")
             + "; a confidential value ≤ 0 under a percentage radius is never matched; "
             "records with no match (c = 0) count as risk 0.")
    doc.table(_checks_table(results))
    if notes:
        doc.para("Warnings (each once):")
        doc.bullets([f"⚠ {x}" for x in _dedupe(notes)])
    doc.heading("Record-level risk")
    doc.figure("record_risk", png_paths, png_bytes, figures)
    if top:
        doc.para(f"The {top} highest-risk records of each scenario (record = row number in "
                 "the confidential data, from 1; values are the confidential ones):")
        doc.table(top_records, index=False)
    if sweep is not None:
        doc.heading("Radius sweep")
        med = sweep.groupby(["r", "scenario"], sort=False)["exp_risk"].median().unstack()
        med.index = [_radius_text(x) if isinstance(x, float) else str(x) for x in med.index]
        med.index.name = "r"
        doc.para("Median expected risk over the m datasets (records identified, out of n):")
        doc.table(med)
        b = best.copy()
        b["r"] = [_radius_text(x) if isinstance(x, float) else x for x in b["r"]]
        b["runner_up_r"] = [_radius_text(x) if isinstance(x, float) else x
                            for x in b["runner_up_r"]]
        doc.para("Maximising radius per scenario (highest median risk) and the runner-up:")
        doc.table(b)
        doc.figure("risk_by_radius", png_paths, png_bytes, figures)
        doc.figure("risk_at_max", png_paths, png_bytes, figures)
    if ru is not None:
        doc.heading("Utility")
        doc.para(
            "U_p: propensity-score mean squared error of a logistic regression telling "
            f"confidential from synthetic records (main effects{' and interactions up to order ' + str(maxorder + 1) if maxorder else ''}; "  # noqa: E501
            "0 = indistinguishable, 0.25 = perfectly separable). ECDF utility per continuous "
            "synthesized variable: U_m = max |F_conf − F_syn|, U_a = mean squared difference "
            "(smaller is better)."
        )
        doc.figure("utility_risk", png_paths, png_bytes, figures)
        if ecdf_table is not None:
            doc.table(ecdf_table.groupby(["scenario", "variable"], sort=False)[["U_m", "U_a"]]
                      .mean())
            for v in ecdf_vars:
                doc.figure(f"ecdf_{v}", png_paths, png_bytes, figures)
        for v in cat_vars:
            doc.figure(f"shares_{v}", png_paths, png_bytes, figures)
    doc.para(f"idrisk {_version()}; run time {elapsed:.1f} s. Tables as CSV beside this file.")
    html_path, md_path = out / "report.html", out / "report.md"
    html_path.write_text(doc.html(), encoding="utf-8")
    md_path.write_text(doc.markdown(), encoding="utf-8")
    return Report(html=html_path, markdown=md_path, results=results, tables=tables, notes=notes,
                  figures=png_paths)


def _dedupe(notes: Sequence[str]) -> list[str]:
    """Notes without the scenario prefix when every scenario says the same."""
    out: list[str] = []
    for x in notes:
        body = x.split("): ", 1)[1] if x.startswith("scenario (") else x
        if any(o.endswith(body) for o in out):
            continue
        out.append(x)
    return out


def _files(synthetic_sources: Any, name: Any, m: int) -> str:
    files = synthetic_sources.get(name) if isinstance(synthetic_sources, Mapping) else None
    if not files:
        return "(in memory)"
    files = [Path(str(f)).name for f in files]
    return ", ".join(files) if len(files) <= 3 else f"{files[0]} … {files[-1]} ({m} files)"


def _version() -> str:
    from idrisk import __version__

    return __version__


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;
margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{font-size:1.25em;border-bottom:1px solid #ddd;padding-bottom:.2em;
margin-top:1.8em}
table.tbl{border-collapse:collapse;font-size:.85em;margin:.6em 0}
table.tbl th,table.tbl td{border-bottom:1px solid #e3e3e3;padding:.25em .6em;text-align:right}
table.tbl th{background:#f5f5f5}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}
code{background:#f3f3f3;padding:0 .2em}
"""


class _Document:
    """The report's blocks, rendered as Markdown (PNG files) and as self-contained HTML."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.blocks: list[tuple[str, Any]] = []

    def para(self, text: str) -> None:
        self.blocks.append(("p", text))

    def heading(self, text: str) -> None:
        self.blocks.append(("h", text))

    def bullets(self, items: Sequence[str]) -> None:
        self.blocks.append(("ul", list(items)))

    def table(self, df: pd.DataFrame, index: bool = True) -> None:
        self.blocks.append(("table", (df, index)))

    def details(self, summary: str, df: pd.DataFrame, index: bool = True) -> None:
        self.blocks.append(("details", (summary, df, index)))

    def figure(self, key: str, paths: dict, data: dict, figures: dict) -> None:
        if key in paths:
            self.blocks.append(("fig", (paths[key].name, data[key], figures[key][1], key)))

    def markdown(self) -> str:
        out = [f"# {self.title}", ""]
        for kind, value in self.blocks:
            if kind == "p":
                out += [value, ""]
            elif kind == "h":
                out += [f"## {value}", ""]
            elif kind == "ul":
                out += [f"* {x}" for x in value] + [""]
            elif kind == "table":
                out += [_md_table(*value), ""]
            elif kind == "details":
                summary, df, index = value
                out += [f"<details><summary>{summary}</summary>", "", _md_table(df, index), "",
                        "</details>", ""]
            elif kind == "fig":
                name, _, caption, key = value
                out += [f"![{key}]({name})", "", f"*{caption}*", ""]
        return "\n".join(out)

    def html(self) -> str:
        def inline(text: str) -> str:
            t = html.escape(text)
            parts = t.split("**")
            t = "".join(f"<b>{p}</b>" if k % 2 else p for k, p in enumerate(parts))
            parts = t.split("`")
            return "".join(f"<code>{p}</code>" if k % 2 else p for k, p in enumerate(parts))

        body = [f"<h1>{html.escape(self.title)}</h1>"]
        for kind, value in self.blocks:
            if kind == "p":
                body.append(f"<p>{inline(value)}</p>")
            elif kind == "h":
                body.append(f"<h2>{html.escape(value)}</h2>")
            elif kind == "ul":
                body.append("<ul>" + "".join(f"<li>{inline(x)}</li>" for x in value) + "</ul>")
            elif kind == "table":
                body.append(_html_table(*value))
            elif kind == "details":
                summary, df, index = value
                body.append(f"<details><summary>{html.escape(summary)}</summary>"
                            f"{_html_table(df, index)}</details>")
            elif kind == "fig":
                _, data, caption, key = value
                b64 = base64.b64encode(data).decode("ascii")
                body.append(
                    f"<figure><img alt='{html.escape(key)}' src='data:image/png;base64,{b64}'>"
                    f"<figcaption>{html.escape(caption)}</figcaption></figure>"
                )
        return (
            "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{html.escape(self.title)}</title><style>{_CSS}</style></head><body>"
            + "\n".join(body)
            + "</body></html>\n"
        )


class _CallableModule(types.ModuleType):
    """``idrisk.report(...)`` works whether ``idrisk.report`` resolved to this module (after
    ``import idrisk.report``) or to the function (the lazy top-level export)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Report:
        return report(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
