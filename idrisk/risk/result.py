"""The result object of :func:`idrisk.identification_risk`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from .._result import Result
from .options import RiskOptions

__all__ = ["IdentificationRiskResult", "R_NAMES", "sequential_sum", "span_text"]

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
_BLOCK_CELLS = 1 << 21  # cells of the n x m matrices handled per step in from_counts
_VECTORS = ("s", "exp_risk", "true_rate", "false_rate")


def span_text(values: Any) -> str:
    """``"lo–hi"`` of counts over the synthetic datasets (one number when they are equal; "–"
    when a count is missing).

    Examples
    --------
    >>> span_text([3, 5, 4]), span_text([2, 2]), span_text([1.0, float("nan")])
    ('3–5', '2', '–')
    """
    arr = np.asarray(values, dtype=float)
    if np.isnan(arr).any():
        return "–"
    lo, hi = int(arr.min()), int(arr.max())
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


def sequential_sum(values: np.ndarray, axis: int = 0) -> np.ndarray:
    """Sum in record order with a double accumulator, as the R package adds up the risks.

    (Neither numpy's pairwise sum nor R's long-double ``sum()`` gives R's exact ``exp.risk``
    on every fixture; this left-to-right double sum does, on all of them.)
    """
    values = np.asarray(values, dtype=np.float64)
    if values.shape[axis] == 0:
        return np.zeros(np.delete(values.shape, axis), dtype=np.float64)
    return np.take(np.cumsum(values, axis=axis), -1, axis=axis)


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


@dataclass(frozen=True, repr=False, eq=False)
class IdentificationRiskResult(Result):
    """Record-level and file-level identification risk for m synthetic datasets.

    Matrices are DataFrames with one row per confidential record (the index of ``origdata``) and
    one column per synthetic dataset (1..m); vectors are Series indexed by dataset.

    The record-level matrices are stored compactly (``c`` as int32 and the own-row flags,
    read-only; ``T``, ``K``, ``F`` (bool) and ``risk`` = T / c derived when first asked) and
    the R-shaped DataFrames below are built on first access (:meth:`array` gives the compact
    arrays without a frame).

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
    checks
        Per dataset, the records whose risk R's rules change without a word: ``na_confidential`` /
        ``na_synthetic`` (NA in a continuous known/syn variable; under R's rule NA matches
        anything), ``never_match`` (the radius interval is empty: a confidential value <= 0
        under a percentage radius, so the record is never matched) and ``c_zero`` (no synthetic
        record matches). Counts that were not computed (results read from R) are NA.

    Records with c = 0 get T = 1 and risk 0 (R's convention): no synthetic record matches, so
    nothing can be identified; they count towards neither s nor the expected risk.

    options
        The :class:`~idrisk.RiskOptions` of the call (None for results read from R).
    r
        Column -> radius used (None when the call's ``r`` is None: everything matched
        exactly).
    categorical, continuous
        The known/syn columns matched by equality and within the radius.

    R's names (``"c_vector"``, ``"exp.risk_vector"``, ...) are those of :meth:`to_r_dict` and of
    :func:`idrisk.r.IdentificationRisk`.
    """

    s: pd.Series
    exp_risk: pd.Series
    true_rate: pd.Series
    false_rate: pd.Series
    options: RiskOptions | None = None
    r: dict[str, float] | None = None
    categorical: tuple[str, ...] = ()
    continuous: tuple[str, ...] = ()
    checks: pd.DataFrame | None = None
    # the compact record-level arrays (n x m, column-major, read-only)
    _c: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int32), repr=False)
    # T, K and F: None until derived from c and the own rows (_own) when first asked
    _T: np.ndarray | None = field(default=None, repr=False)
    _K: np.ndarray | None = field(default=None, repr=False)
    _F: np.ndarray | None = field(default=None, repr=False)
    _own: np.ndarray | None = field(default=None, repr=False)
    _risk: np.ndarray | None = field(default=None, repr=False)  # None: T / c
    _index: pd.Index | None = field(default=None, repr=False)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_counts(
        cls,
        counts: np.ndarray,
        own: np.ndarray,
        index: pd.Index | None = None,
        checks: Mapping[str, Any] | None = None,
        *,
        options: RiskOptions | None = None,
        r: dict[str, float] | None = None,
        categorical: tuple[str, ...] = (),
        continuous: tuple[str, ...] = (),
    ) -> IdentificationRiskResult:
        """Build every component from the match counts c (``counts``) and own-row indicators
        (n x m).

        ``checks``: ``na_confidential``, ``na_synthetic`` (length m) and ``never_match`` counts
        (:func:`idrisk.risk._checks.input_checks`); ``c_zero`` is counted here. ``options``,
        ``r``, ``categorical``, ``continuous``: what the result records about its call.
        """
        return cls._from_counts(counts, own, index, checks, options=options, r=r,
                                categorical=categorical, continuous=continuous)  # fmt: skip

    @classmethod
    def _from_counts(cls, counts: np.ndarray, own: np.ndarray, index: pd.Index | None,
                     checks: Mapping[str, Any] | None, *,
                     share: Callable[[Callable[[int], None], range], None] | None = None,
                     **about: Any) -> IdentificationRiskResult:  # fmt: skip
        """:meth:`from_counts`, with ``share(task, items)`` (the engine's: runs ``task(j)`` for
        each dataset j, perhaps on threads; default one after the other): each dataset's
        summaries are the same either way."""
        from ._kernels import risk_summaries

        c = np.asarray(counts)
        n, m = c.shape
        dtype = np.int32 if n < np.iinfo(np.int32).max else np.int64
        c = np.asfortranarray(c, dtype=dtype)
        own = np.asfortranarray(own, dtype=bool)
        sums = np.zeros((m, 4), dtype=np.int64)
        exp_risk = np.zeros(m, dtype=np.float64)
        flags = np.empty((0, m), dtype=bool, order="F")  # (none written: the sums only)
        if share is None:
            risk_summaries(c, own, flags, flags, flags, sums, exp_risk)
        else:  # (a column's sums are computed alone: the same operations in the same order)

            def summarise(j: int) -> None:
                cut = slice(j, j + 1)
                risk_summaries(c[:, cut], own[:, cut], flags[:, cut], flags[:, cut],
                               flags[:, cut], sums[cut], exp_risk[cut])  # fmt: skip

            share(summarise, range(m))
        s, true_rate, false_rate, c_zero = dataset_measures(sums, n)
        return cls._wrap(
            c, None, None, None, None, s, exp_risk, true_rate, false_rate, index, own=own,
            checks=checks_table(checks, c_zero), **about,
        )  # fmt: skip

    @classmethod
    def _wrap(cls, c, t, k, f, risk, s, exp_risk, true_rate, false_rate, index, own=None,
              **about):  # fmt: skip
        m = np.shape(c)[1]
        columns = pd.RangeIndex(1, m + 1, name="dataset")

        def series(a, name):
            return pd.Series(np.asarray(a), index=columns, name=name)

        return cls(
            s=series(s, "s"),
            exp_risk=series(exp_risk, "exp_risk"),
            true_rate=series(true_rate, "true_rate"),
            false_rate=series(false_rate, "false_rate"),
            _c=_read_only(c),
            _T=None if t is None else _read_only(t),
            _K=None if k is None else _read_only(k),
            _F=None if f is None else _read_only(f),
            _own=None if own is None else _read_only(own),
            _risk=None if risk is None else _read_only(risk),
            _index=index,
            **about,
        )

    # ------------------------------------------------------------------ record-level arrays
    def array(self, name: str) -> np.ndarray:
        """A record-level matrix as a read-only n x m array without building its frame:
        ``"c"`` (int32), ``"T"``, ``"K"``, ``"F"`` (bool, or int64 for results read from R)
        and ``"risk"`` (float64, T / c computed now unless R's values were read).

        Examples
        --------
        >>> import pandas as pd
        >>> from idrisk import identification_risk
        >>> orig = pd.DataFrame({"Sex": ["F", "F", "M"], "Income": [10.0, 10.5, 30.0]})
        >>> res = identification_risk(orig, [orig], "Sex", "Income", r=0.1)
        >>> res.array("c").dtype, res.array("T").dtype, res.array("risk")[:, 0].tolist()
        (dtype('int32'), dtype('bool'), [0.5, 0.5, 1.0])
        """
        if name == "risk":
            if self._risk is not None:
                return self._risk
            c = self._c
            hit = np.asarray(self.array("T")) & (c > 0)
            out = np.empty(c.shape, dtype=np.float64, order="F")
            np.divide(hit, np.maximum(c, 1), out=out)  # T / c, and 0 when c = 0
            return _read_only(out)
        if name not in ("c", "T", "K", "F"):
            raise ValueError(f"name must be one of ['c', 'T', 'K', 'F', 'risk'], got {name!r}")
        if name == "c":
            return self._c
        if self._T is None:  # (T, K and F are set together)
            self._derive_flags()
        return cast(np.ndarray, {"T": self._T, "K": self._K, "F": self._F}[name])

    def _derive_flags(self) -> None:
        """Set T, K and F from c and the own rows (R's rules: see
        :func:`idrisk.risk._kernels.risk_summaries`, which writes them)."""
        from ._kernels import risk_summaries

        c = self._c
        own = self._own if self._own is not None else np.zeros(c.shape, bool, order="F")
        t, k, f = (np.empty(c.shape, dtype=bool, order="F") for _ in range(3))
        m = c.shape[1]
        risk_summaries(c, own, t, k, f, np.zeros((m, 4), dtype=np.int64), np.zeros(m))
        for name, flags in (("_K", k), ("_F", f), ("_T", t)):  # (T last: it marks them set)
            object.__setattr__(self, name, _read_only(flags))

    def _frame(self, name: str) -> pd.DataFrame:
        cached = self.__dict__.get("_frames", {}).get(name)
        if cached is not None:
            return cached
        a = self.array(name)
        if name != "risk" and a.dtype != np.int64:  # R-shaped: 0/1 and counts as integers
            a = _read_only(a.astype(np.int64, order="F"))
        n, m = a.shape
        index = pd.RangeIndex(n) if self._index is None else self._index
        columns = pd.RangeIndex(1, m + 1, name="dataset")
        # no copy (pandas 3 copies arrays by default): 1M x 20 is 160 MB each
        frame = pd.DataFrame(a, index=index, columns=columns, copy=False)
        self.__dict__.setdefault("_frames", {})[name] = frame
        return frame

    @property
    def c(self) -> pd.DataFrame:
        """Number of synthetic records matching target i (n x m, built on first access)."""
        return self._frame("c")

    @property
    def T(self) -> pd.DataFrame:  # noqa: N802 (R's name)
        """1 if record i's own synthetic row is among the matches (1 when c = 0)."""
        return self._frame("T")

    @property
    def K(self) -> pd.DataFrame:  # noqa: N802 (R's name)
        """True unique match (c·T = 1)."""
        return self._frame("K")

    @property
    def F(self) -> pd.DataFrame:  # noqa: N802 (R's name)
        """False unique match (c·(1 − T) = 1)."""
        return self._frame("F")

    @property
    def risk(self) -> pd.DataFrame:
        """IR_i = T_i / c_i (0 when c_i = 0)."""
        return self._frame("risk")

    @classmethod
    def from_r_dict(
        cls, d: Mapping[str, Any], index: pd.Index | None = None, *,
        options: RiskOptions | None = None,
    ) -> IdentificationRiskResult:
        """From R's result list (names ``c_vector`` ... ``false.rate_vector``), taken as given.

        Matrices are n x m (one row per record), vectors have length m; ``options`` records
        the call's options.
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
        c = np.asfortranarray(c.astype(np.int64))
        t, k, f = (np.asfortranarray(a.astype(np.int64)) for a in (t, k, f))
        return cls._wrap(
            c, t, k, f,
            np.asfortranarray(matrix("Risk_vector")),
            vector("s_vector").astype(np.int64),
            vector("exp.risk_vector"),
            vector("true.rate_vector"),
            vector("false.rate_vector"),
            index,
            options=options,
        )

    def to_r_dict(self) -> dict[str, np.ndarray]:
        """R's result list as a dict of numpy arrays (matrices n x m, vectors length m)."""
        return {r: getattr(self, a).to_numpy() for r, a in R_NAMES.items()}

    # ------------------------------------------------------------------ summaries
    @property
    def n(self) -> int:
        return self._c.shape[0]

    @property
    def m(self) -> int:
        return self._c.shape[1]

    @property
    def record_risk(self) -> pd.Series:
        """Record-level risk: the mean of IR_i over the m datasets."""
        return self.risk.mean(axis=1).rename("record_risk")

    def to_frame(self, rows: str = "dataset") -> pd.DataFrame:
        """Tidy results.

        ``rows="dataset"``: one row per synthetic dataset (s, exp_risk, true_rate, false_rate).
        ``rows="record"``: one row per record and dataset (c, T, K, F, risk).
        """
        if rows == "dataset":
            return pd.concat([getattr(self, v) for v in _VECTORS], axis=1)
        if rows == "record":
            parts = {v: getattr(self, v).stack() for v in _MATRICES}
            out = pd.DataFrame(parts)
            out.index.names = ["record", "dataset"]
            return out.reset_index()
        raise ValueError(f"rows must be 'dataset' or 'record', got {rows!r}")

    def summary(self) -> pd.DataFrame:
        """Mean, sd, min and max over the m datasets of s, exp_risk, true_rate, false_rate and
        of the ``checks`` counts (records with NA, never matched, with c = 0); ``se``, ``lower``
        and ``upper``: the 95% Monte-Carlo interval of the four measures (:meth:`interval`).

        Examples
        --------
        >>> import pandas as pd
        >>> from idrisk import identification_risk
        >>> orig = pd.DataFrame({"Sex": ["F", "M", "M"], "Income": [10.0, 0.0, 30.0]})
        >>> res = identification_risk(orig, [orig, orig], ["Sex"], ["Income"], r=0.1)
        >>> res.summary().loc[["exp_risk", "never_match", "c_zero"], ["mean", "max"]]
                     mean  max
        exp_risk      2.0  2.0
        never_match   1.0  1.0
        c_zero        1.0  1.0
        """
        return measures_summary(self)

    def interval(self, level: float = 0.95) -> pd.DataFrame:
        """Monte-Carlo mean, se and t-interval of s, exp_risk, true_rate, false_rate over the
        m datasets (``idrisk.risk.precision.interval``; NaN and a note for m = 1)."""
        from .precision import interval

        return interval(self, level)

    def _settings_text(self) -> str:
        o = self.options
        if o is None:
            return ""
        values: dict[str, Any] = {
            "known": list(o.known), "syn": list(o.syn), "r": self.r,
            "percentage": o.percentage, "euclidean_dist": o.euclidean_dist,
        }  # fmt: skip
        parts = []
        for key, value in values.items():
            if isinstance(value, (list, tuple)) and len(value) > 8:
                value = "[" + ", ".join(repr(v) for v in value[:8]) + ", …]"
            elif isinstance(value, dict) and len(value) > 8:
                items = list(value.items())[:8]
                value = "{" + ", ".join(f"{k!r}: {v!r}" for k, v in items) + ", …}"
            else:
                value = repr(value)
            parts.append(f"{key}={value}")
        return ", ".join(parts)

    @property
    def na_matches(self) -> bool:
        """Whether a missing continuous value matched anything (R's rule) in this call."""
        return True if self.options is None else self.options.na_matches

    def _table(self, max_rows: int = 10) -> tuple[pd.DataFrame, bool]:
        """Per-dataset table (+ mean row); the middle rows are cut when m > max_rows."""
        table = self.to_frame("dataset").astype(object)
        cut = self.m > max_rows
        if cut:
            gap = pd.DataFrame([["…"] * table.shape[1]], columns=table.columns, index=["…"])
            table = pd.concat([table.head(max_rows // 2), gap, table.tail(max_rows // 2)])
        mean = self.to_frame("dataset").mean().to_frame("mean").T.astype(object)
        return pd.concat([table, mean]), cut

    def checks_text(self) -> str:
        """One line on the records whose risk R's rules change (see ``checks``)."""
        if self.checks is None or self.checks.isna().all().all():
            return ""
        ch = self.checks

        def span(col: str) -> str:
            return span_text(ch[col])

        parts = []
        if not ch["na_confidential"].isna().any():
            na_rule = "match anything" if self.na_matches else "never match"
            parts.append(
                f"NA in the confidential data / per synthetic dataset ({na_rule}): "
                f"{span('na_confidential')} / {span('na_synthetic')}"
            )
            parts.append(f"never matched (≤ 0 under a % radius): {span('never_match')}")
        parts.append(f"c = 0 (T = 1, risk 0): {span('c_zero')}")
        return f"records of {self.n} with " + "; ".join(parts)

    # ------------------------------------------------------------------ display (base hooks)
    def _header(self) -> str:
        opts = self._settings_text()
        return f"IdentificationRiskResult(n={self.n}, m={self.m}{', ' if opts else ''}{opts})"

    def _display(self) -> pd.DataFrame:
        return self._table()[0]

    def _notes(self) -> list[str]:
        checks = self.checks_text()
        return [checks] if checks else []

    def _html_notes(self) -> list[str]:
        unit = (
            "exp_risk: expected number of records identified (Σ T/c), out of n = "
            f"{self.n}; true_rate = Σ K / n; false_rate = Σ F / s"
        )
        return [unit, *self._notes()]


_CHECKS = ("na_confidential", "na_synthetic", "never_match", "c_zero")  # c_zero: last


def dataset_measures(
    sums: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(s, true_rate, false_rate, c_zero)`` per dataset from the m x 4 counts of
    :func:`idrisk.risk._kernels.risk_summaries` (s, Σ K, Σ F, records with c = 0) and n."""
    s, k_sum, f_sum, c_zero = (sums[:, v] for v in range(4))
    true_rate = k_sum / n if n else np.full(len(s), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        false_rate = f_sum / s
    return s, true_rate, false_rate, c_zero


def checks_table(checks: Mapping[str, Any] | None, c_zero: np.ndarray) -> pd.DataFrame:
    """A result's ``checks`` (one row per dataset): ``checks`` as
    :func:`idrisk.risk._checks.checks_from_counts` gives them (None: only ``c_zero`` was
    counted, the others NaN) and the records with c = 0."""
    m = len(c_zero)
    columns = pd.RangeIndex(1, m + 1, name="dataset")
    if checks is None:
        table = pd.DataFrame({key: np.full(m, np.nan) for key in _CHECKS}, index=columns)
        table["c_zero"] = c_zero
        return table
    values = np.empty((m, len(_CHECKS)), dtype=np.int64)  # one block (column by column: 0.2 ms)
    for v, key in enumerate(_CHECKS[:-1]):
        values[:, v] = checks[key]
    values[:, -1] = c_zero
    return pd.DataFrame(values, index=columns, columns=list(_CHECKS), copy=False)


def measures_summary(result: Any) -> pd.DataFrame:
    """The ``summary()`` of a result with per-dataset measures (``to_frame("dataset")``,
    ``checks``, ``interval()``): mean, sd, min and max over the m datasets, with the interval's
    ``se``, ``lower`` and ``upper`` (NaN for m = 1 and the checks)."""
    table = result.to_frame("dataset").astype(float)
    if result.checks is not None:
        table = pd.concat([table, result.checks.astype(float)], axis=1)
    spread = result.interval()[["se", "lower", "upper"]]
    return table.agg(["mean", "std", "min", "max"]).T.join(spread)
