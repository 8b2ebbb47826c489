"""Inherent Min and Max disclosure-risk bounds for a synthesized categorical variable.

Hu & Savitsky (*Bayesian data synthesis and disclosure risk quantification: an application to
the Consumer Expenditure Surveys*, §4.1) judge a synthesizer of a categorical label against
two synthesizer-free scenarios computed on the confidential data. A *pattern* is a
combination of the known (kept, unsynthesized) variables ``known``.

Max
    every record's label is redrawn from the empirical label distribution of its own pattern
    (the "perfect" synthesizer: no smoothing at all);
Min
    every record's label is redrawn uniformly over the labels observed in its pattern
    (``min_support="pattern"``, as the issue/spec state it) or over all labels observed in
    the data (``min_support="all"``).

Each scenario is repeated ``n_repeats`` times; for each redraw the identification risk
(expected match risk, true and false match rates, through
:func:`idrisk.risk.identification_risk` with ``r=None``) and the exact attribute
disclosures (:func:`idrisk.risk.attribute_risk`) are computed. Closed forms of the expected
attribute count are a check: Max ``sum_b sum_l n_bl^2 / n_b``; Min ``sum_b n_b / G_b`` (G_b
labels observed in pattern b).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._progress import progress_bar
from .._result import Result
from .._schema import as_names, require_columns
from .._synthetic import synthetic_frames
from .attribute import attribute_risk
from .identification import identification_risk

__all__ = ["InherentBounds", "bound_redraws", "inherent_bounds", "label_risk"]

MEASURES = ["exp_risk", "true_rate", "false_rate", "attribute_count", "attribute_share"]


def label_risk(confidential: pd.DataFrame, synthetic: pd.DataFrame | Sequence[pd.DataFrame],
               syn: str | Sequence[str], known: str | Sequence[str]) -> pd.DataFrame:
    """Identification and attribute risk of synthesized label(s) ``syn``, one row per dataset.

    Columns ``s, exp_risk, true_rate, false_rate`` come from
    ``identification_risk(confidential, synthetic, known, syn, r=None)`` (every variable matched
    exactly); ``attribute_count, attribute_share`` from :func:`attribute_risk`. A record whose
    true label no synthetic record of its pattern carries (c = 0) contributes nothing, as in
    ``identification_risk`` (its RiskInputWarning is expected here and silenced).

    Returns
    -------
    pandas.DataFrame
        One row per synthetic dataset (index ``dataset`` 1..m). A tidy-frame function
        (glossary rule: an answer that is one table is returned as that table, tidy; an
        answer with several parts is a Result).

    Examples
    --------
    >>> import pandas as pd
    >>> orig = pd.DataFrame({"sex": list("ffmm"), "county": list("abab")})
    >>> syn = pd.DataFrame({"sex": list("ffmm"), "county": list("aabb")})
    >>> r = label_risk(orig, [syn], "county", "sex")
    >>> r[["s", "exp_risk", "true_rate", "attribute_count"]].to_dict("records")
    [{'s': 0, 'exp_risk': 1.0, 'true_rate': 0.0, 'attribute_count': 2}]
    >>> r["false_rate"].isna().all()          # no unique match: s = 0
    np.True_
    """
    syn = as_names(syn, "syn")
    known = as_names(known, "known")
    datasets = synthetic_frames(synthetic)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*have no matching synthetic record.*")
        ir = identification_risk(confidential, datasets, known=known, syn=syn, r=None,
                                 progress=False)
    ar = attribute_risk(confidential, datasets, syn)
    out = pd.DataFrame({"s": np.asarray(ir.s), "exp_risk": np.asarray(ir.exp_risk),
                        "true_rate": np.asarray(ir.true_rate),
                        "false_rate": np.asarray(ir.false_rate, dtype=float),
                        "attribute_count": ar.count.to_numpy(),
                        "attribute_share": ar.share.to_numpy()},
                       index=pd.RangeIndex(1, len(datasets) + 1, name="dataset"))
    out.loc[out["s"] == 0, "false_rate"] = np.nan
    return out


def _patterns(confidential: pd.DataFrame, known: list[str]) -> np.ndarray:
    if not known:
        return np.zeros(len(confidential), dtype=np.int64)
    groups = confidential.groupby(known, observed=True, sort=True, dropna=False)
    return groups.ngroup().to_numpy()


def bound_redraws(confidential: pd.DataFrame, syn: str, known: str | Sequence[str],
                  scenario: str = "max", n_repeats: int = 100,
                  seed: int | np.random.Generator | None = None,
                  min_support: str = "pattern") -> list[pd.DataFrame]:
    """The ``n_repeats`` redrawn datasets of one scenario (``"max"`` or ``"min"``).

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({"g": [1, 1, 1, 2], "lab": ["a", "a", "b", "c"]})
    >>> [x["lab"].tolist() for x in bound_redraws(d, "lab", "g", "min", n_repeats=2, seed=1)]
    [['b', 'b', 'a', 'c'], ['a', 'a', 'b', 'c']]
    """
    known = as_names(known, "known")
    _check(confidential, syn, known, n_repeats, scenario, min_support)
    rng = np.random.default_rng(seed)
    n = len(confidential)
    pat = _patterns(confidential, known)
    lab = confidential[syn].to_numpy()
    if scenario == "max":
        order = np.argsort(pat, kind="stable")
        start = np.searchsorted(pat[order], pat)          # first sorted row of the pattern
        size = np.bincount(pat)[pat]
        pools = lab[order]
    elif min_support == "all":
        pools = pd.unique(lab)
        start = np.zeros(n, dtype=np.int64)
        size = np.full(n, len(pools))
    else:
        uniq = pd.DataFrame({"p": pat, "l": lab}).drop_duplicates().sort_values(
            "p", kind="stable")
        pools = uniq["l"].to_numpy()
        up = uniq["p"].to_numpy()
        start = np.searchsorted(up, pat)
        size = np.bincount(up)[pat]
    out = []
    for _ in range(n_repeats):
        idx = start + np.floor(rng.random(n) * size).astype(np.int64)
        d = confidential.copy()
        new = pools[np.minimum(idx, start + size - 1)]
        d[syn] = pd.Series(new, index=confidential.index).astype(confidential[syn].dtype)
        out.append(d)
    return out


def _check(confidential, syn, known, n_repeats, scenario, min_support) -> None:
    if not isinstance(confidential, pd.DataFrame):
        raise TypeError(f"confidential must be a DataFrame, got {type(confidential).__name__}")
    require_columns(confidential, [syn], "syn", "confidential")
    require_columns(confidential, known, "known", "confidential")
    if syn in known:
        raise ValueError(f"syn {syn!r} is also in known")
    if confidential[syn].isna().any():
        raise ValueError(f"confidential: syn column {syn!r} has missing values")
    if not isinstance(n_repeats, (int, np.integer)) or n_repeats < 1:
        raise ValueError(f"n_repeats must be a positive integer, got {n_repeats!r}")
    if scenario not in ("min", "max"):
        raise ValueError(f"scenario must be 'min' or 'max', got {scenario!r}")
    if min_support not in ("pattern", "all"):
        raise ValueError(f"min_support must be 'pattern' or 'all', got {min_support!r}")


def closed_form_attribute(confidential: pd.DataFrame, syn: str, known: Sequence[str],
                          min_support: str = "pattern") -> pd.DataFrame:
    """Exact mean and standard deviation of the attribute count under Min and Max.

    The count is a sum of independent Bernoulli(p_i): Max ``p_i = n_{b,l_i} / n_b``, Min
    ``p_i = 1 / G_b`` (or ``1 / G``); mean ``sum p_i``, variance ``sum p_i (1 - p_i)``.
    """
    known = list(known)
    pat = _patterns(confidential, known)
    lab = pd.Series(confidential[syn].to_numpy())
    n_b = np.bincount(pat)[pat]
    n_bl = pd.Series(1, index=pd.MultiIndex.from_arrays([pat, lab])).groupby(
        level=[0, 1]).transform("size").to_numpy()
    p_max = n_bl / n_b
    if min_support == "all":
        p_min = np.full(len(lab), 1.0 / lab.nunique())
    else:
        G_b = pd.Series(lab.to_numpy()).groupby(pat).transform("nunique").to_numpy()
        p_min = 1.0 / G_b
    rows = {s: {"mean": p.sum(), "sd": np.sqrt((p * (1 - p)).sum())}
            for s, p in (("min", p_min), ("max", p_max))}
    return pd.DataFrame(rows).T.rename_axis("scenario")


@dataclass(frozen=True, repr=False)
class InherentBounds(Result):
    """Risk measures of ``n_repeats`` redraws under the Min and Max scenarios.

    Attributes
    ----------
    draws : DataFrame
        One row per scenario and draw: ``scenario, draw, s, exp_risk, true_rate,
        false_rate, attribute_count, attribute_share``.
    closed_form : DataFrame
        Exact mean and sd of the attribute count per scenario.
    syn, known, risk_known : the columns used.
    n_repeats, seed, min_support, n
        Redraws per scenario, their seed, the Min scenario's label support, records.
    """

    draws: pd.DataFrame
    closed_form: pd.DataFrame
    syn: str
    known: list[str]
    risk_known: list[str]
    n_repeats: int
    seed: int | None
    min_support: str = "pattern"
    n: int = 0

    def summary(self) -> pd.DataFrame:
        """Mean of every measure per scenario (false rate over draws with s > 0)."""
        return self.draws.groupby("scenario")[MEASURES].mean().T.reindex(
            columns=["min", "max"])

    def table(self, **synthesizers: pd.DataFrame) -> pd.DataFrame:
        """The paper's Tables 4-5 layout: Min, each synthesizer's mean over its m datasets,
        Max (``synthesizers``: name -> the :func:`label_risk` frame)."""
        s = self.summary()
        cols = {"Min": s["min"]}
        for name, frame in synthesizers.items():
            cols[name] = frame[MEASURES].mean()
        cols["Max"] = s["max"]
        return pd.DataFrame(cols)

    def position(self, frame: pd.DataFrame, measure: str = "attribute_count") -> pd.Series:
        """Share of Min and of Max draws at or below the synthesizer's mean ``measure``."""
        v = frame[measure].mean()
        g = self.draws.groupby("scenario")[measure]
        return pd.Series({s: float((x <= v).mean()) for s, x in g}, name=measure)

    def to_frame(self) -> pd.DataFrame:
        """One row per scenario and redraw with every measure."""
        return self.draws.copy()

    def _header(self) -> str:
        return (f"InherentBounds(syn={self.syn!r}, known={self.known}, "
                f"risk_known={self.risk_known}, n_repeats={self.n_repeats}, n={self.n}, "
                f"min_support={self.min_support!r})")

    def _notes(self) -> list[str]:
        cf = self.closed_form
        return [f"closed-form attribute count: min {cf.loc['min', 'mean']:.5g}, "
                f"max {cf.loc['max', 'mean']:.5g}"]


