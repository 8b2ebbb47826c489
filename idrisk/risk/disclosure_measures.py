"""synthpop's disclosure measures with idrisk's result convention.

:func:`disclosure` measures one target from a set of keys (quasi-identifiers);
:func:`disclosure_summary` measures many targets from the same keys. Both give the numbers of
synthpop 1.9-3's ``disclosure()`` / ``multi.disclosure()`` (``quirks="synthpop"``, the
default) or those numbers with synthpop's quirks fixed (``quirks="corrected"``). For R's exact
signatures and result shapes use :mod:`idrisk.r`.

The measures (percentages; q is a key combination, t a target level, d and s count original
and synthetic records):

* identity: ``UiO`` original records unique on the keys; ``UiS`` synthetic records unique on
  the keys; ``UiOiS`` original uniques whose keys occur in the synthetic data; ``repU``
  original uniques that are also unique in the synthetic data (replicated uniques);
* attribute: ``Dorig`` original records whose keys fix the target in the original;
  ``Dsyn`` the same for synthetic records in the synthetic data; ``iS`` original records whose
  keys occur in the synthetic data; ``DiS`` those whose keys fix some target in the synthetic
  data; ``DiSCO`` those whose keys fix their own (correct) target in the synthetic data;
  ``DiSDiO`` DiSCO records also fixed in the original; ``max_denom``/``mean_denom`` the
  largest and mean original count of a DiSCO cell;
* correct attribution probabilities: ``baseCAPd`` (guessing from the target's distribution),
  ``CAPd``, ``CAPs``, ``DCAP`` (synthetic proportions applied to original records) and
  ``TCAP`` (DiSCO among records whose keys occur in the synthetic data).

Level names are compared as R compares them with ``LC_COLLATE=C`` (by code point); the tests
run synthpop that way.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._result import Result
from .._schema import as_names, require_columns
from .._synthetic import synthetic_frames, synthetic_name
from ..exceptions import SynthpopQuirkWarning
from ._rsums import _rmean
from ._synthpop_tables import (
    EXCLUSION_COLUMNS,
    TABLES,
    disclosure_tables,
    multi_disclosure_tables,
)

__all__ = [
    "DisclosureResult",
    "DisclosureSummary",
    "SynthpopQuirkWarning",
    "disclosure",
    "disclosure_summary",
]

_QUIRKS = ("synthpop", "corrected")


@contextmanager
def _quirk_mode(quirks: str) -> Iterator[None]:
    """Check ``quirks``; in the corrected mode silence the quirk warnings."""
    if quirks not in _QUIRKS:
        raise ValueError(f"quirks must be 'synthpop' or 'corrected', got {quirks!r}")
    with warnings.catch_warnings():
        if quirks == "corrected":
            warnings.simplefilter("ignore", SynthpopQuirkWarning)
        yield


def _check(confidential: pd.DataFrame, frames: list[pd.DataFrame], names: list[str],
           argument: str) -> None:
    if not isinstance(confidential, pd.DataFrame):
        raise TypeError(f"confidential must be a DataFrame, got {type(confidential).__name__}")
    require_columns(confidential, names, argument, "the confidential data")
    for j, f in enumerate(frames):
        require_columns(f, names, argument, synthetic_name(j + 1))


def _exclusion_args(exclude: Sequence[tuple[str, object, object]] | None) -> dict:
    if not exclude:
        return {}
    triples = [tuple(x) for x in exclude]
    for x in triples:
        if len(x) != 3:
            raise ValueError(f"exclude: expected (key, key level, target level), got {x!r}")
    return {
        "exclude_keys": [str(x[0]) for x in triples],
        "exclude_keylevs": [str(x[1]) for x in triples],
        "exclude_targetlevs": [str(x[2]) for x in triples],
    }


def _long(frame: pd.DataFrame, family: str) -> pd.DataFrame:
    out = frame.reset_index().melt(id_vars="dataset", var_name="measure", value_name="value")
    out.insert(1, "family", family)
    return out


@dataclass(frozen=True, repr=False)
class DisclosureResult(Result):
    """synthpop's disclosure measures of one target from a set of keys.

    Attributes
    ----------
    target, keys, m, n, quirks
        What was measured (keys in the confidential data's column order), the number of
        synthetic datasets, confidential records and the quirks mode.
    identity, attribute, caps : DataFrame
        One row per synthetic dataset (index ``dataset`` 1..m): UiO, UiS, UiOiS, repU;
        Dorig, Dsyn, iS, DiS, DiSCO, DiSDiO, max_denom, mean_denom; baseCAPd, CAPd, CAPs,
        DCAP, TCAP.
    check_1way : DataFrame
        Flagged target levels (one row per flagged dataset): the level dominating DiSCO.
    check_2way : DataFrame
        Flagged target-key level pairs (with a ``dataset`` column).
    exclusions : DataFrame
        Records excluded per dataset, table and reason (long form).
    by_level : DataFrame
        Per dataset and target level: original records, Dorig and DiSCO records.
    """

    target: str
    keys: tuple[str, ...]
    m: int
    n: int
    quirks: str
    identity: pd.DataFrame = field(compare=False)
    attribute: pd.DataFrame = field(compare=False)
    caps: pd.DataFrame = field(compare=False)
    check_1way: pd.DataFrame = field(compare=False)
    check_2way: pd.DataFrame = field(compare=False)
    exclusions: pd.DataFrame = field(compare=False)
    by_level: pd.DataFrame = field(compare=False)

    def summary(self) -> pd.DataFrame:
        """All measures, one row per synthetic dataset."""
        return pd.concat([self.identity, self.attribute, self.caps], axis=1)

    def to_frame(self) -> pd.DataFrame:
        """Long form: ``dataset, family, measure, value``."""
        return pd.concat(
            [_long(self.identity, "identity"), _long(self.attribute, "attribute"),
             _long(self.caps, "cap")],
            ignore_index=True,
        )

    def _header(self) -> str:
        return (f"DisclosureResult(target={self.target!r}, keys={list(self.keys)}, m={self.m}, "
                f"n={self.n}, quirks={self.quirks!r})")

    def _notes(self) -> list[str]:
        notes = []
        for _, row in self.check_1way.iterrows():
            notes.append(f"dataset {row['dataset']}: level {row['Level']!r} holds "
                         f"{row['PctLevelDis']:.1f}% of the DiSCO records (1-way check)")
        if len(self.check_2way):
            notes.append(f"{len(self.check_2way)} target-key level pairs flagged by the 2-way "
                         "check (see check_2way)")
        return notes

    def plot(self, ax=None):
        """Bars per target level: % of original records disclosed from the original (Dorig)
        and correctly from the synthetic data (DiSCO, mean over the m datasets), the picture
        synthpop's attribute plot gives per target. Returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.35 * max(3, self.by_level["level"].nunique())
                                          + 1.2))
        g = self.by_level.groupby("level", sort=False)[["Dorig", "DiSCO"]].mean()
        y = np.arange(len(g))
        ax.barh(y - 0.2, 100 * g["Dorig"] / self.n, height=0.4, label="Dorig (original)")
        ax.barh(y + 0.2, 100 * g["DiSCO"] / self.n, height=0.4, label="DiSCO (synthetic)")
        ax.set_yticks(y, [str(v) for v in g.index])
        ax.set_xlabel("% of original records")
        ax.set_title(f"Attribute disclosure of {self.target} from {', '.join(self.keys)}")
        ax.legend()
        return ax


