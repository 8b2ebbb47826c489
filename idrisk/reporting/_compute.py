"""The computation of the risk report: :func:`compute_report` -> :class:`RiskReport`.

Nothing here writes a file or draws a figure (that is :mod:`idrisk.reporting._render`).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._interface import check_keywords, spell
from .._result import Result
from .._schema import as_names, column_kinds, is_categorical
from ..risk.options import RiskOptions, matching_rules
from ..risk.prepared import shared_preparation
from ..risk.result import span_text

__all__ = ["DEFAULT_RADII", "ReportTables", "RiskReport", "compute_report"]

DEFAULT_RADII = (0.01, 0.025, 0.05, 0.1, 0.2, 0.3)


@dataclass(frozen=True)
class ReportTables:
    """The tables of a :class:`RiskReport`, one typed attribute each (None: not computed).

    Attributes
    ----------
    summary : DataFrame
        One row per scenario (m, s, expected risk, match rates, c = 0 records, maximising
        radius, U_p).
    datasets : DataFrame
        One row per scenario and synthetic dataset.
    top_records : DataFrame
        Highest-risk records: record number, risk, match counts (the confidential values only
        with ``show_confidential_values``).
    checks : DataFrame
        The input checks per scenario.
    sweep, best_radius, risk_at_max : DataFrame or None
        The radius sweep, the maximising radius per dataset, the risk there (with ``radii``).
    risk_utility, ecdf_utility : DataFrame or None
        U_p by scenario and the ECDF utility (with ``utility``).
    disclosure, disclosure_checks : DataFrame or None
        synthpop's disclosure measures and their checks (with ``disclosure_syn``).
    interval, m_advice, stability : DataFrame
        The Monte-Carlo interval per scenario and measure, the m advice and the record-level
        stability counts (:mod:`idrisk.risk.precision`).
    what_if : DataFrame or None
        The what-if table of the first scenario (with ``what_if``).
    """

    summary: pd.DataFrame
    datasets: pd.DataFrame
    top_records: pd.DataFrame
    checks: pd.DataFrame
    sweep: pd.DataFrame | None = None
    best_radius: pd.DataFrame | None = None
    risk_at_max: pd.DataFrame | None = None
    risk_utility: pd.DataFrame | None = None
    ecdf_utility: pd.DataFrame | None = None
    disclosure: pd.DataFrame | None = None
    disclosure_checks: pd.DataFrame | None = None
    interval: pd.DataFrame | None = None
    m_advice: pd.DataFrame | None = None
    stability: pd.DataFrame | None = None
    what_if: pd.DataFrame | None = None

    def items(self) -> list[tuple[str, pd.DataFrame]]:
        """``(name, table)`` of the tables that were computed, in attribute order."""
        return [(f.name, getattr(self, f.name)) for f in fields(self)
                if getattr(self, f.name) is not None]


@dataclass(frozen=True, repr=False)
class RiskReport(Result):
    """Risk and utility of synthetic data, computed for a report and reusable in Python.

    Made by :func:`compute_report` (or :func:`idrisk.reporting.report`, which also writes
    it); :func:`idrisk.reporting.write_report` renders it as HTML, Markdown, CSV and PNG files.

    Attributes
    ----------
    title : str
        The report's title.
    n : int
        Number of confidential records.
    known : tuple of str
        Variables the intruder knows.
    r
        The radius of the risk tables.
    results : dict
        Scenario -> :class:`~idrisk.IdentificationRiskResult` at ``r``.
    tables : ReportTables
        The tables, as typed attributes: ``rep.tables.summary``, ``rep.tables.top_records``,
        ``rep.tables.sweep`` (None when not computed), ...
    notes : tuple of str
        Warnings raised while computing (each once) and findings (a maximum at the edge of the
        radius grid, missing values that match anything).
    show_confidential_values : bool
        Whether ``top_records`` holds confidential values (the rendered report then says so
        on its first line).
    options : RiskOptions
        The matching options of the risk tables (``syn`` of the first scenario).
    radii : tuple of float or None
        The radii of the sweep (None: no sweep).
    utility : bool
        Whether U_p and the ECDF utility were computed (``maxorder`` as there).
    top : int
        Number of highest-risk records listed per scenario.
    intro : tuple of str
        Extra paragraphs of the report.
    files
        The files written by :func:`idrisk.reporting.write_report` (None before).

    Examples
    --------
    >>> from idrisk.datasets import load_demo
    >>> d = load_demo(n=200, seed=1)
    >>> s = d.assign(Income=d.Income.sample(frac=1, random_state=1).to_numpy())
    >>> rep = compute_report(d, [s], ["Age", "Urban"], ["Income"], radii=[0.05, 0.1],
    ...                      utility=False)
    >>> list(rep.summary().index), "Income" in rep.tables.top_records.columns
    ([1], False)
    """

    title: str
    n: int
    known: tuple[str, ...]
    r: Any
    results: dict = field(repr=False)
    tables: ReportTables = field(repr=False)
    notes: tuple[str, ...] = ()
    show_confidential_values: bool = False
    options: RiskOptions | None = field(default=None, repr=False)
    radii: tuple[float, ...] | None = field(default=None, repr=False)
    utility: bool = field(default=True, repr=False)
    maxorder: int = field(default=1, repr=False)
    top: int = field(default=10, repr=False)
    intro: tuple[str, ...] = field(default=(), repr=False)
    sources: dict = field(default_factory=dict, repr=False)
    scenarios: dict = field(default_factory=dict, repr=False)
    #: the caller's own frame, held by reference: not made read-only
    confidential: pd.DataFrame | None = field(default=None, repr=False,
                                              metadata={"freeze": False})
    elapsed: float = field(default=0.0, repr=False)
    files: Any = field(default=None, repr=False)

    def summary(self) -> pd.DataFrame:
        """One row per scenario: m, s, expected risk (count and share of n), match rates, c = 0
        records, the maximising radius and U_p (means over the m datasets)."""
        return self.tables.summary

    def to_frame(self) -> pd.DataFrame:
        """One row per scenario and synthetic dataset."""
        return self.tables.datasets

    def _header(self) -> str:
        return (f"RiskReport(title={self.title!r}, n={self.n}, scenarios={list(self.results)}, "
                f"show_confidential_values={self.show_confidential_values})")

    def _notes(self) -> list[str]:
        return [f"note: {x}" for x in self.notes]


def _radius_text(r: Any) -> str:
    if r is None:
        return "none (exact match)"
    if isinstance(r, Mapping):
        return ", ".join(f"{k} {100 * v:g}%" for k, v in r.items())
    if isinstance(r, (list, tuple, np.ndarray)):
        return ", ".join(f"{100 * float(v):g}%" for v in r)
    return f"{100 * float(r):g}%"


@check_keywords
@shared_preparation()  # the risk at the radius, the what-if and the sweep read the data once
def compute_report(
    confidential: pd.DataFrame,
    synthetic: Any,
    known: Sequence[str],
    syn: Sequence[str] | Mapping[Any, Sequence[str]] | None = None,
    r: float | Sequence[float] | Mapping[str, float] | None = None,
    *,
    percentage: bool = True,
    euclidean_dist: bool = False,
    closed: bool = False,
    abs_radius: bool = False,
    ellipsoid: bool = False,
    na_matches: bool = True,
    categorical: str | Sequence[str] | None = None,
    continuous: str | Sequence[str] | None = None,
    align: Literal["position", "index"] | None = None,
    options: RiskOptions | None = None,
    radii: Sequence[float] | None = DEFAULT_RADII,
    utility: bool = True,
    maxorder: int = 1,
    top: int = 10,
    show_confidential_values: bool = False,
    title: str = "Identification risk of synthetic data",
    sources: Mapping[str, Any] | None = None,
    intro: Sequence[str] = (),
    progress: bool | None = None,
    n_jobs: int | None = None,
    disclosure_known: Sequence[str] | None = None,
    disclosure_syn: Sequence[str] | None = None,
    disclosure_ngroups: int = 5,
    what_if: bool = True,
) -> RiskReport:
    """Compute everything the risk report shows; write nothing.

    Parameters
    ----------
    confidential
        The confidential data (n rows).
    synthetic
        The synthetic datasets of one scenario (a DataFrame, a list of m, or a
        :class:`~idrisk.SyntheticData`), or several scenarios as a dict ``{name: datasets or
        Scenario}``. Row i of each is the synthetic version of confidential record i.
    known
        Variables the intruder knows (not synthesized).
    syn
        Synthesized variables (a dict ``{name: variables}`` for several scenarios).
    r
        Radius of the risk tables (as in :func:`idrisk.identification_risk`; the same
        default, None: every variable matched exactly, as R's ``r = NULL``).
    percentage, euclidean_dist, closed, abs_radius, ellipsoid, na_matches
        The matching rules of :func:`idrisk.identification_risk`, as there.
    categorical, continuous, align
        Column types and row correspondence, as in :func:`idrisk.identification_risk`.
    options
        The matching rules as one :class:`~idrisk.RiskOptions` instead of the keywords above
        (its ``known``, ``syn`` and ``r`` are not read).
    radii
        Percentage radii of the sweep (:func:`idrisk.analysis.radius_sweep`); None skips it.
    utility
        Compute U_p (:func:`idrisk.analysis.risk_utility`, ``maxorder`` as there) and the
        ECDF utility of each continuous synthesized variable.
    top
        Number of highest-risk records listed per scenario.
    show_confidential_values
        List the confidential values of the highest-risk records (default: record numbers,
        risk and match counts only).
    title, intro, sources
        Text of the report: title, extra paragraphs, input names (``{"confidential":
        "conf.csv", "synthetic": {name: ["syn1.csv", ...]}}``).
    progress, n_jobs
        Progress bars; passed to :func:`idrisk.identification_risk`.
    disclosure_known, disclosure_syn, disclosure_ngroups
        Add synthpop's disclosure measures (:func:`idrisk.disclosure_summary`): the intruder's
        known variables (synthpop's keys), the synthesized variables measured (synthpop's
        targets; default: each scenario's synthesized variables that are not known) and the
        classes of a numeric one (0: exact values). Tables
        ``disclosure`` (UiO, repU, Dorig, DiSCO per scenario, target and dataset) and
        ``disclosure_checks`` (the 1-way and 2-way checks: counts only; the flagged levels
        only with ``show_confidential_values``).
    what_if
        Add the what-if table of the first scenario (:func:`idrisk.risk.what_if`:
        each known variable dropped, each continuous known variable at 2, 3 and 5 times its
        radius). The Monte-Carlo intervals, the m advice and the record-level stability
        (tables ``interval``, ``m_advice``, ``stability``) are always computed.

    Returns
    -------
    RiskReport
    """
    from ..analysis import (
        Scenario,
        _scenarios,
        maximizing_radius,
        radius_sweep,
        risk_at_radius,
        risk_utility,
    )
    from ..plots import edge_of_grid
    from ..risk import identification_risk

    t0 = time.perf_counter()
    if isinstance(synthetic, Mapping):
        scen = _scenarios(synthetic, syn)
    else:
        if syn is None:
            raise ValueError("syn (the synthesized variables) is required")
        scen = {1: Scenario(as_names(syn, "syn"), synthetic)}
    if top < 0:
        raise ValueError(f"top must be >= 0, got {top}")
    known = as_names(known, "known")
    n = len(confidential)
    first = next(iter(scen.values()))
    rules = matching_rules("compute_report", options, locals())
    base = RiskOptions(known=known, syn=first.syn, r=r, **rules)  # fails before the work
    matching = {k: v for k, v in base.as_dict().items() if k not in ("known", "syn", "r")}
    categorical, continuous = base.categorical, base.continuous
    show = progress if progress is not None else (n * sum(len(s.synthetic) for s in
                                                          scen.values()) > 2_000_000)

    def scenario_options(sc) -> dict:
        used = known + sc.syn
        cat_s = [c for c in (categorical or []) if c in used] or None
        cont_s = [c for c in (continuous or []) if c in used] or None
        return {**matching, "categorical": cat_s, "continuous": cont_s}

    # ---------------------------------------------------------------- risk at the radius
    results, notes, seen = {}, [], set()
    for name, sc in scen.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results[name] = identification_risk(confidential, sc.synthetic, known, sc.syn,
                                                r=r, progress=show, n_jobs=n_jobs,
                                                **scenario_options(sc))
        for w in caught:
            body = str(w.message)
            if body in seen:
                continue
            seen.add(body)
            text = f"scenario ({name}): {body}" if len(scen) > 1 else body
            notes.append(text)
            warnings.warn(text, w.category, stacklevel=3)  # past check_keywords

    rows, dataset_tables, check_rows = [], [], {}
    for name, res in results.items():
        assert res.checks is not None  # identification_risk always counts them
        t = res.to_frame("dataset").copy()
        t.insert(2, "exp_risk_share", t["exp_risk"] / res.n)
        rows.append({
            "scenario": name, "synthesized": ", ".join(scen[name].syn), "m": res.m,
            "s": t["s"].mean(), "exp_risk": t["exp_risk"].mean(),
            "exp_risk_share": t["exp_risk_share"].mean(), "true_rate": t["true_rate"].mean(),
            "false_rate": t["false_rate"].mean(), "c_zero": res.checks["c_zero"].mean(),
        })
        dataset_tables.append(t.reset_index().assign(scenario=name))
        check_rows[name] = {key: span_text(res.checks[key]) for key in
                            ("na_confidential", "na_synthetic", "never_match", "c_zero")
                            if key in res.checks}
    summary = pd.DataFrame(rows).set_index("scenario")
    datasets = pd.concat(dataset_tables, ignore_index=True)
    datasets = datasets[["scenario"] + [c for c in datasets.columns if c != "scenario"]]
    checks = pd.DataFrame.from_dict(check_rows, orient="index")
    checks.index.name = "scenario"

    # ---------------------------------------------------------------- highest-risk records
    top_records, na_note = _top_records(confidential, scen, results, known, top,
                                        show_confidential_values, categorical, continuous)
    if na_note:
        notes.append(na_note)

    tables: dict[str, pd.DataFrame] = {"summary": summary, "datasets": datasets,
                                       "top_records": top_records, "checks": checks}
    # ---------------------------------------------------------------- precision, what-if
    from ._precision import precision_tables

    tables.update(precision_tables(results, confidential, scen, known, r, matching,
                                   what_if=what_if, n_jobs=n_jobs))
    # ---------------------------------------------------------------- radius sweep
    if radii is not None and len(radii):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sweep = radius_sweep(confidential, scen, known, radii=list(radii), progress=show,
                                 **matching)
        best = maximizing_radius(sweep)
        best["at_edge"] = [edge_of_grid(list(radii), best.loc[k, "r"]) or ""
                           for k in best.index]
        for k in best.index:
            edge = best.loc[k, "at_edge"]
            if edge:
                direction = "below" if edge == "smallest" else "above"
                notes.append(
                    f"scenario ({k}): the risk is highest at the {edge} radius of the sweep "
                    f"({_radius_text(best.loc[k, 'r'])}); it may be higher {direction} it: "
                    f"extend the grid ({spell('radii')}) {direction} "
                    f"{_radius_text(best.loc[k, 'r'])}")
        summary["max_risk_radius"] = [best.loc[nm, "r"] for nm in summary.index]
        summary["max_median_risk"] = [best.loc[nm, "risk"] for nm in summary.index]
        tables["sweep"] = sweep
        tables["best_radius"] = best
        tables["risk_at_max"] = risk_at_radius(sweep)

    # ---------------------------------------------------------------- utility
    if utility:
        from .._progress import progress_bar
        from ..utility import ecdf_utility

        parts = []
        for name, sc in progress_bar(scen.items(), desc="utility U_p", unit="scenario",
                                     show=show):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ru = risk_utility(confidential, {name: sc}, known, {name: r},
                                      maxorder=maxorder, progress=False, **scenario_options(sc))
            except (ValueError, TypeError, KeyError, np.linalg.LinAlgError) as err:
                text = f"scenario ({name}): U_p could not be computed: {err}"
                notes.append(text)
                warnings.warn(text, UserWarning, stacklevel=3)
                res = results[name]
                ru = pd.DataFrame({"scenario": name, "r": None, "dataset": res.exp_risk.index,
                                   "exp_risk": res.exp_risk.to_numpy(),
                                   "record_mean_risk": res.exp_risk.to_numpy() / n,
                                   "U_p": np.nan})
            else:
                bad = int(ru["U_p"].isna().sum())
                if bad:
                    notes.append(f"scenario ({name}): U_p is not a number for {bad} of "
                                 f"{len(ru)} datasets (missing values in the data?)")
            ru["r"] = _radius_text(r)
            parts.append(ru)
        ru = pd.concat(parts, ignore_index=True)
        summary["U_p"] = ru.groupby("scenario", sort=False)["U_p"].mean().reindex(
            summary.index).to_numpy()
        tables["risk_utility"] = ru
        erows = []
        for name, sc in scen.items():
            for v in sc.syn:
                if v in (categorical or []) or (v not in (continuous or [])
                                                and is_categorical(confidential[v])):
                    continue
                o = pd.to_numeric(confidential[v], errors="coerce").dropna()
                if o.empty:
                    continue
                ss = [pd.to_numeric(f[v], errors="coerce").dropna() for f in sc.synthetic]
                u = ecdf_utility(o.to_numpy(), [s.to_numpy() for s in ss])
                erows.append(u.reset_index().assign(scenario=name, variable=v))
        if erows:
            tables["ecdf_utility"] = pd.concat(erows, ignore_index=True)[
                ["scenario", "variable", "dataset", "U_m", "U_a"]]

    if disclosure_known:
        dtab, ctab, dnotes = _disclosure_tables(
            confidential, scen, as_names(disclosure_known, "disclosure_known"),
            None if disclosure_syn is None else as_names(disclosure_syn, "disclosure_syn"),
            disclosure_ngroups, show_confidential_values)
        tables["disclosure"], tables["disclosure_checks"] = dtab, ctab
        notes.extend(dnotes)

    return RiskReport(
        title=title, n=n, known=tuple(known), r=r, results=results,
        tables=ReportTables(**tables),
        notes=tuple(dict.fromkeys(notes)), show_confidential_values=show_confidential_values,
        options=base, radii=None if radii is None else tuple(radii), utility=utility,
        maxorder=maxorder, top=top, intro=tuple(intro),
        sources=dict(sources or {}), scenarios=scen,
        confidential=confidential, elapsed=time.perf_counter() - t0,
    )


def _disclosure_tables(confidential: pd.DataFrame, scen: Mapping, keys: list[str],
                       targets: list[str] | None, ngroups: int,
                       show_values: bool) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """synthpop's measures per scenario, target and dataset, and the checks (counts only,
    the flagged levels only with ``show_values``)."""
    from ..risk.disclosure_measures import disclosure_summary

    rows, checks, notes = [], [], []
    for name, sc in scen.items():
        tl = targets if targets is not None else [v for v in sc.syn if v not in keys]
        if not tl:
            continue
        ng = [ngroups if not is_categorical(confidential[t]) else 0 for t in tl]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = disclosure_summary(confidential, list(sc.synthetic), keys, tl,
                                     ngroups_syn=ng)
        notes += list(dict.fromkeys(f"scenario ({name}): disclosure measures: {w.message}"
                                    for w in caught))
        for t, res in out.results.items():
            both = pd.concat([res.identity[["UiO", "repU"]],
                              res.attribute[["Dorig", "DiSCO"]]], axis=1)
            for j, row in both.iterrows():
                rows.append({"scenario": name, "target": t, "dataset": j, **row.to_dict()})
                one = res.check_1way[res.check_1way["dataset"] == j]
                two = res.check_2way[res.check_2way["dataset"] == j]
                entry = {"scenario": name, "target": t, "dataset": j,
                         "1-way flagged": len(one) > 0,
                         "1-way share of DiSCO (%)": (float(one["PctLevelDis"].iloc[0])
                                                      if len(one) else float("nan")),
                         "2-way flagged pairs": len(two),
                         "2-way keys": ", ".join(dict.fromkeys(two["key"])) if len(two)
                         else ""}
                if show_values:
                    entry["1-way level"] = str(one["Level"].iloc[0]) if len(one) else ""
                    entry["2-way pairs"] = "; ".join(map(str, two["target_key_levs"]))
                checks.append(entry)
    table = pd.DataFrame(rows)
    table.attrs.update(keys=list(keys), ngroups=ngroups)  # for the report's text
    return table, pd.DataFrame(checks), notes


def _top_records(confidential: pd.DataFrame, scen: Mapping, results: Mapping,
                 known: list[str], top: int, show_values: bool, categorical: Any = None,
                 continuous: Any = None) -> tuple[pd.DataFrame, str]:
    """The ``top`` highest-risk records per scenario: record number (from 1), risk, match
    counts and the number of continuous matched variables the record lacks (a missing value
    matches anything under R's rule); the confidential values only when ``show_values``."""
    parts, with_na, listed = [], 0, 0
    for name, res in results.items():
        used = list(dict.fromkeys(known + scen[name].syn))
        kinds = column_kinds(confidential, used,
                             [c for c in categorical or [] if c in used],
                             [c for c in continuous or [] if c in used])
        cont = [c for c in used if kinds[c] == "continuous"]
        na_matches = res.na_matches
        rr = res.record_risk.to_numpy()
        order = np.argsort(-rr, kind="stable")[:top]
        missing = confidential.iloc[order][cont].isna()
        part = pd.DataFrame({
            "scenario": name,
            "record": order + 1,
            "record_risk": rr[order],
            "mean_matches_c": res.c.to_numpy()[order].mean(axis=1),
            "unique_true_matches": res.K.to_numpy()[order].sum(axis=1),
            "missing_matched_values": missing.sum(axis=1).to_numpy(),
        })
        if na_matches:
            with_na += int((part["missing_matched_values"] > 0).sum())
        listed += len(part)
        if show_values:
            # as text, exactly as stored (the report rounds numbers for reading)
            values = confidential.iloc[order][used].reset_index(drop=True)
            values = values.astype(object).map(lambda v: "NA" if pd.isna(v) else str(v))
            part = pd.concat([part, values], axis=1)
        parts.append(part)
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    note = ""
    if with_na and next(iter(results.values())).na_matches:
        note = (f"{with_na} of the {listed} highest-risk records listed lack a value of a "
                "known or synthesized variable: a missing value matches every synthetic value "
                "(R's rule), so such a record's matches depend on its other variables only "
                "and its risk can be high for that reason")
    return table, note
