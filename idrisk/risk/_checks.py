"""Counts of the records whose risk R's rules change silently (``result.checks``).

Shared by the single-machine engine (:func:`input_checks` over prepared arrays) and the Dask
engine (:func:`check_counts` per partition, summed by :func:`merge_check_counts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._schema import label

if TYPE_CHECKING:
    from ._prepare import PreparedInputs

__all__ = ["check_counts", "checks_from_counts", "input_checks", "merge_check_counts"]


def check_counts(
    x: np.ndarray, cols: Sequence[str], d: np.ndarray | None = None, closed: bool = False
) -> dict[str, Any]:
    """Counts behind ``result.checks`` for one block of records (blocks add up: the Dask engine
    sums them over partitions with :func:`merge_check_counts`).

    ``na``: records with NA in a continuous column (``na_by``: per column); with the
    half-widths ``d``, ``never``: records whose radius interval is empty (a value <= 0 under a
    percentage radius, a zero radius with open intervals), ``never_by`` per column and
    ``never_values``: column -> {label: records} of the values concerned.
    """
    na = np.isnan(x)
    out: dict[str, Any] = {"na": 0, "na_by": {}, "never": 0, "never_by": {}, "never_values": {}}
    if na.any():  # the usual case has no NA: nothing more to count
        out["na"] = int(na.any(axis=1).sum())
        for c, k in zip(cols, na.sum(axis=0)):
            if k:
                out["na_by"][c] = max(out["na_by"].get(c, 0), int(k))
    if d is not None and d.size:
        with np.errstate(invalid="ignore"):
            empty = ~na & ((d < 0) | ((d == 0) & (not closed)) | (np.isnan(d) & np.isnan(x)))
        out["never"] = int(empty.any(axis=1).sum())
        for v in np.flatnonzero(empty.any(axis=0)):
            c = cols[int(v)]
            if c in out["never_by"]:  # a column listed twice (R's rules)
                continue
            out["never_by"][c] = int(empty[:, v].sum())
            found, counts = np.unique(x[empty[:, v], v], return_counts=True)
            out["never_values"][c] = {label(f): int(k) for f, k in zip(found, counts)}
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
    top = {
        c: [v for v, _ in sorted(values.items(), key=lambda vk: -vk[1])[:3]]
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
    }


def input_checks(prep: PreparedInputs, d: np.ndarray | None, closed: bool) -> dict[str, Any]:
    """Counts of records whose risk R's rules change silently (see ``result.checks``):
    ``na_confidential``/``na_synthetic`` (records with NA in a continuous known/syn variable),
    ``never_match`` (records whose radius interval is empty) and the same per column, for
    messages."""
    cols = prep.continuous if prep.radii is not None else []
    if not cols:
        empty = np.empty((prep.n, 0))
        return checks_from_counts(check_counts(empty, []), [check_counts(empty, [])] * prep.m)
    return checks_from_counts(
        check_counts(prep.cont_orig, cols, d, closed),
        [check_counts(y, cols) for y in prep.cont_syn],
    )
