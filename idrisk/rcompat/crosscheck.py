"""Run idrisk and the R package on the same data and report every difference."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._result import Result
from ..risk._rcall import run_identification_risk
from ..risk.result import IdentificationRiskResult
from .cases import RiskCase
from .results import R_RESULT_ORDER

__all__ = ["ComponentDiff", "CrossCheckReport", "compare_results", "cross_check"]

_MATRICES = ("c_vector", "T_vector", "K_vector", "F_vector", "Risk_vector")


@dataclass(frozen=True)
class ComponentDiff:
    """Differences in one result component (R name), compared entry by entry.

    Two NaN entries are equal; NaN against a number counts as a difference with an infinite
    absolute difference. ``first`` is the first differing record (matrices: the index label of
    ``origdata``; vectors: None), ``first_dataset`` its dataset (1..m), and ``left_value`` /
    ``right_value`` the two values there.
    """

    name: str
    max_abs_diff: float
    n_diff: int
    first: object = None
    first_dataset: int | None = None
    shape_mismatch: bool = False
    left_value: float | None = None
    right_value: float | None = None

    def __bool__(self) -> bool:
        return self.n_diff == 0 and not self.shape_mismatch

    def describe(self, left: str = "idrisk", right: str = "R") -> str:
        """One line naming the component, the first differing record and both values.

        Examples
        --------
        >>> ComponentDiff("c_vector", 1.0, 1, 4, 2, False, 1.0, 2.0).describe()
        'c_vector: 1 entry differs (max |diff| 1); first at record 4, dataset 2: idrisk 1, R 2'
        """
        if self.shape_mismatch:
            return f"{self.name}: shapes differ ({left} vs {right})"
        if self:
            return f"{self.name}: agree"
        where = [] if self.first is None else [f"record {self.first}"]
        if self.first_dataset is not None:
            where.append(f"dataset {self.first_dataset}")
        entries = "1 entry differs" if self.n_diff == 1 else f"{self.n_diff} entries differ"
        return (
            f"{self.name}: {entries} (max |diff| {self.max_abs_diff:g}); first at "
            f"{', '.join(where)}: {left} {self.left_value:.17g}, {right} {self.right_value:.17g}"
        )


@dataclass(frozen=True, repr=False)
class CrossCheckReport(Result):
    """Per-component comparison of two IdentificationRisk results (e.g. idrisk vs R).

    Truthy when every component agrees exactly (within ``atol``), or when both sides refused
    the input (e.g. a radius vector that is too short: R prints an ``Error`` line and returns
    NULL, idrisk raises ``ValueError``); both messages are then shown side by side. Falsy when
    a component differs or only one side refused.

    Examples
    --------
    >>> report = cross_check(orig, syns, ["Age"], ["Income"], r=0.1)  # doctest: +SKIP
    >>> print(report)  # doctest: +SKIP
    >>> assert report, report  # doctest: +SKIP
    """

    components: tuple[ComponentDiff, ...]
    left: str = "idrisk"
    right: str = "R"
    atol: float = 0.0
    errors: dict[str, str | None] = field(default_factory=dict)
    label: str = ""

    def __bool__(self) -> bool:
        left, right = self.errors.get(self.left), self.errors.get(self.right)
        if left is not None or right is not None:
            return left is not None and right is not None
        return all(self.components)

    @property
    def both_refused(self) -> bool:
        """True when neither side returned a result (agreement: both refused the input)."""
        return all(self.errors.get(side) is not None for side in (self.left, self.right))

    @property
    def n_diff(self) -> int:
        return sum(c.n_diff for c in self.components)

    def to_frame(self) -> pd.DataFrame:
        """One row per component: max_abs_diff, n_diff, first_record, first_dataset and the
        two values there (``<left>_value``, ``<right>_value``)."""
        return pd.DataFrame(
            {
                "max_abs_diff": [c.max_abs_diff for c in self.components],
                "n_diff": [c.n_diff for c in self.components],
                "first_record": np.array([c.first for c in self.components], dtype=object),
                "first_dataset": pd.array(
                    [c.first_dataset for c in self.components], dtype="Int64"
                ),
                f"{self.left}_value": [c.left_value for c in self.components],
                f"{self.right}_value": [c.right_value for c in self.components],
                "shape_mismatch": [c.shape_mismatch for c in self.components],
            },
            index=pd.Index([c.name for c in self.components], name="component"),
        )

    def summary(self) -> pd.DataFrame:
        """The per-component table (:meth:`to_frame`)."""
        return self.to_frame()

    def _header(self) -> str:
        status = "AGREE" if self else "DIFFER"
        label = f": {self.label}" if self.label else ""
        return f"CrossCheckReport({self.left} vs {self.right}{label}, atol={self.atol:g}): {status}"

    def __repr__(self) -> str:
        status = "AGREE" if self else "DIFFER"
        label = f": {self.label}" if self.label else ""
        head = f"CrossCheckReport({self.left} vs {self.right}{label}, atol={self.atol:g}): {status}"
        lines = [head]
        if self.both_refused:
            lines.append("  both refused the input:")
        for side in (self.left, self.right):
            err = self.errors.get(side)
            if err is not None:
                lines.append(f"  {side:>8}: {err}")
            elif self.errors.get(self.left) or self.errors.get(self.right):
                lines.append(f"  {side:>8}: returned a result")
        if self.components:
            table = self.to_frame()
            if not table["shape_mismatch"].any():
                table = table.drop(columns="shape_mismatch")
            if not table["n_diff"].any():
                table = table.drop(columns=[f"{self.left}_value", f"{self.right}_value"])
            table = table.astype(object).where(table.notna(), "-")
            table.index.name = None
            lines.append(table.to_string())
            lines.extend("  " + c.describe(self.left, self.right) for c in self.components if not c)
        return "\n".join(lines)

    __str__ = __repr__


def _as_r_dict(res) -> dict[str, np.ndarray]:
    if isinstance(res, IdentificationRiskResult):
        d = res.to_r_dict()
    else:
        d = dict(res)
    return {k: np.asarray(d[k], dtype=np.float64) for k in R_RESULT_ORDER}


def _component(name, a, b, index, atol) -> ComponentDiff:
    if a.ndim == 1 and name in _MATRICES:
        a = a.reshape(-1, 1)
    if b.ndim == 1 and name in _MATRICES:
        b = b.reshape(-1, 1)
    if a.shape != b.shape:
        return ComponentDiff(name, float("inf"), max(a.size, b.size), shape_mismatch=True)
    both_nan = np.isnan(a) & np.isnan(b)
    with np.errstate(invalid="ignore"):
        diff = np.where(both_nan, 0.0, np.abs(a - b))
    diff = np.where(np.isnan(diff), np.inf, diff)
    bad = diff > atol
    n_diff = int(bad.sum())
    if n_diff == 0:
        return ComponentDiff(name, float(diff.max()) if diff.size else 0.0, 0)
    if a.ndim == 2:
        # first differing record (row-major: record first, then dataset)
        i, j = np.argwhere(bad)[0]
        first = index[i] if index is not None else int(i)
        return ComponentDiff(
            name,
            float(diff.max()),
            n_diff,
            first,
            int(j) + 1,
            False,
            float(a[i, j]),
            float(b[i, j]),
        )
    j = int(np.flatnonzero(bad)[0])
    return ComponentDiff(
        name, float(diff.max()), n_diff, None, j + 1, False, float(a[j]), float(b[j])
    )


def compare_results(
    left: IdentificationRiskResult | dict | None,
    right: IdentificationRiskResult | dict | None,
    *,
    atol: float = 0.0,
    names: tuple[str, str] = ("idrisk", "R"),
    index: Sequence | None = None,
    errors: dict[str, str | None] | None = None,
    label: str = "",
) -> CrossCheckReport:
    """Compare two results component by component (R names), exactly unless ``atol`` > 0.

    ``left``/``right`` are :class:`IdentificationRiskResult` objects or dicts with R's names
    (``to_r_dict()`` output, or a fixture's ``expected.json`` with ``"NaN"`` strings). None
    stands for a side that refused the input; pass its message in ``errors``.
    """
    errors = dict(errors or {})
    errors.setdefault(names[0], None)
    errors.setdefault(names[1], None)
    if left is None or right is None:
        for side, res in zip(names, (left, right), strict=True):
            if res is None and errors[side] is None:
                errors[side] = "no result"
        return CrossCheckReport((), names[0], names[1], atol, errors, label)
    if index is None and isinstance(left, IdentificationRiskResult):
        index = left.c.index
    a, b = _as_r_dict(_decode(left)), _as_r_dict(_decode(right))
    comps = [_component(k, a[k], b[k], index, atol) for k in R_RESULT_ORDER]
    return CrossCheckReport(tuple(comps), names[0], names[1], atol, errors, label)


def _decode(res):
    if isinstance(res, IdentificationRiskResult):
        return res

    def fix(v):
        if isinstance(v, list):
            return [fix(x) for x in v]
        return np.nan if v == "NaN" else v

    return {k: fix(v) if isinstance(v, list) else v for k, v in dict(res).items()}


def _idrisk_r_rules(*args: Any) -> IdentificationRiskResult:
    """idrisk under R's rules (:func:`idrisk.r.IdentificationRisk`'s reading of the data)."""
    outcome = run_identification_risk(*args)
    if outcome.result is None:
        raise ValueError(outcome.error or "R returns NULL")
    return outcome.result


def check_case(case: RiskCase, *, atol: float = 0.0) -> CrossCheckReport:
    """Compare idrisk (under R's rules) with a case's stored R answer (``expected.json``).

    Examples
    --------
    >>> from idrisk.rcompat import read_case
    >>> case = read_case("cases/T0_c0_hand")  # doctest: +SKIP
    >>> bool(check_case(case))  # doctest: +SKIP
    True
    """
    if case.expected is None:
        raise ValueError(f"{case.name}: no expected.json (R's answer) to compare with")
    names = ("idrisk", "R (stored)")
    errors: dict[str, str | None] = {names[0]: None, names[1]: None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ours: IdentificationRiskResult | None = _idrisk_r_rules(
                case.orig, case.syn, case.known, case.syn_vars, case.r, case.percentage,
                case.euclidean_dist,
            )  # fmt: skip
        except ValueError as exc:
            ours, errors[names[0]] = None, str(exc)
    theirs = None if case.expected.get("returned_null") else case.expected
    if theirs is None:
        errors[names[1]] = "R returned NULL"
    return compare_results(
        ours, theirs, atol=atol, names=names, index=case.orig.index, errors=errors,
        label=case.name,
    )  # fmt: skip


def cross_check(
    origdata: pd.DataFrame,
    syndata: pd.DataFrame | Sequence[pd.DataFrame],
    known: str | Sequence[str],
    syn: str | Sequence[str],
    r: float | Sequence[float] | None = None,
    percentage: bool = True,
    euclidean_dist: bool = False,
    *,
    atol: float = 0.0,
    label: str = "",
) -> CrossCheckReport:
    """Run :func:`idrisk.identification_risk` and R's ``IdentificationRisk`` and compare.

    Both are called with the same arguments; the report lists, per component, the largest
    absolute difference, the number of differing entries and the first differing record.
    It is falsy when anything differs, or when only one side refuses the input. When both
    refuse it (R prints an ``Error`` line and returns NULL for a radius vector that is too
    short; idrisk raises ``ValueError``) the report agrees and shows both messages.
    Warnings of both sides are silenced here.

    Raises
    ------
    RPackageNotInstalledError
        When IdentificationRiskCalculation is not installed in R.

    Examples
    --------
    >>> report = cross_check(ce, syns, ["Age", "Urban", "Marital"], ["Income"], r=[0.1, 0.1])
    ... # doctest: +SKIP
    >>> bool(report)  # doctest: +SKIP
    True
    """
    from ..exceptions import RCallError
    from ._session import require_r_package
    from .run_r import IRC, identification_risk_r

    require_r_package(IRC)
    args = (origdata, syndata, known, syn, r, percentage, euclidean_dist)
    errors: dict[str, str | None] = {"idrisk": None, "R": None}
    results: dict[str, IdentificationRiskResult | None] = {}
    for side, fun in (("idrisk", _idrisk_r_rules), ("R", identification_risk_r)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                results[side] = fun(*args)
            except (ValueError, RCallError) as exc:
                results[side] = None
                errors[side] = str(exc)
    return compare_results(
        results["idrisk"],
        results["R"],
        atol=atol,
        index=origdata.index,
        errors=errors,
        label=label,
    )
