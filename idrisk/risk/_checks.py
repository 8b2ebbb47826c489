"""Counts of the records whose risk R's rules change silently (``result.checks``).

Shared by the single-machine engine (:func:`input_checks` over prepared arrays) and the Dask
engine (:func:`check_counts` per partition, summed by :func:`merge_check_counts`).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._interface import current, spell
from .._schema import label
from .._stack import user_stacklevel
from ..exceptions import RiskInputWarning
from ._diagnostics import shared_values
from ._kernels import nan_or_empty
from ._prepare import _one_by_one
from .options import RiskOptions
from .result import IdentificationRiskResult, span_text

_NO_D = np.empty((0, 0), dtype=np.float64)  # (check_counts without half-widths)

__all__ = [
    "check_counts",
    "checks_from_counts",
    "input_checks",
    "merge_check_counts",
    "result_about",
    "synthetic_counts",
    "warn_about_checks",
]


def check_counts(
    x: np.ndarray,
    cols: Sequence[str],
    d: np.ndarray | None = None,
    closed: bool = False,
    memo: dict | None = None,
) -> dict[str, Any]:
    """Counts behind ``result.checks`` for one block of records (blocks add up: the Dask engine
    sums them over partitions with :func:`merge_check_counts`).

    ``na``: records with NA in a continuous column (``na_by``: per column); with the
    half-widths ``d``, ``never``: records whose radius interval is empty (a value <= 0 under a
    percentage radius, a zero radius with open intervals), ``never_by`` per column and
    ``never_values``: column -> {label: records} of the values concerned. ``memo``: a dict kept
    for the same ``x`` and ``cols`` (other radii), where the counts of each set of empty
    intervals are kept (the same records at every percentage radius).
    """
    out: dict[str, Any] = {"na": 0, "na_by": {}, "never": 0, "never_by": {}, "never_values": {}}
    x = np.ascontiguousarray(x, dtype=np.float64)
    dx = _NO_D
    if d is not None and d.size:
        dx = np.ascontiguousarray(np.broadcast_to(d, x.shape), dtype=np.float64)
    if not nan_or_empty(x, dx, closed):
        return out  # the usual case: nothing to count
    na = np.isnan(x)
    if na.any():
        out["na"] = int(na.any(axis=1).sum())
        for c, k in zip(cols, na.sum(axis=0)):
            if k:
                out["na_by"][c] = max(out["na_by"].get(c, 0), int(k))
    if d is not None and d.size:
        with np.errstate(invalid="ignore"):
            empty = ~na & ((d < 0) | ((d == 0) & (not closed)) | (np.isnan(d) & np.isnan(x)))
        if not empty.any():  # the usual case
            return out
        key = empty.tobytes() if memo is not None else None
        if memo is not None and key in memo:
            never, by, values = memo[key]
            out.update(never=never, never_by=dict(by),
                       never_values={c: dict(v) for c, v in values.items()})  # fmt: skip
            return out
        # column by column (numpy's any over an axis of 2 columns costs 60 us, this 5 us)
        by_col = [empty[:, v] for v in range(empty.shape[1])]
        out["never"] = int(np.count_nonzero(functools.reduce(np.logical_or, by_col)))
        for v in (v for v in range(len(by_col)) if by_col[v].any()):
            c = cols[v]
            if c in out["never_by"]:  # a column listed twice (R's rules)
                continue
            out["never_by"][c] = int(empty[:, v].sum())
            found, counts = np.unique(x[empty[:, v], v], return_counts=True)
            out["never_values"][c] = {label(f): int(k) for f, k in zip(found, counts)}
    if memo is not None and len(memo) < 8:  # (the few sets a sweep meets)
        memo[key] = (out["never"], dict(out["never_by"]),
                     {c: dict(v) for c, v in out["never_values"].items()})  # fmt: skip
    return out


def merge_check_counts(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The sum of :func:`check_counts` of several blocks of records."""
    out: dict[str, Any] = {"na": 0, "na_by": {}, "never": 0, "never_by": {}, "never_values": {}}
    for part in parts:
        out["na"] += part["na"]
        out["never"] += part["never"]
        for key in ("na_by", "never_by"):
            for c, k in part[key].items():
                out[key][c] = out[key].get(c, 0) + k
        for c, values in part["never_values"].items():
            merged = out["never_values"].setdefault(c, {})
            for v, k in values.items():
                merged[v] = merged.get(v, 0) + k
    return out


