"""Call R's ``synthpop::syn`` on a DataFrame and get the synthetic DataFrames back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .._result import Result
from ._session import call_r, robjects
from .convert import dataframe_from_r, dataframe_to_r, to_python

__all__ = ["SynthpopResult", "synthpop_syn", "to_r_value"]

#: settings of the returned ``synds`` object kept in :attr:`SynthpopResult.settings`
SETTINGS = (
    "call",
    "m",
    "method",
    "visit.sequence",
    "predictor.matrix",
    "smoothing",
    "event",
    "denom",
    "proper",
    "n",
    "k",
    "rules",
    "rvalues",
    "cont.na",
    "semicont",
    "drop.not.used",
    "drop.pred.only",
    "seed",
    "var.lab",
    "val.lab",
    "obs.vars",
    "numtocat",
    "catgroups",
)


@dataclass(frozen=True, repr=False)
class SynthpopResult(Result):
    """The output of ``synthpop::syn``: m synthetic DataFrames and the call's settings.

    Attributes
    ----------
    syn : list of DataFrame
        Always a list (R gives a single data.frame when m = 1).
    settings : dict
        The ``synds`` fields under their R names (``"method"``, ``"visit.sequence"``,
        ``"predictor.matrix"`` (DataFrame), ``"seed"``, ``"m"``, ``"call"`` (text), ...).
    output : list of str
        What ``syn()`` printed (and its messages), for the record.
    models : object or None
        The raw R ``models`` field when ``models=True`` was passed.
    """

    syn: list[pd.DataFrame]
    settings: dict[str, Any] = field(default_factory=dict)
    output: list[str] = field(default_factory=list)
    models: Any = None

    @property
    def m(self) -> int:
        return len(self.syn)

    @property
    def seed(self):
        return self.settings.get("seed")

    @property
    def method(self) -> dict:
        return self.settings.get("method") or {}

    @property
    def visit_sequence(self) -> dict:
        return self.settings.get("visit.sequence") or {}

    def summary(self) -> pd.DataFrame:
        """Rows and columns of each synthetic dataset (index 1..m)."""
        return pd.DataFrame(
            {"rows": [d.shape[0] for d in self.syn], "columns": [d.shape[1] for d in self.syn]},
            index=pd.RangeIndex(1, self.m + 1, name="dataset"),
        )

    def to_frame(self) -> pd.DataFrame:
        """All synthetic datasets stacked, with a ``dataset`` column 1..m."""
        return pd.concat(
            [d.assign(dataset=j) for j, d in enumerate(self.syn, start=1)], ignore_index=True
        )

    def _header(self) -> str:
        n = len(self.syn[0]) if self.syn else 0
        methods = (
            {k: v for k, v in self.method.items() if v}
            if isinstance(self.method, dict)
            else self.method
        )
        return (
            f"SynthpopResult(m={self.m}, n={n}, seed={self.seed!r}, "
            f"visit_sequence={list(self.visit_sequence)}, method={methods})"
        )


def to_r_value(value: Any):
    """Convert a Python argument for an R call: DataFrame -> data.frame, list/tuple -> vector
    (str, bool, int or float by content), dict -> named vector/list, scalars -> length-1."""
    ro = robjects()
    if value is None:
        return ro.NULL
    if isinstance(value, pd.DataFrame):
        return dataframe_to_r(value)
    if isinstance(value, dict):
        vals = [to_r_value(v) for v in value.values()]
        out = ro.vectors.ListVector.from_length(len(vals))
        for i, v in enumerate(vals):
            out[i] = v
        out.names = ro.StrVector([str(k) for k in value])
        return out
    if isinstance(value, str | bool | int | float):
        value = [value]
    if isinstance(value, Sequence | pd.Series | pd.Index):
        items = list(value)
        if all(isinstance(v, str) for v in items):
            return ro.StrVector(items)
        if all(isinstance(v, bool) for v in items):
            return ro.BoolVector(items)
        if all(isinstance(v, int) and not isinstance(v, bool) for v in items):
            return ro.IntVector(items)
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in items):
            return ro.FloatVector(items)
        raise TypeError(f"cannot pass {value!r} to R: mixed element types")
    return value  # assume an rpy2 object


def synthpop_syn(
    data: pd.DataFrame,
    m: int = 1,
    visit_sequence: Sequence[str] | Sequence[int] | None = None,
    seed: int | str | None = "sample",
    **kwargs: Any,
) -> SynthpopResult:
    """Run ``synthpop::syn(data, m = m, visit.sequence = visit_sequence, seed = seed, ...)``.

    Parameters
    ----------
    data : DataFrame
        Converted with :func:`dataframe_to_r` (categoricals become factors, keeping levels).
    m : int
        Number of synthetic datasets.
    visit_sequence : list of column names or 1-based indices, optional
        Omitted from the call when None (synthpop's default: every column).
    seed : int, "sample" or None
        synthpop's ``seed``: a number for ``set.seed``, ``"sample"`` (R's default: a seed
        drawn from R's current RNG state, returned in ``settings["seed"]``), None for ``NA``
        (no seeding).
    **kwargs
        Further ``syn()`` arguments, with ``_`` in place of ``.`` (``print_flag=False``,
        ``predictor_matrix=...``, ``method="cart"``, ``drop_not_used=True``, ...).

    Returns
    -------
    SynthpopResult
        ``.syn`` (list of m DataFrames, columns and types as in ``data``) and ``.settings``.

    Raises
    ------
    RPackageNotInstalledError
        When synthpop is not installed in R.

    Examples
    --------
    >>> out = synthpop_syn(ce, m=3, visit_sequence=["Expenditure", "Income"], seed=2021)
    ... # doctest: +SKIP
    >>> out.method["Income"]  # doctest: +SKIP
    'cart'
    """
    ro = robjects()
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data: expected a pandas DataFrame, got {type(data).__name__}")
    if int(m) != m or m < 1:
        raise ValueError(f"m: expected a positive integer, got {m!r}")
    args: dict[str, Any] = {"data": dataframe_to_r(data), "m": ro.IntVector([int(m)])}
    if visit_sequence is not None:
        vs = list(visit_sequence)
        missing = [v for v in vs if isinstance(v, str) and v not in data.columns]
        if missing:
            raise ValueError(f"visit_sequence: {missing} are not columns of data")
        args["visit.sequence"] = to_r_value(vs)
    args["seed"] = ro.r("NA") if seed is None else to_r_value(seed)
    for key, value in kwargs.items():
        args[key.replace("_", ".")] = to_r_value(value)
    call = call_r("synthpop", "syn", args)
    obj = call.value
    names = list(ro.r["names"](obj))
    fields = dict(zip(names, obj, strict=True))
    raw = fields["syn"]
    if "data.frame" in list(ro.r["class"](raw)):
        frames = [dataframe_from_r(raw)]
    else:
        frames = [dataframe_from_r(x) for x in raw]
    settings = {k: to_python(fields[k]) for k in SETTINGS if k in fields}
    return SynthpopResult(
        syn=frames,
        settings=settings,
        output=call.output + call.messages + call.warnings,
        models=fields.get("models") if kwargs.get("models") else None,
    )
