"""The document of a :class:`~idrisk.reporting.RiskReport`: its sections as HTML and Markdown
(tables, figures, notes), written by :func:`idrisk.reporting.write_report`.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._interface import spell
from ..risk.options import RiskOptions
from ._compute import RiskReport, _radius_text
from ._precision import PRECISION_CSV, PRECISION_FILES, precision_section

#: file -> (what it holds, who may see it). Shown in every report.
FILES = {
    "report.html": ("the report, self-contained (figures embedded)",
                    "as the summary tables; with {show} only those allowed "
                    "to see the confidential data"),
    "report.md": ("the same report as Markdown; figures as the PNG files beside it",
                  "as report.html"),
    "summary.csv": ("risk and utility per scenario (means over the m datasets)",
                    "anyone who may see the risk assessment of the synthetic data"),
    "datasets.csv": ("risk per synthetic dataset", "as summary.csv"),
    "checks.csv": ("counts of records with missing values, never matched, c = 0",
                   "as summary.csv"),
    "top_records.csv": ("the highest-risk records: row numbers of the confidential file, risk "
                        "and match counts (their values only with "
                        "{show})",
                        "the data custodian: row numbers point into the confidential file"),
    "risk_by_radius.csv": ("the radius sweep: risk per scenario, radius and dataset",
                           "as summary.csv"),
    "best_radius.csv": ("each scenario's maximising radius", "as summary.csv"),
    "risk_utility.csv": ("risk and U_p per dataset", "as summary.csv"),
    "ecdf_utility.csv": ("ECDF utility per variable and dataset", "as summary.csv"),
    "disclosure.csv": ("synthpop's disclosure measures (UiO, repU, Dorig, DiSCO) per "
                       "target and dataset", "as summary.csv"),
    "disclosure_checks.csv": ("synthpop's 1-way and 2-way checks: counts (the flagged levels "
                              "only with {show})", "as summary.csv; with {show} only "
                              "those allowed to see the confidential data"),
    "fig_*.png": ("the figures; the ECDF and category figures draw the distribution of the "
                  "confidential data", "as a published table of the confidential data's "
                  "distribution (your disclosure review decides)"),
}

_CSV = {"summary": "summary.csv", "datasets": "datasets.csv", "checks": "checks.csv",
        "top_records": "top_records.csv", "sweep": "risk_by_radius.csv",
        "best_radius": "best_radius.csv", "risk_utility": "risk_utility.csv",
        "ecdf_utility": "ecdf_utility.csv", "disclosure": "disclosure.csv",
        "disclosure_checks": "disclosure_checks.csv"}
_INDEXED = {"summary", "best_radius", "checks"}
FILES.update(PRECISION_FILES)
_CSV.update(PRECISION_CSV)



def confidential_notice() -> str:
    """The first line of a report that lists confidential values."""
    return (f"CONFIDENTIAL: this report lists confidential values "
            f"({spell('show_confidential_values', True)}); share it only with those allowed "
            "to see the confidential data.")



def _fmt(v: Any, digits: int = 4) -> str:
    """Numbers for people: no exponent for ordinary values, 4 significant digits."""
    if isinstance(v, (float, np.floating)):
        if np.isnan(v):
            return "–"
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

_CHECK_NAMES = {
    "na_confidential": "NA in confidential data (continuous var.)",
    "na_synthetic": "NA per synthetic dataset",
    "never_match": "never matched (value ≤ 0 under a % radius)",
    "c_zero": "c = 0 per dataset (T = 1, risk 0)",
}

_TOP_NAMES = {
    "record": "record (row of the confidential file, from 1)",
    "record_risk": "record-level risk",
    "mean_matches_c": "matches c (mean over datasets)",
    "unique_true_matches": "datasets with a unique true match",
    "missing_matched_values": "missing values among its matched variables",
}


def _display_summary(summary: pd.DataFrame) -> pd.DataFrame:
    t = summary.copy()
    t["exp_risk_pct"] = 100 * t["exp_risk_share"]
    t["true_rate_pct"] = 100 * t["true_rate"]
    t["false_rate_pct"] = 100 * t["false_rate"]
    if "max_risk_radius" in t:
        t["max_risk_radius"] = [_radius_text(x) if isinstance(x, (float, np.floating))
                                else str(x) for x in t["max_risk_radius"]]
    if "U_p" in t:
        t["U_p"] = [_fmt(x) if np.isfinite(x) else "not computed (see notes)"
                    for x in t["U_p"]]
    cols = [c for c in _SUMMARY_NAMES if c in t.columns]
    return t[cols].rename(columns=_SUMMARY_NAMES)


def _files(synthetic_sources: Any, name: Any, m: int) -> str:
    files = synthetic_sources.get(name) if isinstance(synthetic_sources, Mapping) else None
    if not files:
        return "(in memory)"
    files = [Path(str(f)).name for f in files]
    return ", ".join(files) if len(files) <= 3 else f"{files[0]} … {files[-1]} ({m} files)"


def build_document(rep: RiskReport, figures: Mapping, png: Mapping[str, bytes]) -> _Document:
    from .. import __version__

    n, known, names = rep.n, list(rep.known), list(rep.results)
    options, sources = rep.options or RiskOptions(known=rep.known or ("?",)), rep.sources
    doc = _Document(rep.title)
    if rep.show_confidential_values:
        doc.notice(confidential_notice())

    def fig(key: str) -> None:
        if key in png:
            doc.figure(f"fig_{key}.png", png[key], figures[key][1], key)

    conf_name = sources.get("confidential")
    percentage = options.percentage
    doc.para(
        f"Confidential data: {conf_name + ', ' if conf_name else ''}n = {n} records. "
        f"Known variables (what the intruder knows): {', '.join(known) or 'none'}. "
        f"Radius r = {_radius_text(rep.r)}"
        + ("" if rep.r is None  # every variable matched by equality (R's r = NULL)
           else " (a synthetic value matches within ± r × the confidential value)"
           if percentage else " (absolute: within ± r)")
        + (", R's Euclidean rule." if options.euclidean_dist else ".")
    )
    for p in rep.intro:
        doc.para(p)
    doc.table(pd.DataFrame({
        "synthesized": [", ".join(sc.syn) for sc in rep.scenarios.values()],
        "m": [len(sc.synthetic) for sc in rep.scenarios.values()],
        "files": [_files(sources.get("synthetic", {}), k, len(sc.synthetic))
                  for k, sc in rep.scenarios.items()],
    }, index=pd.Index(names, name="scenario")))
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
    doc.table(_display_summary(rep.tables.summary))
    doc.para("Means over the m synthetic datasets. Per dataset:")
    doc.details("Per-dataset table", rep.tables.datasets, index=False)
    doc.heading("Checks on the data")
    doc.para(f"Records (of n = {n}) whose risk R's rules set without a word: NA in a "
             "continuous known/synthesized variable "
             + ("matches anything" if options.na_matches else "never matches")
             + "; a confidential value ≤ 0 under a percentage radius is never matched; "
             "records with no match (c = 0) count as risk 0. Ranges over the m datasets.")
    doc.table(rep.tables.checks.rename(columns=_CHECK_NAMES))
    if rep.notes:
        doc.para("Notes and warnings (each once):")
        doc.bullets([f"⚠ {x}" for x in _dedupe(rep.notes)])
    doc.heading("Record-level risk")
    fig("record_risk")
    top = rep.tables.top_records
    if len(top) and not rep.show_confidential_values:
        # record numbers point into the confidential file: only in the custodian's file
        # top_records.csv, never in this shareable report (issue 29)
        doc.para(f"The {rep.top} highest-risk records of each scenario (record number, risk "
                 "and match counts) are in top_records.csv, for the data custodian only: "
                 "record numbers point into the confidential file, so this report, which may "
                 "be shared, does not list them "
                 f"({spell('show_confidential_values', True)} lists them with their values "
                 "in a report for those allowed to see the confidential data).")
    elif len(top):
        k = rep.top
        doc.para(f"The {k} highest-risk records of each scenario (record = row number in the "
                 "confidential file, from 1). Their confidential values are listed "
                 f"({spell('show_confidential_values', True)})."
                 " A missing value in a continuous matched variable matches every synthetic "
                 "value (R's rule): such a record ranks high because its other variables "
                 "alone decide its matches.")
        doc.table(top.rename(columns=_TOP_NAMES), index=False)
    sweep = rep.tables.sweep
    if sweep is not None:
        doc.heading("Radius sweep")
        med = sweep.groupby(["r", "scenario"], sort=False)["exp_risk"].median().unstack()
        med.index = [_radius_text(x) if isinstance(x, float) else str(x) for x in med.index]
        med.index.name = "r"
        doc.para("Median expected risk over the m datasets (records identified, out of n):")
        doc.table(med)
        assert rep.tables.best_radius is not None  # computed with the sweep
        b = rep.tables.best_radius.copy()
        for col in ("r", "runner_up_r"):
            b[col] = [_radius_text(x) if isinstance(x, float) else x for x in b[col]]
        b["at_edge"] = [f"yes ({e} radius): extend the grid" if e else "no"
                        for e in b["at_edge"]]
        doc.para("Maximising radius per scenario (highest median risk), the runner-up, and "
                 "whether the maximum lies at the edge of the grid:")
        doc.table(b.rename(columns={"at_edge": "at the edge of the grid"}))
        fig("risk_by_radius")
        fig("risk_at_max")
    precision_section(doc, rep.tables, fig)
    if rep.tables.risk_utility is not None:
        doc.heading("Utility")
        doc.para(
            "U_p: propensity-score mean squared error of a classification tree (synthpop's "
            "utility.gen default, method = \"cart\") telling confidential from synthetic "
            "records (0 = indistinguishable, 0.25 = perfectly separable). ECDF utility per "
            "continuous synthesized variable: U_m = max |F_conf − F_syn|, U_a = mean squared "
            "difference (smaller is better)."
        )
        fig("utility_risk")
        ecdf = rep.tables.ecdf_utility
        if ecdf is not None:
            doc.table(ecdf.groupby(["scenario", "variable"], sort=False)[["U_m", "U_a"]].mean())
        for key in png:
            if key.startswith(("ecdf_", "shares_")):
                fig(key)
    if rep.tables.disclosure is not None:
        _disclosure_section(doc, rep)
    doc.heading("Files in this folder and who may see them")
    written = {"report.html", "report.md", "fig_*.png"} | {
        _CSV[k] for k, _ in rep.tables.items() if k in _CSV}
    show = spell("show_confidential_values", True)
    doc.table(pd.DataFrame([(f, what.format(show=show), who.format(show=show))
                            for f, (what, who) in FILES.items() if f in written],
                           columns=["file", "contents", "may be shared with"]), index=False)
    doc.para(f"idrisk {__version__}; computed in {rep.elapsed:.1f} s. Tables as CSV beside "
             "this file.")
    return doc


def _disclosure_section(doc: _Document, rep: RiskReport) -> None:
    """synthpop's disclosure measures: repU and DiSCO per target and dataset, the checks."""
    table, checks = rep.tables.disclosure, rep.tables.disclosure_checks
    assert table is not None and checks is not None  # with disclosure_target
    keys = ", ".join(table.attrs.get("keys", []))
    doc.heading("synthpop's disclosure measures")
    doc.para(
        f"As synthpop's disclosure() computes them, from the keys {keys}: an intruder looks "
        "up a person's key combination in the synthetic data. repU is the % of confidential "
        "records unique on the keys whose combination is unique in the synthetic data too "
        "(replicated uniques; UiO: unique in the confidential data). DiSCO is the % of "
        "confidential records whose key combination fixes the target in the synthetic data "
        "to their own, correct value (Dorig: fixed in the confidential data itself). Unlike "
        "the identification risk above, neither uses the pairing of confidential and "
        "synthetic rows. Numeric targets are grouped into "
        f"{table.attrs.get('ngroups', 5)} quantile classes."
    )
    if len(table):
        doc.table(table.groupby(["scenario", "target"], sort=False)[
            ["UiO", "repU", "Dorig", "DiSCO"]].mean().reset_index(), index=False)
        doc.para("Means over the m synthetic datasets (% of the n confidential records).")
        doc.details("Per-dataset table", table, index=False)
    doc.para(
        "Checks (synthpop's thresholds): the 1-way check flags a target level that makes up "
        "more than 90% of the DiSCO records (and more than 50 of them): the disclosure may be "
        "what anyone would guess from that level's frequency. The 2-way check counts "
        "target-key level pairs, from table cells of more than 4 DiSCO records, where over "
        "80% of the confidential records with the key level have the target level: "
        "disclosure that one key alone gives. Counts only; the levels are listed with "
        f"{spell('show_confidential_values', True)}."
    )
    flagged = checks[(checks["1-way flagged"]) | (checks["2-way flagged pairs"] > 0)] if len(
        checks) else checks
    if len(flagged):
        doc.table(flagged, index=False)
    else:
        doc.para("No target was flagged by either check.")


