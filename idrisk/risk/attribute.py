"""Exact attribute disclosure of synthesized categorical values (Hu & Savitsky, §4.3).

For record i and synthetic dataset l, ``A_il = 1`` when every synthesized variable of row i
equals its confidential value (for one synthesized label: the synthetic label is the true
label). File-level summaries: the count ``sum_i A_il`` and its share of n, per dataset and
averaged over the m datasets.

Implements the attribute measure of Hu & Savitsky, *Bayesian data synthesis and disclosure
risk quantification: an application to the Consumer Expenditure Surveys*.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._result import Result
from .._schema import as_names, require_columns
from .._synthetic import synthetic_frames, synthetic_name

__all__ = ["AttributeRiskResult", "attribute_risk"]


@dataclass(frozen=True, repr=False)
class AttributeRiskResult(Result):
    """Exact attribute disclosures.

    Attributes
    ----------
    A : DataFrame
        n x m indicators (0/1), columns ``1..m``, index of the confidential data.
    count : Series
        ``sum_i A_il`` per dataset.
    share : Series
        ``count / n`` per dataset.
    syn : list of str
        The synthesized variables compared.
    """

    A: pd.DataFrame
    syn: list[str]

    def summary(self) -> pd.DataFrame:
        """Count and share per dataset, and their ``mean`` over the datasets (last row)."""
        t = self.to_frame("dataset").set_index("dataset")
        t["count"] = t["count"].astype(float)
        t.loc["mean"] = t.mean()
        return t

    @property
    def n(self) -> int:
        return self.A.shape[0]

    @property
    def m(self) -> int:
        return self.A.shape[1]

    @property
    def count(self) -> pd.Series:
        return self.A.sum(axis=0).rename("count")

    @property
    def share(self) -> pd.Series:
        return (self.count / self.n).rename("share")

    @property
    def record_risk(self) -> pd.Series:
        """Per record: the share of the m datasets that disclose its true values."""
        return self.A.mean(axis=1).rename("record_risk")

    def to_frame(self, rows: str = "dataset") -> pd.DataFrame:
        """Tidy rows: ``rows="dataset"``: ``dataset``, ``count``, ``share``, one row per
        dataset (their mean is in :meth:`summary`); ``rows="record"``: ``record``,
        ``dataset``, ``A``, one row per record and dataset."""
        if rows == "record":
            long = self.A.stack().rename("A").reset_index()
            long.columns = ["record", "dataset", "A"]
            return long
        if rows != "dataset":
            raise ValueError(f"rows must be 'dataset' or 'record', got {rows!r}")
        return pd.DataFrame({"count": self.count, "share": self.share}).reset_index()

    def _header(self) -> str:
        return f"AttributeRiskResult(n={self.n}, m={self.m}, syn={self.syn})"


def attribute_risk(confidential: pd.DataFrame,
                   synthetic: pd.DataFrame | Sequence[pd.DataFrame],
                   syn: str | Sequence[str]) -> AttributeRiskResult:
    """Exact attribute disclosures ``A_il = [synthetic values of row i = true values]``.

    Parameters
    ----------
    confidential : DataFrame
        Confidential data, n rows.
    synthetic : DataFrame or list of DataFrame
        Synthetic datasets, row i being the synthetic version of record i.
    syn : str or list of str
        The synthesized variable(s); with several, a disclosure needs all of them right.

    Examples
    --------
    >>> import pandas as pd
    >>> orig = pd.DataFrame({"county": ["a", "b", "c", "a"]})
    >>> s1 = pd.DataFrame({"county": ["a", "c", "c", "b"]})
    >>> s2 = pd.DataFrame({"county": ["b", "b", "a", "a"]})
    >>> res = attribute_risk(orig, [s1, s2], "county")
    >>> res.count.tolist(), res.share.tolist()
    ([2, 2], [0.5, 0.5])
    >>> res.A.to_numpy().T.tolist()
    [[1, 0, 1, 0], [0, 1, 0, 1]]
    """
    syn = as_names(syn, "syn")
    if not syn:
        raise ValueError("syn is empty")
    if not isinstance(confidential, pd.DataFrame):
        raise TypeError(f"confidential must be a DataFrame, got {type(confidential).__name__}")
    datasets = synthetic_frames(synthetic)
    require_columns(confidential, syn, "syn", "the confidential data")
    n = len(confidential)
    cols = []
    for l, d in enumerate(datasets):
        if len(d) != n:
            raise ValueError(f"{synthetic_name(l + 1)} has {len(d)} rows, confidential has {n}")
        require_columns(d, syn, "syn", synthetic_name(l + 1))
        hit = np.ones(n, dtype=bool)
        for v in syn:
            a = confidential[v].to_numpy(dtype=object)
            b = d[v].to_numpy(dtype=object)
            eq = np.asarray(a == b, dtype=bool) & ~(pd.isna(a) | pd.isna(b))
            hit &= eq
        cols.append(hit.astype(np.int64))
    A = pd.DataFrame(np.column_stack(cols), index=confidential.index,
                     columns=pd.RangeIndex(1, len(datasets) + 1, name="dataset"))
    return AttributeRiskResult(A=A, syn=syn)
