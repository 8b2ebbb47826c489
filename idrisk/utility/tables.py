"""Table-count utility of a synthesized categorical label (Hu & Savitsky, §3.1 and §3.3).

* :func:`table_deviations` -- one-way (label), two-way (label x each kept variable) and
  three-way (label x each pair of kept variables) contingency tables of every synthetic
  dataset against the confidential data: the sum of absolute count differences over all
  cells of all tables of that order, per dataset and averaged over m (the paper's Table 2),
  and the signed cell differences (Figure 1).
* :func:`within_pattern_distribution` -- the label distribution within each pattern (a
  combination of the kept variables) in the confidential and the synthetic data (Figure 3).

Hu & Savitsky, *Bayesian data synthesis and disclosure risk quantification: an application to
the Consumer Expenditure Surveys*.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._result import Result
from .._schema import require_columns
from .._synthetic import synthetic_frames, synthetic_name

__all__ = ["TableDeviations", "table_deviations", "within_pattern_distribution"]

WAYS = {1: "one-way", 2: "two-way", 3: "three-way"}

#: the level of a missing value in the tables (synthpop's ``utility`` functions likewise keep
#: ``NA`` as a category instead of dropping the record)
NA_LEVEL = "<NA>"


def _with_na_level(df: pd.DataFrame, cols: Sequence[str]) -> pd.DataFrame:
    """``cols`` of ``df`` as objects with missing values replaced by :data:`NA_LEVEL`."""
    out = {}
    for c in cols:
        s = df[c].astype(object)
        if s.isna().any() and (s == NA_LEVEL).any():
            raise ValueError(f"column {c!r} has a level {NA_LEVEL!r} and missing values")
        out[c] = s.where(s.notna(), NA_LEVEL)
    return pd.DataFrame(out, index=df.index)


def _check_cols(df: pd.DataFrame, syn: str, known: Sequence[str], where: str) -> None:
    require_columns(df, [syn], "syn", where)
    require_columns(df, known, "known", where)


def _counts(df: pd.DataFrame, cols: list[str], levels: dict[str, pd.Index]) -> pd.Series:
    """Counts over the full product of the levels (zeros included)."""
    full = pd.MultiIndex.from_product([levels[c] for c in cols], names=cols)
    vals = pd.MultiIndex.from_frame(df[cols].astype(object)) if len(cols) > 1 else \
        pd.Index(df[cols[0]].astype(object), name=cols[0])
    counts = pd.Series(1, index=vals).groupby(level=list(range(len(cols)))).size()
    if len(cols) == 1:
        full = full.get_level_values(0)
    return counts.reindex(full, fill_value=0)


@dataclass(frozen=True, repr=False)
class TableDeviations(Result):
    """Deviations of synthetic table counts from the confidential ones.

    Attributes
    ----------
    cells : DataFrame
        One row per dataset, table and cell: ``dataset, way, table, cell, orig, syn, diff``
        (``diff = syn - orig``).
    syn, known : the columns used.
    """

    cells: pd.DataFrame
    syn: str
    known: list[str]

    @property
    def m(self) -> int:
        return int(self.cells["dataset"].max())

    def by_dataset(self) -> pd.DataFrame:
        """Sum of absolute deviations per dataset (rows) and table order (columns)."""
        t = self.cells.assign(absdiff=self.cells["diff"].abs()).pivot_table(
            index="dataset", columns="way", values="absdiff", aggfunc="sum")
        return t.rename(columns=WAYS)

    def summary(self) -> pd.DataFrame:
        """The m-averaged sums of absolute deviations per table order (rows ``one-way``,
        ``two-way``, ``three-way``; the paper's Table 2, before its division by 100)."""
        s = self.by_dataset().mean().rename("mean_abs_deviation")
        return s.rename_axis("way").to_frame()

    def by_table(self) -> pd.DataFrame:
        """m-averaged sum of absolute deviations of every single table."""
        s = self.cells.assign(absdiff=self.cells["diff"].abs()).groupby(
            ["way", "table", "dataset"])["absdiff"].sum()
        return s.groupby(level=["way", "table"]).mean().to_frame("mean_abs_deviation")

    def to_frame(self) -> pd.DataFrame:
        """One row per dataset, table and cell (``dataset, way, table, cell, orig, syn,
        diff``)."""
        return self.cells.copy()

    def _header(self) -> str:
        return f"TableDeviations(syn={self.syn!r}, known={self.known}, m={self.m})"

    def _notes(self) -> list[str]:
        return ["mean over datasets of the summed |syn - orig| counts"]


def table_deviations(confidential: pd.DataFrame, synthetic: pd.DataFrame | Sequence[pd.DataFrame],
                     syn: str, known: str | Sequence[str],
                     ways: Sequence[int] = (1, 2, 3)) -> TableDeviations:
    """One-, two- and three-way table deviations of a synthesized label ``syn``.

    A missing value is one more level (labelled ``"<NA>"``), so a record with a missing
    label or known value is counted, not dropped.

    Parameters
    ----------
    confidential : DataFrame
        Confidential data.
    synthetic : DataFrame or list of DataFrame
        Synthetic datasets.
    syn : str
        The synthesized variable (the label).
    known : str or list of str
        The known (kept) variables crossed with the label.
    ways : sequence of {1, 2, 3}
        Table orders to compute.

    Examples
    --------
    >>> import pandas as pd
    >>> orig = pd.DataFrame({"sex": list("ffmm"), "county": list("abab")})
    >>> syn = pd.DataFrame({"sex": list("ffmm"), "county": list("aabb")})
    >>> table_deviations(orig, [syn], "county", "sex", ways=(1, 2)).summary().to_dict()
    {'mean_abs_deviation': {'one-way': 0.0, 'two-way': 4.0}}
    """
    known = [known] if isinstance(known, str) else list(known)
    datasets = synthetic_frames(synthetic)
    _check_cols(confidential, syn, known, "the confidential data")
    bad = [w for w in ways if w not in WAYS]
    if bad:
        raise ValueError(f"ways must be among 1, 2, 3, got {bad}")
    if 3 in ways and len(known) < 2:
        raise ValueError("three-way tables need at least two known variables")
    if 2 in ways and len(known) < 1:
        raise ValueError("two-way tables need at least one known variable")
    for i, d in enumerate(datasets):
        _check_cols(d, syn, known, synthetic_name(i + 1))
    cols = [syn, *known]
    confidential = _with_na_level(confidential, cols)
    datasets = [_with_na_level(d, cols) for d in datasets]
    levels = {c: pd.Index(pd.unique(pd.concat([confidential[c]] + [d[c] for d in datasets])))
              for c in cols}
    tables = []
    for w in sorted(ways):
        for combo in itertools.combinations(known, w - 1):
            tables.append((w, [syn, *combo]))
    frames = []
    for w, tcols in tables:
        o = _counts(confidential, tcols, levels)
        name = " x ".join(tcols)
        cell = [" | ".join(map(str, k)) if isinstance(k, tuple) else str(k) for k in o.index]
        for i, d in enumerate(datasets, start=1):
            s = _counts(d, tcols, levels)
            frames.append(pd.DataFrame({"dataset": i, "way": w, "table": name, "cell": cell,
                                        "orig": o.to_numpy(), "syn": s.to_numpy(),
                                        "diff": s.to_numpy() - o.to_numpy()}))
    return TableDeviations(cells=pd.concat(frames, ignore_index=True), syn=syn, known=known)


def within_pattern_distribution(confidential: pd.DataFrame,
                                synthetic: pd.DataFrame | Sequence[pd.DataFrame],
                                syn: str, known: str | Sequence[str]) -> pd.DataFrame:
    """Label shares within each pattern, confidential vs synthetic (averaged over m).

    Returns one row per pattern and label: the known variables' values, ``pattern`` (1-based,
    in sorted order of the known values), ``n_pattern``, ``orig`` and ``syn`` (shares of the
    pattern's records; ``syn`` averaged over the datasets) and ``syn_sd`` (between-dataset
    standard deviation of the share).

    Examples
    --------
    >>> import pandas as pd
    >>> orig = pd.DataFrame({"sex": list("ffmm"), "county": list("abab")})
    >>> syn = pd.DataFrame({"sex": list("ffmm"), "county": list("aabb")})
    >>> within_pattern_distribution(orig, syn, "county", "sex")[["sex", "county", "orig", "syn"]]
      sex county  orig  syn
    0   f      a   0.5  1.0
    1   f      b   0.5  0.0
    2   m      a   0.5  0.0
    3   m      b   0.5  1.0
    """
    known = [known] if isinstance(known, str) else list(known)
    datasets = synthetic_frames(synthetic)
    _check_cols(confidential, syn, known, "the confidential data")
    for i, d in enumerate(datasets):
        _check_cols(d, syn, known, synthetic_name(i + 1))
    cols = [*known, syn]
    confidential = _with_na_level(confidential, cols)
    datasets = [_with_na_level(d, cols) for d in datasets]

    def shares(df):
        c = df.groupby(cols, observed=True).size()
        return c / c.groupby(level=list(range(len(known)))).transform("sum")

    o = shares(confidential)
    per = pd.concat([shares(d) for d in datasets], axis=1).fillna(0.0)
    idx = o.index.union(per.index)
    per = per.reindex(idx, fill_value=0.0)
    out = pd.DataFrame({"orig": o.reindex(idx, fill_value=0.0),
                        "syn": per.mean(axis=1),
                        "syn_sd": per.std(axis=1, ddof=1) if len(datasets) > 1 else np.nan})
    out = out.reset_index()
    sizes = confidential.groupby(known, observed=True).size().rename("n_pattern").reset_index()
    sizes["pattern"] = np.arange(1, len(sizes) + 1)
    out = out.merge(sizes, on=known, how="left")
    return out[[*known, "pattern", "n_pattern", syn, "orig", "syn", "syn_sd"]]