def _dedupe(notes: Sequence[str]) -> list[str]:
    """Notes without the scenario prefix when every scenario says the same."""
    out: list[str] = []
    for x in notes:
        body = x.split("): ", 1)[1] if x.startswith("scenario (") else x
        if any(o.endswith(body) for o in out):
            continue
        out.append(x)
    return out


#: a cell that reads as a number: "0.1234", "-3", "1e-05", "10 %", "12.5%", or the NA dash
_NUMBER = re.compile(r"^[-+−]?(\d[\d,]*\.?\d*|\.\d+)([eE][-+]?\d+)?\s*%?$")


def _is_number(v: Any) -> bool:
    """True for a real number (not a bool) or a string that reads as one."""
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (int, float, np.integer, np.floating)):
        return True
    return isinstance(v, str) and bool(_NUMBER.match(v.strip()))


def _is_na(v: Any) -> bool:
    return v is None or v is pd.NA or v is pd.NaT or (
        isinstance(v, (float, np.floating)) and np.isnan(v))


def _cell(v: Any) -> str:
    return "–" if _is_na(v) else _fmt(v)


def _table_cells(df: pd.DataFrame, index: bool = True
                 ) -> tuple[list[str], list[list[str]], list[bool]]:
    """Header, formatted rows and, per column, whether it is numeric (right-aligned).

    Parameters
    ----------
    df : pandas.DataFrame
        The table; a MultiIndex on the rows becomes one column per level.
    index : bool
        Whether the row index is shown as the first column(s).

    Returns
    -------
    tuple
        ``(header, rows, numeric)``: a column is numeric when every non-missing cell is
        a number or reads as one (and at least one is); text columns are left-aligned.
    """
    raw: list[list[Any]] = []
    header: list[str] = []
    if index:
        names = list(df.index.names)
        header += [str(n) if n is not None else "" for n in names]
        for level in range(len(names)):
            raw.append(list(df.index.get_level_values(level)))
    for j, c in enumerate(df.columns):
        header.append(" ".join(str(x) for x in c) if isinstance(c, tuple) else str(c))
        raw.append(list(df.iloc[:, j]))
    numeric = []
    for col in raw:
        present = [v for v in col if not _is_na(v) and v != "–"]
        numeric.append(bool(present) and all(_is_number(v) for v in present))
    rows = [[_cell(col[i]) for col in raw] for i in range(len(df))]
    return header, rows, numeric


