"""The result object of :func:`idrisk.identification_risk`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["IdentificationRiskResult", "R_NAMES", "sequential_sum"]

#: R's result names -> attribute names
R_NAMES: dict[str, str] = {
    "c_vector": "c",
    "T_vector": "T",
    "K_vector": "K",
    "F_vector": "F",
    "Risk_vector": "risk",
    "s_vector": "s",
    "exp.risk_vector": "exp_risk",
    "true.rate_vector": "true_rate",
    "false.rate_vector": "false_rate",
}
_MATRICES = ("c", "T", "K", "F", "risk")
_VECTORS = ("s", "exp_risk", "true_rate", "false_rate")


def sequential_sum(values: np.ndarray, axis: int = 0) -> np.ndarray:
    """Sum in record order with a double accumulator, as the R package adds up the risks.

    (Neither numpy's pairwise sum nor R's long-double ``sum()`` gives R's exact ``exp.risk``
    on every fixture; this left-to-right double sum does, on all of them.)
    """
    values = np.asarray(values, dtype=np.float64)
    if values.shape[axis] == 0:
        return np.zeros(np.delete(values.shape, axis), dtype=np.float64)
    return np.take(np.cumsum(values, axis=axis), -1, axis=axis)


@dataclass(repr=False)
class IdentificationRiskResult(Mapping):
    """Record-level and file-level identification risk for m synthetic datasets.

    Matrices are DataFrames with one row per confidential record (the index of ``origdata``) and
    one column per synthetic dataset (1..m); vectors are Series indexed by dataset.

    Attributes
    ----------
    c
        Number of synthetic records matching target i.
    T
        1 if record i's own synthetic row is among the matches (1 when c = 0, as in R).
    K, F
        True unique match (c·T = 1) and false unique match (c·(1 − T) = 1).
    risk
        IR_i = T_i / c_i (0 when c_i = 0).
    s
        Number of records with exactly one match.
    exp_risk
        Expected match risk Σ_i T_i / c_i.
    true_rate, false_rate
        Σ K_i / n and Σ F_i / s (NaN when s = 0).

    The R names (``"c_vector"``, ``"exp.risk_vector"``, ...) work as mapping keys, so translated
    R scripts keep working: ``result["exp.risk_vector"]``.
    """

    c: pd.DataFrame
    T: pd.DataFrame
    K: pd.DataFrame
    F: pd.DataFrame
    risk: pd.DataFrame
    s: pd.Series
    exp_risk: pd.Series
    true_rate: pd.Series
    false_rate: pd.Series
    settings: dict[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_counts(
        cls,
        c: np.ndarray,
        own: np.ndarray,
        index: pd.Index | None = None,
        settings: dict[str, Any] | None = None,
    ) -> IdentificationRiskResult:
        """Build every component from the match counts c and own-row indicators (n x m)."""
        c = np.asarray(c, dtype=np.int64)
        t = np.where(c == 0, 1, np.asarray(own, dtype=np.int64))
        k = ((c * t) == 1).astype(np.int64)
        f = ((c * (1 - t)) == 1).astype(np.int64)
        with np.errstate(divide="ignore", invalid="ignore"):
            risk = np.where(c > 0, t / np.maximum(c, 1), 0.0)
        n = c.shape[0]
        s = (c == 1).sum(axis=0).astype(np.int64)
        exp_risk = sequential_sum(risk, axis=0)
        true_rate = k.sum(axis=0) / n
        with np.errstate(divide="ignore", invalid="ignore"):
            false_rate = f.sum(axis=0) / s
        return cls._wrap(c, t, k, f, risk, s, exp_risk, true_rate, false_rate, index, settings)

    @classmethod
    def _wrap(cls, c, t, k, f, risk, s, exp_risk, true_rate, false_rate, index, settings):
        n, m = np.shape(c)
        index = pd.RangeIndex(n) if index is None else index
        columns = pd.RangeIndex(1, m + 1, name="dataset")

        def frame(a):
            return pd.DataFrame(np.asarray(a), index=index, columns=columns)

        def series(a, name):
            return pd.Series(np.asarray(a), index=columns, name=name)

        return cls(
            c=frame(c),
            T=frame(t),
            K=frame(k),
            F=frame(f),
            risk=frame(risk),
            s=series(s, "s"),
            exp_risk=series(exp_risk, "exp_risk"),
            true_rate=series(true_rate, "true_rate"),
            false_rate=series(false_rate, "false_rate"),
            settings=dict(settings or {}),
        )

    @classmethod
    def from_r_dict(
        cls, d: Mapping[str, Any], index: pd.Index | None = None, settings: dict | None = None
    ) -> IdentificationRiskResult:
        """From R's result list (names ``c_vector`` ... ``false.rate_vector``), taken as given.

        Matrices are n x m (one row per record), vectors have length m.
        """
        missing = [k for k in R_NAMES if k not in d]
        if missing:
            raise KeyError(f"R result is missing {missing}")

        def matrix(key):
            a = np.asarray(d[key], dtype=np.float64)
            return a.reshape(-1, 1) if a.ndim == 1 else a

        def vector(key):
            return np.atleast_1d(np.asarray(d[key], dtype=np.float64))

        c, t, k, f = (matrix(x) for x in ("c_vector", "T_vector", "K_vector", "F_vector"))
        ints = [a.astype(np.int64) for a in (c, t, k, f)]
        return cls._wrap(
            *ints,
            matrix("Risk_vector"),
            vector("s_vector").astype(np.int64),
            vector("exp.risk_vector"),
            vector("true.rate_vector"),
            vector("false.rate_vector"),
            index,
            settings,
        )

    def to_r_dict(self) -> dict[str, np.ndarray]:
        """R's result list as a dict of numpy arrays (matrices n x m, vectors length m)."""
        return {r: getattr(self, a).to_numpy() for r, a in R_NAMES.items()}

    # ------------------------------------------------------------------ mapping protocol
    def __getitem__(self, key: str):
        if key in R_NAMES:
            return getattr(self, R_NAMES[key])
        if key in R_NAMES.values() or key == "record_risk":
            return getattr(self, key)
        raise KeyError(f"{key!r}; available: {list(R_NAMES)} or {list(R_NAMES.values())}")

    def __iter__(self) -> Iterator[str]:
        return iter(R_NAMES)

    def __len__(self) -> int:
        return len(R_NAMES)

    # ------------------------------------------------------------------ summaries
    @property
    def n(self) -> int:
        return self.c.shape[0]

    @property
    def m(self) -> int:
        return self.c.shape[1]

    @property
    def record_risk(self) -> pd.Series:
        """Record-level risk: the mean of IR_i over the m datasets."""
        return self.risk.mean(axis=1).rename("record_risk")

    def to_frame(self, level: str = "dataset") -> pd.DataFrame:
        """Tidy results.

        ``level="dataset"``: one row per synthetic dataset (s, exp_risk, true_rate, false_rate).
        ``level="record"``: one row per record and dataset (c, T, K, F, risk).
        """
        if level == "dataset":
            return pd.concat([getattr(self, v) for v in _VECTORS], axis=1)
        if level == "record":
            parts = {v: getattr(self, v).stack() for v in _MATRICES}
            out = pd.DataFrame(parts)
            out.index.names = ["record", "dataset"]
            return out.reset_index()
        raise ValueError(f"level must be 'dataset' or 'record', got {level!r}")

    def summary(self) -> pd.DataFrame:
        """Mean, sd, min and max over the m datasets of s, exp_risk, true_rate and false_rate."""
        table = self.to_frame("dataset").astype(float)
        return table.agg(["mean", "std", "min", "max"]).T

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.settings.items() if k in _REPR_SETTINGS)
        head = f"IdentificationRiskResult(n={self.n}, m={self.m}{', ' if opts else ''}{opts})"
        table = self.to_frame("dataset")
        if self.m > 10:
            table = pd.concat([table.head(5), table.tail(5)])
        mean = self.to_frame("dataset").mean().to_frame("mean").T
        body = pd.concat([table.astype(object), mean.astype(object)]).to_string(
            float_format=lambda v: f"{v:.6g}"
        )
        return f"{head}\n{body}"


_REPR_SETTINGS = ("known", "syn", "radii", "percentage", "euclidean_dist")
