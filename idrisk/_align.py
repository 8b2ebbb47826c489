"""One rule for row correspondence between pandas objects.

Many idrisk functions pair rows of several inputs by position, as R does: row i of a synthetic
dataset is the synthetic version of confidential record i, entry i of a weight vector belongs to
record i. pandas users often carry an index that says otherwise (a shuffled or filtered frame
keeps its labels), and matching such inputs by position gives a plausible but wrong answer.

The rule, applied by :func:`check_frame_alignment` (DataFrames) and :func:`align_series`
(Series and arrays):

* identical indexes, or an input without an index (numpy array, list) -> by position;
* one input has the default ``RangeIndex(0..n-1)`` and the other a different set of labels
  (e.g. a filtered confidential frame and a synthetic file read from CSV) -> by position,
  as today;
* otherwise, when the indexes differ -- both carry labels and they differ, or they hold the
  same labels in a different order -> ``ValueError`` naming the argument or dataset, unless

  - ``align="position"``: pair rows by position (R's behaviour), or
  - ``align="index"``: reorder every input to the reference's index (labels must be unique and
    the same set).

Examples
--------
>>> import pandas as pd
>>> from idrisk._align import align_series
>>> u = pd.Series([0.1, 0.2, 0.3], index=[10, 11, 12])
>>> w = u.iloc[::-1]
>>> align_series({"u": u, "w": w})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: w: its index differs from u's (same labels in a different order: ...
>>> {k: v.tolist() for k, v in align_series({"u": u, "w": w}, align="index").items()}
{'u': [0.1, 0.2, 0.3], 'w': [0.1, 0.2, 0.3]}
>>> {k: v.tolist() for k, v in align_series({"u": u, "w": w}, align="position").items()}
{'u': [0.1, 0.2, 0.3], 'w': [0.3, 0.2, 0.1]}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd

__all__ = [
    "ALIGN_CHOICES",
    "Align",
    "align_series",
    "check_align",
    "check_frame_alignment",
    "index_mismatch",
    "is_default_index",
]

Align = Literal["position", "index"] | None
ALIGN_CHOICES = (None, "position", "index")


def check_align(align: object) -> Align:
    """Validate the ``align`` argument (None, ``"position"`` or ``"index"``)."""
    if align not in ALIGN_CHOICES:
        raise ValueError(
            f"align must be None, 'position' (pair rows by position, as R does) or 'index' "
            f"(reorder by index labels); got {align!r}"
        )
    return align  # type: ignore[return-value]


def is_default_index(index: pd.Index) -> bool:
    """True for ``RangeIndex(0, n)`` (the index pandas gives a frame built without one)."""
    return isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1


def _preview(labels: pd.Index, k: int = 3) -> str:
    shown = ", ".join(repr(x) for x in labels[:k].tolist())
    return f"[{shown}{', …' if len(labels) > k else ''}]"


def index_mismatch(reference: pd.Index, other: pd.Index) -> str | None:
    """Why ``other`` cannot be paired with ``reference`` by position, or None when it can.

    None when the indexes are equal, or when one is the default ``RangeIndex`` and the other
    holds a different set of labels (nothing says the rows correspond otherwise).
    """
    if len(reference) == len(other) and reference.equals(other):
        return None
    same_set = (
        len(reference) == len(other)
        and reference.is_unique
        and other.is_unique
        and bool(other.isin(reference).all())
    )
    if same_set:
        return (
            f"same labels in a different order: row 1 is {reference[:1].tolist()[0]!r} there and "
            f"{other[:1].tolist()[0]!r} here"
        )
    if is_default_index(reference) or is_default_index(other):
        return None
    return f"different labels: {_preview(reference)} there, {_preview(other)} here"


def _fix_hint(reference_name: str) -> str:
    return (
        f"pass align='index' to reorder the rows by index labels to {reference_name}'s order, "
        "or align='position' to pair rows by position (R's behaviour)"
    )


def check_frame_alignment(
    orig: pd.DataFrame | pd.Series,
    syn: pd.DataFrame | pd.Series,
    dataset_name: str,
    align: Align = None,
    reference_name: str = "the confidential data",
) -> pd.DataFrame | pd.Series:
    """Return ``syn`` with its rows in ``orig``'s order, or raise naming ``dataset_name``.

    Parameters
    ----------
    orig
        The reference frame (the confidential data).
    syn
        A frame whose row i should correspond to ``orig``'s row i.
    dataset_name
        How the error names ``syn`` (e.g. ``"synthetic dataset 2 (syndata[1])"`` or a file name).
    align
        None (the rule in the module docstring), ``"position"`` or ``"index"``.
    reference_name
        How the error names ``orig``.

    Returns
    -------
    DataFrame or Series
        ``syn`` itself (by position) or reordered to ``orig.index`` (``align="index"``).

    Raises
    ------
    ValueError
        The indexes differ and ``align`` is None, or ``align="index"`` cannot reorder.
    """
    align = check_align(align)
    if align == "position":
        return syn
    if align == "index":
        return _reorder(syn, orig.index, dataset_name, reference_name)
    reason = index_mismatch(orig.index, syn.index)
    if reason is None:
        return syn
    raise ValueError(
        f"{dataset_name}: its index differs from {reference_name}'s ({reason}), so pairing "
        f"rows by position may pair the wrong records; {_fix_hint(reference_name)}"
    )


def _reorder(
    obj: pd.DataFrame | pd.Series, index: pd.Index, name: str, reference_name: str
) -> pd.DataFrame | pd.Series:
    if obj.index.equals(index):
        return obj
    if not index.is_unique:
        raise ValueError(
            f"align='index': {reference_name}'s index has duplicate labels, so rows of {name} "
            "cannot be matched by label"
        )
    if not obj.index.is_unique:
        raise ValueError(f"align='index': {name}'s index has duplicate labels")
    missing = index.difference(obj.index)
    extra = obj.index.difference(index)
    if len(missing) or len(extra):
        raise ValueError(
            f"align='index': {name}'s index labels are not those of {reference_name} "
            f"({len(missing)} missing, e.g. {_preview(missing)}; {len(extra)} extra, "
            f"e.g. {_preview(extra)})"
        )
    return obj.reindex(index)


def align_series(
    named: Mapping[str, Any], align: Align = None, *, reference: str | None = None
) -> dict[str, np.ndarray]:
    """Pair the entries of several Series/arrays row by row and return them as numpy arrays.

    Parameters
    ----------
    named
        Argument name -> Series, DataFrame column, Index, numpy array or list. Only pandas
        Series/DataFrames carry an index; everything else is taken by position.
    align
        None (raise when indexes differ, see the module docstring), ``"position"`` or
        ``"index"`` (reorder every pandas input to the reference's index).
    reference
        The argument whose index rules (default: the first pandas input in ``named``).

    Returns
    -------
    dict
        The same keys, each a numpy array in the reference's row order.

    Raises
    ------
    ValueError
        Lengths differ, or indexes differ and ``align`` is None, naming the argument.
    """
    align = check_align(align)
    pandas_keys = [k for k, v in named.items() if isinstance(v, (pd.Series, pd.DataFrame))]
    if reference is None:
        reference = pandas_keys[0] if pandas_keys else None
    elif reference not in named:
        raise KeyError(f"reference {reference!r} is not among {list(named)}")
    lengths = {k: len(v) for k, v in named.items() if v is not None and np.ndim(v) > 0}
    if len(set(lengths.values())) > 1:
        first = next(iter(lengths))
        bad = next(k for k, n in lengths.items() if n != lengths[first])
        raise ValueError(
            f"{bad} has {lengths[bad]} entries but {first} has {lengths[first]}: they must "
            "describe the same records"
        )
    out: dict[str, np.ndarray] = {}
    ref_obj = named[reference] if reference is not None else None
    ref_is_pandas = isinstance(ref_obj, (pd.Series, pd.DataFrame))
    for key, value in named.items():
        if value is None:
            out[key] = value
            continue
        if isinstance(value, (pd.Series, pd.DataFrame)) and ref_is_pandas and key != reference:
            value = check_frame_alignment(
                ref_obj, value, key, align, reference_name=reference  # type: ignore[arg-type]
            )
        out[key] = value.to_numpy() if hasattr(value, "to_numpy") else np.asarray(value)
    return out