def _md_table(df: pd.DataFrame, index: bool = True) -> str:
    header, rows, numeric = _table_cells(df, index)
    lines = ["| " + " | ".join(h.replace("|", "\\|") for h in header) + " |",
             "| " + " | ".join("--:" if n else ":--" for n in numeric) + " |"]
    for cells in rows:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def _html_table(df: pd.DataFrame, index: bool = True) -> str:
    header, rows, numeric = _table_cells(df, index)
    align = [" class='num'" if n else " class='txt'" for n in numeric]

    def row(cells: Sequence[str], tag: str) -> str:
        # quote=False: text of an element, as pandas' to_html (an apostrophe stays one)
        return "".join(f"<{tag}{a}>{html.escape(c, quote=False)}</{tag}>"
                       for c, a in zip(cells, align, strict=True))

    body = "".join(f"<tr>{row(cells, 'td')}</tr>\n" for cells in rows)
    return (f"<table class='tbl'><thead><tr>{row(header, 'th')}</tr></thead>\n<tbody>\n"
            f"{body}</tbody></table>")


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;
margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{font-size:1.25em;border-bottom:1px solid #ddd;padding-bottom:.2em;
margin-top:1.8em}
table.tbl{border-collapse:collapse;font-size:.85em;margin:.6em 0}
table.tbl th,table.tbl td{border-bottom:1px solid #e3e3e3;padding:.25em .6em;text-align:right}
table.tbl .txt{text-align:left}
table.tbl th{background:#f5f5f5}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}
code{background:#f3f3f3;padding:0 .2em}
.notice{background:#fde8e8;border:2px solid #b00000;padding:.6em;font-weight:bold}
"""


class _Document:
    """The report's blocks, rendered as Markdown (PNG files) and as self-contained HTML."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.blocks: list[tuple[str, Any]] = []
        self.first: str | None = None

    def notice(self, text: str) -> None:
        self.first = text

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

    def figure(self, name: str, data: bytes, caption: str, key: str) -> None:
        self.blocks.append(("fig", (name, data, caption, key)))

    def markdown(self) -> str:
        out = [f"**{self.first}**", ""] if self.first else []
        out += [f"# {self.title}", ""]
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

        body = [f"<p class='notice'>{html.escape(self.first)}</p>"] if self.first else []
        body.append(f"<h1>{html.escape(self.title)}</h1>")
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