def inherent_bounds(confidential: pd.DataFrame, syn: str, known: str | Sequence[str],
                    n_repeats: int = 100, seed: int | None = None,
                    risk_known: str | Sequence[str] | None = None,
                    min_support: str = "pattern",
                    progress: bool = False) -> InherentBounds:
    """Inherent Min/Max bounds of identification and attribute risk for ``syn``.

    Parameters
    ----------
    confidential : DataFrame
        Confidential data.
    syn : str
        The synthesized categorical variable (the label).
    known : str or list of str
        The intruder's known (unsynthesized, kept) variables: they define the patterns.
    n_repeats : int
        Redraws per scenario (the paper: 100).
    seed : int, optional
        Seed of the redraws (the Max draws use ``seed``'s first stream, Min the second).
    risk_known : list of str, optional
        The known variables of the risk measures, when they differ from the patterns'
        (default: ``known``); columns of ``confidential``.
    min_support : {"pattern", "all"}
        Min redraws over the labels observed in the pattern, or over all labels.
    progress : bool
        Show a progress bar over the two scenarios' risk computations.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> d = pd.DataFrame({"g": rng.integers(0, 2, 500), "lab": rng.geometric(0.3, 500)})
    >>> b = inherent_bounds(d, "lab", known="g", n_repeats=20, seed=1)
    >>> b.summary().loc["attribute_count"].round(1).tolist()     # Min, Max
    [36.4, 85.9]
    >>> b.closed_form["mean"].round(1).tolist()
    [35.6, 87.2]
    """
    known = as_names(known, "known")
    risk_known = known if risk_known is None else as_names(risk_known, "risk_known")
    for scen in ("min", "max"):
        _check(confidential, syn, known, n_repeats, scen, min_support)
    require_columns(confidential, risk_known, "risk_known", "confidential")
    ss = np.random.SeedSequence(seed)
    seeds = ss.spawn(2)
    frames = []
    scenarios = ("min", "max")
    for scen, sq in zip(progress_bar(scenarios, desc="inherent bounds", show=progress), seeds):
        sets = bound_redraws(confidential, syn, known, scen, n_repeats,
                             np.random.default_rng(sq), min_support)
        f = label_risk(confidential, sets, syn, risk_known).reset_index()
        f = f.rename(columns={"dataset": "draw"})
        f.insert(0, "scenario", scen)
        frames.append(f)
    return InherentBounds(draws=pd.concat(frames, ignore_index=True),
                          closed_form=closed_form_attribute(confidential, syn, known,
                                                            min_support),
                          syn=syn, known=known, risk_known=risk_known, n_repeats=int(n_repeats),
                          seed=seed, min_support=min_support, n=len(confidential))
