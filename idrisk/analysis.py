"""The analysis of Hornby & Hu (2021), Section 4, as functions returning tidy DataFrames.

* :func:`radius_sweep` -- file-level risk per synthetic dataset for each radius (one scenario
  or a dict of scenarios); radii may be numbers (same radius for every continuous
  known/synthesised variable) or dicts ``{column: radius}``.
* :func:`maximizing_radius` -- the radius with the highest median (or mean) risk per scenario.
* :func:`risk_utility` -- risk and the propensity-score utility U_p per dataset and scenario.
* :func:`m_experiment` -- repeat a synthesis for several m and average risk and utility over
  the m datasets (the article's Figure 10).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from idrisk._interface import check_keywords
from idrisk._progress import progress_bar
from idrisk._synthetic import Synthesizer
from idrisk.exceptions import RiskInputWarning
from idrisk.risk import identification_risk
from idrisk.risk.options import RiskOptions, matching_rules
from idrisk.risk.prepared import prepare
from idrisk.utility import propensity_utility

__all__ = [
    "Scenario",
    "m_experiment",
    "maximizing_radius",
    "radius_sweep",
    "risk_at_radius",
    "risk_utility",
]


@dataclass
class Scenario:
    """A synthesis scenario: the synthesised variables and the synthetic datasets.

    Parameters
    ----------
    syn : list of str
        Synthesised variables (visit order).
    synthetic : list of DataFrame or SyntheticData
        The m synthetic datasets (row i = synthetic version of confidential record i).
    """

    syn: list[str]
    synthetic: Sequence[pd.DataFrame]

    def __post_init__(self) -> None:
        self.syn = [self.syn] if isinstance(self.syn, str) else list(self.syn)
        if isinstance(self.synthetic, pd.DataFrame):
            self.synthetic = [self.synthetic]
        else:
            self.synthetic = list(self.synthetic)
        if not self.synthetic:
            raise ValueError("Scenario.synthetic must hold at least one DataFrame")

    def __repr__(self) -> str:
        return f"Scenario(syn={self.syn}, m={len(self.synthetic)})"


def _radius_label(r) -> object:
    if r is None:
        return None
    if isinstance(r, Mapping):
        return ", ".join(f"{k}={v:g}" for k, v in r.items())
    if isinstance(r, (list, tuple, np.ndarray)):  # one radius per column (data-frame order)
        return ", ".join(f"{float(v):g}" for v in r)
    return float(r)


def _radius_arg(r):
    """A radius of the sweep as identification_risk takes it: a number, a vector, a dict."""
    if r is None:
        return None
    if isinstance(r, Mapping):
        return dict(r)
    if isinstance(r, (list, tuple, np.ndarray)):
        return [float(v) for v in r]
    return float(r)


def _label_column(blocks: list[list]) -> list | pd.Series:
    """A column of labels given in blocks, typed as pandas types the blocks one by one and
    then joins them (labels of one type: as one list; None or mixed types: block by block)."""
    flat = [v for block in blocks for v in block]
    kinds = {type(v) for v in flat}
    if len(kinds) == 1 and type(None) not in kinds:
        return flat
    return pd.concat([pd.Series(block) for block in blocks], ignore_index=True)


def _scenarios(synthetic, syn) -> dict:
    if isinstance(synthetic, Mapping):
        out = {}
        for name, sc in synthetic.items():
            if isinstance(sc, Scenario):
                out[name] = sc
            else:
                if syn is None or (isinstance(syn, Mapping) and name not in syn):
                    raise ValueError(
                        f"scenario {name!r}: give a Scenario or the synthesised variables in syn"
                    )
                out[name] = Scenario(syn[name] if isinstance(syn, Mapping) else syn, sc)
        return out
    if syn is None:
        raise ValueError("syn (the synthesised variables) is required for a single scenario")
    return {1: Scenario(syn, synthetic)}


@check_keywords
def radius_sweep(
    confidential: pd.DataFrame,
    synthetic,
    known: Sequence[str],
    syn: Sequence[str] | Mapping | None = None,
    radii: Iterable = (0.01, 0.025, 0.05, 0.1, 0.2, 0.3),
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
    progress: bool | None = None,
) -> pd.DataFrame:
    """File-level identification risk for every radius, scenario and synthetic dataset.

    Parameters
    ----------
    confidential : DataFrame
        The confidential data.
    synthetic : list of DataFrame, SyntheticData, or dict ``{scenario: Scenario or list}``
        Synthetic datasets of one scenario, or several scenarios by name.
    known : list of str
        Variables the intruder knows (not synthesised).
    syn : list of str, or dict ``{scenario: list}``
        Synthesised variables (not needed when ``synthetic`` maps names to :class:`Scenario`).
    radii : iterable of float or of dict
        A number applies to every continuous known and synthesised variable (Age included
        in the CE analysis); a dict ``{column: radius}`` gives per-variable radii.
    percentage, euclidean_dist, closed, abs_radius, ellipsoid, na_matches : bool
        The matching rules of :func:`idrisk.identification_risk`, as there.
    categorical, continuous, align
        Column types and row correspondence, as in :func:`idrisk.identification_risk`.
    options : RiskOptions, optional
        The matching rules as one object instead of the keywords above (its ``known``,
        ``syn`` and ``r`` are not read).
    progress : bool, optional
        tqdm bar over (scenario, radius) pairs.

    Returns
    -------
    DataFrame
        Columns ``scenario``, ``r``, ``dataset``, ``exp_risk``, ``true_rate``, ``false_rate``,
        ``record_mean_risk`` (``exp_risk / n``), ``s``, ``c_zero`` and ``never_match`` (records with
    no match, and never matchable: see ``IdentificationRiskResult.checks``), one row per
    scenario, radius and dataset. exp_risk is the expected number of records identified, out
    of n. The per-call ``RiskInputWarning`` of :func:`~idrisk.identification_risk` is not
    repeated for every radius: the counts are in the table.
    A tidy-frame function (glossary rule: an answer that is one table is returned as that
    table, tidy; an answer with several parts is a Result).

    Examples
    --------
    >>> from idrisk.datasets import load_demo
    >>> d = load_demo(n=300, seed=1)
    >>> s = d.assign(Income=d.Income.sample(frac=1, random_state=1).to_numpy())
    >>> out = radius_sweep(d, [s], ["Age", "Urban"], ["Income"], radii=[0.05, 0.1])
    >>> out.r.tolist(), out.dataset.tolist()
    ([0.05, 0.1], [1, 1])
    """
    rules = matching_rules("radius_sweep", options, locals())
    scen = _scenarios(synthetic, syn)
    radii = list(radii)
    if not radii:
        raise ValueError("radii is empty")
    n = len(confidential)
    # the table's columns, filled per (scenario, radius) and framed once at the end
    parts: dict[str, list] = {key: [] for key in (
        "scenario", "r", "dataset", "exp_risk", "true_rate", "false_rate", "s", "c_zero",
        "never_match")}  # fmt: skip
    total = len(scen) * len(radii)
    show = (total > 4) if progress is None else progress
    with progress_bar(total=total, desc="radius sweep", show=show) as bar:
        for name, sc in scen.items():
            # the inputs are read and encoded once per scenario (their warnings shown)
            options = RiskOptions(known=list(known), syn=sc.syn, r=_radius_arg(radii[0]),
                                  **rules)  # fmt: skip
            prepared = prepare(confidential, sc.synthetic, options)
            m = prepared.m
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", category=RiskInputWarning)
                swept = prepared.sweep_measures([_radius_arg(r) for r in radii], bar)
                for r, measures in zip(radii, swept):
                    parts["scenario"].append([name] * m)
                    parts["r"].append([_radius_label(r)] * m)
                    parts["dataset"].append(np.arange(1, m + 1))
                    for key in ("exp_risk", "true_rate", "false_rate", "s", "c_zero",
                                "never_match"):  # fmt: skip
                        parts[key].append(measures[key])
    exp_risk = np.concatenate(parts["exp_risk"]).astype(float)
    return pd.DataFrame({  # (one constructor: a column added afterwards costs ~0.1 ms)
        "scenario": _label_column(parts["scenario"]),
        "r": _label_column(parts["r"]),
        "dataset": np.concatenate(parts["dataset"]),
        "exp_risk": exp_risk,
        "true_rate": np.concatenate(parts["true_rate"]).astype(float),
        "false_rate": np.concatenate(parts["false_rate"]).astype(float),
        "record_mean_risk": exp_risk / n,
        **{key: np.concatenate(parts[key]) for key in ("s", "c_zero", "never_match")},
    })  # fmt: skip


@check_keywords
def maximizing_radius(sweep: pd.DataFrame, stat: str = "median",
                      measure: str = "exp_risk") -> pd.DataFrame:
    """The radius maximising the ``stat`` (median or mean) of ``measure`` per scenario.

    Parameters
    ----------
    sweep : DataFrame
        Output of :func:`radius_sweep` (columns scenario, r, and ``measure``).
    stat : {"median", "mean"}

    Returns
    -------
    DataFrame indexed by scenario with columns ``r`` (maximising radius), ``risk`` (its
    statistic), ``runner_up_r``, ``runner_up_risk`` (the second-best radius, to show ties).

    Examples
    --------
    >>> sw = pd.DataFrame({"scenario": [1] * 4, "r": [0.1, 0.1, 0.2, 0.2],
    ...                    "exp_risk": [1.0, 2.0, 3.0, 5.0]})
    >>> maximizing_radius(sw).loc[1, "r"]
    np.float64(0.2)
    """
    if stat not in ("median", "mean"):
        raise ValueError(f"stat must be 'median' or 'mean', got {stat!r}")
    for col in ("scenario", "r", measure):
        if col not in sweep.columns:
            raise KeyError(f"sweep lacks the column {col!r}")
    agg = sweep.groupby(["scenario", "r"], sort=False)[measure].agg(stat).reset_index()
    out = {}
    for name, g in agg.groupby("scenario", sort=False):
        g = g.sort_values(measure, ascending=False, kind="stable")
        best = g.iloc[0]
        second = g.iloc[1] if len(g) > 1 else None
        out[name] = {
            "r": best["r"],
            "risk": float(best[measure]),
            "runner_up_r": None if second is None else second["r"],
            "runner_up_risk": np.nan if second is None else float(second[measure]),
        }
    res = pd.DataFrame.from_dict(out, orient="index")
    res.index.name = "scenario"
    return res


@check_keywords
def risk_at_radius(sweep: pd.DataFrame, r: Mapping | None = None,
                   stat: str = "median") -> pd.DataFrame:
    """Rows of ``sweep`` at each scenario's radius ``r`` (default: its maximising radius).

    Parameters
    ----------
    sweep : DataFrame
        Output of :func:`radius_sweep`.
    r : dict ``{scenario: radius}``, optional
        The radius of each scenario (as in the sweep's ``r`` column); default
        :func:`maximizing_radius`.
    stat : {"median", "mean"}
        The statistic of :func:`maximizing_radius`.

    Examples
    --------
    >>> sw = pd.DataFrame({"scenario": [1] * 4, "r": [0.1, 0.1, 0.2, 0.2], "dataset": [1, 2] * 2,
    ...                    "exp_risk": [1.0, 2.0, 3.0, 5.0]})
    >>> risk_at_radius(sw).exp_risk.tolist()
    [3.0, 5.0]
    """
    if r is None:
        r = maximizing_radius(sweep, stat=stat)["r"].to_dict()
    parts = [sweep[(sweep["scenario"] == s) & (sweep["r"] == rs)] for s, rs in r.items()]
    return pd.concat(parts, ignore_index=True)


@check_keywords
def risk_utility(
    confidential: pd.DataFrame,
    scenarios: Mapping,
    known: Sequence[str],
    r: Mapping | float | Sequence[float] | None,
    *,
    maxorder: int = 1,
    variables: Sequence[str] | None = None,
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
    progress: bool | None = None,
) -> pd.DataFrame:
    """Risk and propensity-score utility U_p per synthetic dataset of every scenario.

    Parameters
    ----------
    confidential : DataFrame
    scenarios : dict ``{name: Scenario}``
    known : list of str
    r : dict ``{name: radius}`` (e.g. from :func:`maximizing_radius`) or one radius (None, a
        number, or one per continuous column as in :func:`idrisk.identification_risk`)
    maxorder, variables : passed to :func:`idrisk.utility.propensity_utility`
    percentage, euclidean_dist, closed, abs_radius, ellipsoid, na_matches : bool
        The matching rules of :func:`idrisk.identification_risk`, as there.
    categorical, continuous, align
        Column types and row correspondence, as in :func:`idrisk.identification_risk`.
    options : RiskOptions, optional
        The matching rules as one object instead of the keywords above (its ``known``,
        ``syn`` and ``r`` are not read).

    Returns
    -------
    DataFrame with columns ``scenario, r, dataset, exp_risk, record_mean_risk, U_p``.

    Examples
    --------
    >>> from idrisk.datasets import load_demo
    >>> d = load_demo(n=300, seed=1)
    >>> s = d.assign(Income=d.Income.sample(frac=1, random_state=1).to_numpy())
    >>> out = risk_utility(d, {1: Scenario(["Income"], [s])}, ["Age"], 0.1, maxorder=0)
    >>> list(out.columns)
    ['scenario', 'r', 'dataset', 'exp_risk', 'record_mean_risk', 'U_p']
    """
    rules = matching_rules("risk_utility", options, locals())
    scen = _scenarios(scenarios, None)
    parts = []
    for name, sc in progress_bar(scen.items(), desc="risk and utility",
                                 show=progress if progress is not None else len(scen) > 1):
        rs = r[name] if isinstance(r, Mapping) else r
        sw = radius_sweep(confidential, {name: sc}, known, radii=[rs], progress=False, **rules)
        up = propensity_utility(confidential, sc.synthetic, maxorder=maxorder, variables=variables)
        sw["U_p"] = up.to_numpy()
        parts.append(sw[["scenario", "r", "dataset", "exp_risk", "record_mean_risk", "U_p"]])
    return pd.concat(parts, ignore_index=True)


@check_keywords
def m_experiment(
    confidential: pd.DataFrame,
    syn: Sequence[str],
    known: Sequence[str],
    r,
    *,
    m_values: Sequence[int] = (1, 10, 20),
    n_repeats: int = 50,
    seed: int = 2021,
    synthesizer: Synthesizer | None = None,
    maxorder: int = 1,
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
    progress: bool | None = None,
) -> pd.DataFrame:
    """Repeat the synthesis for each m and average risk and utility over the m datasets.

    Parameters
    ----------
    confidential : DataFrame
    syn : list of str
        Synthesised variables (visit sequence).
    known : list of str
    r : float or dict
        Radius (as in :func:`radius_sweep`).
    m_values : sequence of int
        Numbers of synthetic datasets (the article: 1, 10, 20).
    n_repeats : int
        Repetitions per m (the article: 1000).
    seed : int
        Repetition k of m uses the seed ``seed + 1000 * index_of_m + k``.
    synthesizer : Synthesizer, optional
        Any of idrisk's synthesizers (or an object with ``fit(data)`` and
        ``synthesize(m, seed)``): fitted once to ``confidential``, then each repetition draws
        ``synthesize(m, seed=...)``. Default: idrisk's CART synthesizer of ``syn`` in fast
        mode (``CARTSynthesizer(syn=syn, rng="numpy")``).
    maxorder : int
        The U_p model (:func:`idrisk.utility.propensity_utility`).
    percentage, euclidean_dist, closed, abs_radius, ellipsoid, na_matches : bool
        The matching rules of :func:`idrisk.identification_risk`, as there.
    categorical, continuous, align
        Column types and row correspondence, as in :func:`idrisk.identification_risk`.
    options : RiskOptions, optional
        The matching rules as one object instead of the keywords above (its ``known``,
        ``syn`` and ``r`` are not read).
    progress : bool, optional
        tqdm bar over the repetitions.

    Returns
    -------
    DataFrame with columns ``m, repeat, seed, exp_risk, record_mean_risk, U_p`` (averages over
    the m datasets).

    Examples
    --------
    >>> from idrisk.datasets import load_demo
    >>> d = load_demo(n=200, seed=1)
    >>> out = m_experiment(d, ["Income"], ["Age", "Urban", "Marital"], 0.025,
    ...                    m_values=[1, 2], n_repeats=2, maxorder=0)
    >>> out[["m", "repeat"]].values.tolist()
    [[1, 0], [1, 1], [2, 0], [2, 1]]
    """
    rules = matching_rules("m_experiment", options, locals())
    if n_repeats < 1:
        raise ValueError(f"n_repeats must be >= 1, got {n_repeats}")
    syn = [syn] if isinstance(syn, str) else list(syn)
    if synthesizer is None:
        from idrisk.synthesis import CARTSynthesizer

        synthesizer = CARTSynthesizer(syn=syn, rng="numpy", progress=False)
    model = synthesizer.fit(confidential)
    n = len(confidential)
    rows = []
    total = len(m_values) * n_repeats
    show = (total > 10) if progress is None else progress
    with progress_bar(total=total, desc="m experiment", show=show) as bar:
        for i, m in enumerate(m_values):
            if int(m) < 1:
                raise ValueError(f"m_values must be positive integers, got {m}")
            for k in range(n_repeats):
                s = seed + 1000 * i + k
                datasets = list(model.synthesize(int(m), seed=s))
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", category=RiskInputWarning)
                    res = identification_risk(confidential, datasets, known=list(known), syn=syn,
                                              r=dict(r) if isinstance(r, Mapping) else r,
                                              progress=False, **rules)
                up = propensity_utility(confidential, datasets, maxorder=maxorder)
                exp_risk = float(res.exp_risk.mean())
                rows.append({"m": int(m), "repeat": k, "seed": s, "exp_risk": exp_risk,
                             "record_mean_risk": exp_risk / n, "U_p": float(up.mean())})
                bar.update()
    return pd.DataFrame(rows)