@dataclass(frozen=True, repr=False)
class DisclosureSummary(Result):
    """synthpop's disclosure measures of many targets from the same keys.

    Attributes
    ----------
    keys, m, n, quirks
        As in :class:`DisclosureResult`.
    table : DataFrame
        One row per target, sorted by DiSCO like synthpop's ``attrib.table``: UiO and repU
        (identity), Dorig and DiSCO (attribute, means over the m datasets) and the 1-way and
        2-way check texts.
    results : mapping
        The :class:`DisclosureResult` of each target.
    """

    keys: tuple[str, ...]
    m: int
    n: int
    quirks: str
    table: pd.DataFrame = field(compare=False)
    results: Mapping[str, DisclosureResult] = field(compare=False)

    def summary(self) -> pd.DataFrame:
        """One row per target (see ``table``)."""
        return self.table

    def to_frame(self) -> pd.DataFrame:
        """Long form of every target's measures: ``target, dataset, family, measure, value``."""
        parts = [r.to_frame().assign(target=t) for t, r in self.results.items()]
        out = pd.concat(parts, ignore_index=True)
        return out[["target"] + [c for c in out.columns if c != "target"]]

    def _header(self) -> str:
        return (f"DisclosureSummary(targets={len(self.results)}, keys={list(self.keys)}, "
                f"m={self.m}, n={self.n}, quirks={self.quirks!r})")

    def plot(self, ax=None):
        """Dorig and DiSCO per target (points joined by a line, targets ordered by DiSCO),
        as synthpop's ``multi.disclosure`` plot. Returns the Axes."""
        import matplotlib.pyplot as plt

        t = self.table
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.35 * max(3, len(t)) + 1.2))
        y = np.arange(len(t))
        ax.hlines(y, t["Dorig"], t["DiSCO"], color="0.7")
        ax.plot(t["Dorig"], y, "o", label="Dorig (original)")
        ax.plot(t["DiSCO"], y, "s", label="DiSCO (synthetic)")
        ax.set_yticks(y, [str(v) for v in t.index])
        ax.set_xlabel("% of original records")
        ax.set_title(f"Attribute disclosure from {', '.join(self.keys)}")
        ax.legend()
        return ax