def checks_from_counts(
    confidential: dict[str, Any], synthetic: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """The ``checks`` mapping of a result from the counts of the confidential data (with its
    half-widths) and of each synthetic dataset."""
    by_col: dict[str, int] = {}
    for counts in synthetic:
        for c, k in counts["na_by"].items():
            by_col[c] = max(by_col.get(c, 0), k)
    # only values at least MIN_SHARED records share are shown (issue 29); the signs decide
    # which advice applies
    top = {c: shared_values(values) for c, values in confidential["never_values"].items()}
    signs = {
        c: sorted({"negative" if float(v) < 0 else "zero" for v in values if _is_number(v)})
        for c, values in confidential["never_values"].items()
    }
    return {
        "na_confidential": confidential["na"],
        "na_synthetic": np.array([s["na"] for s in synthetic], dtype=np.int64),
        "never_match": confidential["never"],
        "na_confidential_by_column": confidential["na_by"],
        "na_synthetic_by_column": by_col,
        "never_match_by_column": confidential["never_by"],
        "never_match_values": top,
        "never_match_signs": signs,
    }


def _is_number(v: object) -> bool:
    try:
        float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return True


def input_checks(
    prep: Any,
    d: np.ndarray | None,
    closed: bool,
    synthetic: Sequence[dict[str, Any]] | None = None,
    memo: dict | None = None,
) -> dict[str, Any]:
    """Counts of records whose risk R's rules change silently (see ``result.checks``):
    ``na_confidential``/``na_synthetic`` (records with NA in a continuous known/syn variable),
    ``never_match`` (records whose radius interval is empty) and the same per column, for
    messages. ``synthetic``: the synthetic datasets' counts (:func:`synthetic_counts`) when
    known already (they do not depend on the radius); ``memo``: see :func:`check_counts`."""
    cols = prep.continuous if prep.radii is not None else []
    if synthetic is None:
        synthetic = synthetic_counts(prep)
    if not cols:
        return checks_from_counts(check_counts(np.empty((prep.n, 0)), []), synthetic)
    return checks_from_counts(check_counts(prep.cont_orig, cols, d, closed, memo), synthetic)


def synthetic_counts(prep: Any, share: Any = None) -> list[dict[str, Any]]:
    """:func:`check_counts` of each synthetic dataset (NA in a continuous column);
    ``share(task, items)`` runs ``task(j)`` for each dataset, perhaps on threads."""
    cols = prep.continuous if prep.radii is not None else []
    if not cols:
        return [check_counts(np.empty((prep.n, 0)), [])] * prep.m
    out: list[dict[str, Any]] = [{}] * prep.m

    def one(j: int) -> None:  # (the columns themselves when none has NA: nothing stacked)
        found = any(nan_or_empty(c.reshape(-1, 1), _NO_D, False)
                    for c in prep.cont_syn.columns(j))  # fmt: skip
        out[j] = check_counts(prep.cont_syn[j] if found else np.empty((0, len(cols))), cols)

    (share or _one_by_one)(one, range(prep.m))
    return out


def result_about(prep: Any) -> dict[str, Any]:
    """What a result records about its call (options, radii, column types)."""
    return {
        "options": prep.options,
        "r": prep.radii,
        "categorical": tuple(dict.fromkeys(prep.categorical)),
        "continuous": tuple(dict.fromkeys(prep.continuous)),
    }


def warn_about_checks(
    result: IdentificationRiskResult,
    checks: dict,
    names: Sequence[str],
    *,
    threshold: float = 0.01,
    orig_name: str = "the confidential data",
) -> None:
    """:class:`RiskInputWarning` for every count above ``threshold`` (a share of n); the
    counts over the synthetic datasets are summarised as min–max over all of them. Each
    warning points at the user's line (the first frame outside idrisk)."""
    n = result.n
    limit = threshold * n
    options = result.options or RiskOptions(known=("?",))
    na_rule = options.na_matches
    na_effect = (
        "under R's rule NA matches anything, which raises the risk; pass "
        f"{spell('na_matches', False)} (NA never matches) or drop/impute them"
        if na_rule
        else "they are never matched"
    )

    def share(k: int) -> str:
        return f"{k} of {n} records ({100 * k / n:.1f}%)"

    def by_col(d: dict) -> str:
        return ", ".join(f"{c}: {k}" for c, k in d.items())

    def datasets(mask: np.ndarray) -> str:
        many = [names[int(j)] for j in np.flatnonzero(mask)]
        if len(many) == len(names) and len(names) > 1:
            return f"all {len(names)} synthetic datasets"
        return ", ".join(many[:3]) + (f" and {len(many) - 3} more" if len(many) > 3 else "")

    messages = []
    if checks["na_confidential"] > limit:
        messages.append(
            f"{orig_name}: {share(checks['na_confidential'])} have NA in a continuous known/syn "
            f"variable ({by_col(checks['na_confidential_by_column'])}); {na_effect}"
        )
    na_syn = np.asarray(checks["na_synthetic"])
    if (na_syn > limit).any():
        messages.append(
            f"{datasets(na_syn > limit)}: {span_text(na_syn)} of {n} records per dataset have "
            f"NA in a continuous known/syn variable ({by_col(checks['na_synthetic_by_column'])}); "
            f"{na_effect}"
        )
    never = int(checks["never_match"])
    if never > limit:
        zero_radius = [c for c, v in (result.r or {}).items() if v == 0]
        codes = checks.get("never_match_values", {})
        if zero_radius and not options.closed:
            why = (
                f"the radius of {zero_radius} is 0 and R's intervals are open, so nothing "
                f"matches; give a positive radius or pass {spell('closed', True)}"
            )
        elif options.percentage:
            # values shown only if at least MIN_SHARED records share them; each hint only
            # where following it makes these records matchable (issue 29)
            shown = "; ".join(f"{c}: {', '.join(map(str, v))}" for c, v in codes.items() if v)
            signs = {x for v in checks.get("never_match_signs", {}).values() for x in v}
            negative = [v for vs in codes.values() for v in vs if str(v).startswith("-")]
            parts = []
            if "negative" in signs and not options.abs_radius:
                # a missing-value code is suggested only when a negative value is shared by
                # many records (a code); spread-out negatives (losses) are real values
                code = negative[0] if negative else None
                text = "a value < 0 under a percentage radius has an empty interval (R's rule)"
                if code is not None:
                    text += (
                        f". Values like {code} are often missing-value codes: declare them "
                        "missing"
                        + (
                            f" when loading the data ({spell('na_values', [code])})"
                            if current() == "cli" else " (e.g. replace them by NaN)"
                        )
                        + "; if they are real values, pass"
                    )
                else:
                    text += "; if they are real values (such as losses), pass"
                parts.append(
                    text + f" {spell('abs_radius', True)} (radius from |x|) or "
                    f"{spell('percentage', False)} (an absolute radius)"
                )
            if "zero" in signs:
                parts.append(
                    "a value of 0 has a radius of 0 under a percentage radius (r × |0| = 0), "
                    "which R's open interval leaves empty; pass "
                    f"{spell('closed', True)} (0 then matches exactly 0) or "
                    f"{spell('percentage', False)} (an absolute radius)"
                )
            why = "; ".join(parts) + (f" (most frequent: {shown})" if shown else "")
        else:
            why = f"give a positive radius or pass {spell('closed', True)}"
        but_na = (
            " (only a missing synthetic value, which matches anything under R's rule, can "
            "match them)"
            if na_rule and na_syn.any()
            else ", so they get c = 0, T = 1 and risk 0"
        )
        messages.append(
            f"{orig_name}: {share(never)} can never be matched{but_na}: their radius interval "
            f"is empty ({by_col(checks['never_match_by_column'])}); {why}"
        )
    assert result.checks is not None
    c_zero = result.checks["c_zero"].to_numpy()
    unexplained = c_zero - never
    if (unexplained > limit).any():
        messages.append(
            f"{datasets(unexplained > limit)}: {span_text(c_zero)} of {n} records per dataset have "
            "no matching synthetic record (c = 0"
            + (f"; {never} of them never matchable" if never else "")
            + "), so they get T = 1 and risk 0 (R's convention) and add nothing to the expected "
            "risk; check the radius, the categorical levels of the synthetic data and "
            "missing-value codes"
        )
    for message in messages:
        warnings.warn(message, RiskInputWarning, stacklevel=user_stacklevel())