def disclosure(
    confidential: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    known: str | Sequence[str],
    syn: str,
    *,
    cont_na: Mapping[str, Sequence[float]] | None = None,
    ngroups_syn: int | None = None,
    ngroups_known: int | Sequence[int] | None = None,
    not_syn_levels: str | Sequence[str] | None = None,
    use_syn_na: bool = True,
    use_known_na: bool | Sequence[bool] = True,
    exclude: Sequence[tuple[str, object, object]] | None = None,
    exclude_over_denom_lim: bool = False,
    denom_lim: int = 5,
    thresh_1way: Sequence[float] = (50, 90),
    thresh_2way: Sequence[float] = (4, 80),
    quirks: str = "synthpop",
) -> DisclosureResult:
    """synthpop's identity and attribute disclosure measures of ``syn`` from ``known``.

    Parameters
    ----------
    confidential : DataFrame
        The original data.
    synthetic : DataFrame, list of DataFrames or SyntheticData
        The m synthetic datasets.
    known : str or list of str
        The intruder's known variables, synthpop's ``keys`` (quasi-identifiers; any order:
        synthpop uses them in the confidential data's order).
    syn : str
        The synthesized variable an intruder wants to learn, synthpop's ``target``.
    cont_na : mapping, optional
        Missing-value codes of numeric columns (e.g. ``{"income": [-8]}``): kept out of the
        grouping and made levels of their own.
    ngroups_syn, ngroups_known : int, optional
        Group a numeric ``syn`` / numeric ``known`` variables into this many quantile classes
        (0: no grouping; one value for all known variables or one per variable, in the order
        of ``known``). synthpop's ``ngroups_target``, ``ngroups_keys``.
    not_syn_levels : str or list of str, optional
        Levels of ``syn`` left out of the attribute measures (synthpop's ``not.targetlev``).
    use_syn_na, use_known_na : bool
        False leaves records with a missing ``syn`` / ``known`` value out (``use_known_na``
        per known variable; synthpop's ``usetargetNA``, ``usekeysNA``).
    exclude : list of (key, key level, target level), optional
        Key-target level pairs left out.
    exclude_over_denom_lim, denom_lim : bool, int
        Leave out every table cell of more than ``denom_lim`` records.
    thresh_1way, thresh_2way : pair of numbers
        Thresholds of the 1-way check (DiSCO records of the dominant level, its % of DiSCO)
        and the 2-way check (DiSCO records of a cell, % of the key level's records with the
        target level).
    quirks : {"synthpop", "corrected"}
        ``"synthpop"`` (default) gives synthpop 1.9-3's numbers, with a
        :class:`SynthpopQuirkWarning` naming any quirk that shaped them. ``"corrected"`` fixes:

        * *usekeysNA permutation* -- with keys in another order than the data's, synthpop
          applies ``use_known_na`` and ``ngroups_known`` to the wrong keys (unless the reorder
          is a swap); corrected: each setting stays with its key.
        * *tables combined by position* -- when a level is missing from one table (e.g. an
          ungrouped numeric target whose synthetic values miss one), synthpop sorts that table
          by name ("10" before "9") and combines it with the other by position, comparing
          different levels; corrected: by name. Changes every attribute measure and CAP.
        * *identity measures depend on the target* -- synthpop computes UiO, UiS, UiOiS and
          repU after the target's exclusions (``not_syn_levels``, ``use_syn_na``,
          ``exclude``, ``exclude_over_denom_lim``); corrected: after the key exclusions
          only, so they describe the keys alone.
        * *unused levels count as present* -- with one key, synthpop's UiOiS counts an
          original unique whose key level is a level of the synthetic column held by no
          synthetic record (a categorical's unused category); corrected: only keys some
          synthetic record holds.
        * *full row counts* -- synthpop divides by all records even when some were excluded;
          corrected: by the records remaining in the original (or synthetic) table.
        * *TCAP over no records* -- with ``exclude_over_denom_lim`` a DiSCO record can keep
          its keys while every synthetic cell of those keys is over ``denom_lim``; then no
          record is left in TCAP's denominator and synthpop gives ``inf``; corrected: NaN,
          as every measure whose denominator is empty.
        * *'|' in level labels* -- the 2-way check reads a pair's levels back from
          ``"<syn level>|<known level>"`` at the first two ``"|"``: a known level holding
          ``"|"`` is misread, has no records and gives a row of NAs in ``check_2way``; a
          ``syn`` level holding ``"|"`` stops synthpop (here a ``ValueError``); corrected: the
          pair's own levels.

        Without exclusions, key reordering, missing levels or "|" in levels both modes agree.

    Returns
    -------
    DisclosureResult

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"sex": ["F", "F", "M", "M"], "age": [30, 40, 30, 50],
    ...                      "smoke": ["no", "yes", "no", "no"]})
    >>> syn = pd.DataFrame({"sex": ["F", "F", "M", "M"], "age": [30, 40, 30, 40],
    ...                     "smoke": ["no", "yes", "no", "yes"]})
    >>> res = disclosure(conf, syn, ["sex", "age"], "smoke")
    >>> res.identity.loc[1, ["UiO", "repU"]].tolist()
    [100.0, 75.0]
    >>> res.attribute.loc[1, "DiSCO"]
    np.float64(75.0)
    """
    frames = synthetic_frames(synthetic)
    key_list = as_names(known, "known")
    if not key_list:
        raise ValueError("known: give at least one known variable (synthpop's keys)")
    if not isinstance(syn, str):
        raise TypeError(f"syn must be one column name, got {syn!r}")
    _check(confidential, frames, [*key_list, syn], "known/syn")
    _check_ngroups(ngroups_syn, ngroups_known)
    with _quirk_mode(quirks):
        res = disclosure_tables(
            frames, confidential, key_list, syn, cont_na=dict(cont_na or {}),
            denom_lim=denom_lim, exclude_ov_denom_lim=exclude_over_denom_lim,
            not_targetlev=not_syn_levels, usetargetNA=use_syn_na,
            usekeysNA=use_known_na, ngroups_target=ngroups_syn, ngroups_keys=ngroups_known,
            thresh_1way=thresh_1way, thresh_2way=thresh_2way, quirks=quirks,
            **_exclusion_args(exclude),
        )
    return _result(res, len(confidential), quirks)


def _check_ngroups(ngroups_syn: Any, ngroups_known: Any) -> None:
    """One quantile class is no grouping: say so under the public names."""
    for name, value in (("ngroups_syn", ngroups_syn), ("ngroups_known", ngroups_known)):
        values = value if isinstance(value, (list, tuple, np.ndarray)) else [value]
        if any(v is not None and not isinstance(v, bool) and v == 1 for v in values):
            raise ValueError(f"{name} must not be 1 (0 or None: no grouping)")


def _result(res: dict, n: int, quirks: str) -> DisclosureResult:
    per = res["_tables"]
    m = len(per)
    index = pd.RangeIndex(1, m + 1, name="dataset")

    def reindexed(frame: pd.DataFrame) -> pd.DataFrame:
        return frame.set_axis(index, axis=0)

    checks1, checks2, excl, levels = [], [], [], []
    for j, p in enumerate(per, start=1):
        if p["check_1way"] is not None:
            checks1.append(p["check_1way"].reset_index(drop=True).assign(dataset=j))
        if p["check_2way"] is not None:
            c2 = p["check_2way"].reset_index(drop=True)
            checks2.append(c2.assign(target_key_levs=c2["target_key_levs"].astype(str),
                                     dataset=j))
        reasons = [c.replace("  ", " ") for c in EXCLUSION_COLUMNS]  # R's double space
        nex = pd.DataFrame(p["Nexclusions"], index=list(TABLES), columns=reasons)
        long = nex.rename_axis("table").reset_index().melt(
            id_vars="table", var_name="reason", value_name="records")
        excl.append(long.assign(dataset=j))
        t = p["tables"]
        levels.append(pd.DataFrame({
            "dataset": j, "level": p["d"].rows,
            "original": t["original"].sum(axis=1).astype(float),
            "Dorig": t["Dorig"].sum(axis=1).astype(float),
            "DiSCO": t["DiSCO"].sum(axis=1).astype(float),
        }))

    def stacked(parts: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
        if not parts:
            return pd.DataFrame(columns=["dataset", *columns])
        out = pd.concat(parts, ignore_index=True)
        return out[["dataset", *[c for c in out.columns if c != "dataset"]]]

    return DisclosureResult(
        target=res["target"], keys=tuple(res["keys"]), m=m, n=n, quirks=quirks,
        identity=reindexed(res["ident"]), attribute=reindexed(res["attrib"]),
        caps=reindexed(res["allCAPs"]),
        check_1way=stacked(checks1, ["Level", "All", "PctLevelAll", "totalDisclosive",
                                     "nLevelDis", "PctLevelDis"]),
        check_2way=stacked(checks2, ["target_key_levs", "npairs", "key", "key_target_total",
                                     "key_total", "PctTargetKeyLevel"]),
        exclusions=stacked(excl, ["table", "reason", "records"]),
        by_level=stacked(levels, ["level", "original", "Dorig", "DiSCO"]),
    )


def disclosure_summary(
    confidential: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    known: str | Sequence[str],
    syn: str | Sequence[str] | None = None,
    *,
    cont_na: Mapping[str, Sequence[float]] | None = None,
    ngroups_syn: int | Sequence[int | None] | None = None,
    ngroups_known: int | Sequence[int] | None = None,
    use_syn_na: bool | Sequence[bool] = True,
    use_known_na: bool | Sequence[bool] = True,
    exclude_over_denom_lim: bool = False,
    denom_lim: int = 5,
    thresh_1way: Sequence[float] = (50, 90),
    thresh_2way: Sequence[float] = (4, 80),
    quirks: str = "synthpop",
) -> DisclosureSummary:
    """:func:`disclosure` for many ``syn`` variables (default: every synthetic column not in
    ``known``), with
    synthpop's ``multi.disclosure`` table: targets sorted by DiSCO.

    The identity columns are UiO (mean over the m datasets) and repU -- synthpop's table
    shows synthesis 1's repU (a quirk: with ``quirks="corrected"`` the mean over the m
    datasets). Other arguments as in :func:`disclosure` (``ngroups_syn`` and ``use_syn_na``
    may give one value per ``syn`` variable). synthpop's ``multi.disclosure`` puts the known
    variables in the data's order but keeps ``use_known_na`` and ``ngroups_known`` in the
    order given, so each value goes to the variable at its position in the data's order (the
    quirk *usekeysNA permutation* again, warned; corrected: each value stays with its
    variable).

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"sex": ["F", "F", "M", "M"], "smoke": ["no", "yes", "no", "no"],
    ...                      "sport": ["y", "n", "n", "y"]})
    >>> out = disclosure_summary(conf, conf, "sex")
    >>> out.table.index.tolist()
    ['sport', 'smoke']
    >>> out.table["DiSCO"].tolist()
    [0.0, 50.0]
    """
    frames = synthetic_frames(synthetic)
    key_list = as_names(known, "known")
    target_list = None if syn is None else as_names(syn, "syn")
    _check(confidential, frames, key_list + (target_list or []), "known/syn")
    _check_ngroups(ngroups_syn, ngroups_known)
    with _quirk_mode(quirks):
        res = multi_disclosure_tables(
            frames, confidential, key_list, target_list, cont_na=dict(cont_na or {}),
            denom_lim=denom_lim, exclude_ov_denom_lim=exclude_over_denom_lim,
            usetargetsNA=use_syn_na, usekeysNA=use_known_na,
            ngroups_targets=ngroups_syn, ngroups_keys=ngroups_known,
            thresh_1way=thresh_1way, thresh_2way=thresh_2way, quirks=quirks,
        )
    n = len(confidential)
    results = {t: _result(r, n, quirks) for t, r in res["output.list"].items()}
    rows = []
    for i, (t, r) in enumerate(results.items()):
        rows.append({
            "target": t, "UiO": res["ident.orig"][i], "repU": res["ident.syn"][i],
            "Dorig": _rmean(r.attribute["Dorig"]),  # R's mean(): long double, last bits
            "DiSCO": _rmean(r.attribute["DiSCO"]),
            "check_1way": res["output.list"][t]["check1"],
            "check_2way": res["output.list"][t]["check2"],
        })
    table = pd.DataFrame(rows).set_index("target")
    table = table.iloc[np.argsort(table["DiSCO"].to_numpy(), kind="stable")]
    return DisclosureSummary(keys=tuple(res["keys"]), m=len(frames), n=n, quirks=quirks,
                             table=table, results=results)

