"""Input diagnostics of the identification risk (issue 29): name every wrong-looking input.

* :func:`check_partial_synthesis` -- identification risk assumes that row i of every synthetic
  dataset is record i's *partially* synthetic version, its known variables unchanged. When
  too few rows keep them (fully synthetic data, rows in another order), a
  :class:`RiskInputWarning` (``category``) says so and points to the measures that apply (synthpop's
  disclosure measures, ``idrisk disclosure``).
* :func:`check_label_overlap` -- a categorical column whose synthetic labels are (nearly)
  disjoint from the confidential ones (``'male'`` vs ``'Male'``, ``' F'`` vs ``'F'``, codes vs
  labels) is named with examples of both.
* :func:`shared_values` -- the rule every message follows when it shows data values: only
  values that at least :data:`MIN_SHARED` records share (k-anonymity of published tables).
Every warning here points at the user's line (:func:`idrisk._stack.user_stacklevel`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._interface import current
from .._stack import user_stacklevel

__all__ = [
    "MIN_SHARED",
    "PARTIAL_MIN_SHARE",
    "check_label_overlap",
    "check_partial_synthesis",
    "shared_values",
]

#: A message, note or table of a default output shows a data value only if at least this many
#: records share it (k >= 5, as in the disclosure control of published tables).
MIN_SHARED = 5
#: Share of rows whose known variables equal the confidential record's below which the data
#: are not treated as partially synthetic.
PARTIAL_MIN_SHARE = 0.5
#: Share of a synthetic column's non-missing values whose label the confidential column holds,
#: below which the labels are called disjoint.
LABEL_MIN_SHARE = 0.5

def shared_values(counts: Mapping[Any, int], k: int = MIN_SHARED, limit: int = 3) -> list:
    """The (at most ``limit``) most frequent values that at least ``k`` records share.

    Examples
    --------
    >>> shared_values({0: 1093, -25426: 1, 7: 5})
    [0, 7]
    """
    ranked = sorted(counts.items(), key=lambda vk: -vk[1])
    return [v for v, c in ranked if c >= k][:limit]


def _quoted(values: Sequence) -> str:
    return ", ".join(repr(v) if isinstance(v, str) else str(v) for v in values)


def _equal_rows(a: pd.Series, b: pd.Series) -> np.ndarray:
    """Row-wise equality, a missing value equal to a missing value.

    Two categoricals with the same categories in the same order compare their codes (equal
    codes are equal values; -1 is missing); numbers are compared as numbers; anything else
    through one joint factorisation (a hash table: equal values get one code, every missing
    value the code -1), which is what ``==`` on the values gives, without the per-element
    ``isna`` of object arrays.
    """
    if isinstance(a.dtype, pd.CategoricalDtype) and isinstance(b.dtype, pd.CategoricalDtype):
        ca, cb = a.dtype.categories, b.dtype.categories
        if ca is cb or (ca.dtype == cb.dtype and ca.equals(cb)):
            return np.asarray(a.array.codes == b.array.codes)
    x, y = a.to_numpy(), b.to_numpy()
    if x.dtype.kind in "biuf" and y.dtype.kind in "biuf":
        if x.dtype == y.dtype:  # the usual case: a known variable kept as it was
            same = x == y
            if same.all():  # (values equal in their dtype are equal as floats)
                return same
        xf, yf = x.astype(np.float64), y.astype(np.float64)
        return (xf == yf) | (np.isnan(xf) & np.isnan(yf))
    codes, _ = pd.factorize(np.concatenate([x.astype(object), y.astype(object)]))
    return codes[: len(x)] == codes[len(x):]


def check_partial_synthesis(
    confidential: pd.DataFrame | Mapping[str, pd.Series],
    frames: Sequence[pd.DataFrame | Mapping[str, pd.Series]],
    names: Sequence[str],
    known: Sequence[str],
    orig_name: str,
    category: type[Warning] = UserWarning,
) -> float | None:
    """Warn when the synthetic data do not look partially synthetic (see the module).

    Returns the smallest share over the datasets of rows whose known variables all equal the
    confidential record's (None without known variables).
    """
    known = list(dict.fromkeys(known))
    if not known or not frames or len(confidential[known[0]]) == 0:
        return None
    n = len(confidential[known[0]])
    shares = []
    for frame in frames:
        same = _equal_rows(confidential[known[0]], frame[known[0]])
        for c in known[1:]:
            same &= _equal_rows(confidential[c], frame[c])
        shares.append(np.count_nonzero(same) / n)
    low = [(w, s) for w, s in zip(names, shares) if s < PARTIAL_MIN_SHARE]
    if low:
        where = (
            f"all {len(frames)} synthetic datasets" if len(low) == len(frames) > 1
            else ", ".join(w for w, _ in low[:3]) + (" and more" if len(low) > 3 else "")
        )
        worst = min(s for _, s in low)
        best = max(s for _, s in low)
        span = f"{100 * worst:.2f}%" if worst == best else f"{100 * worst:.2f}–{100 * best:.2f}%"
        warnings.warn(
            f"{where}: only {span} of the rows have the known variables ({', '.join(known)}) "
            f"of the confidential record in the same row of {orig_name}. Identification risk "
            "assumes partially synthetic data: row i of each synthetic dataset is record i's "
            "synthetic version with the known variables unchanged. If the data are fully "
            "synthetic (e.g. synthpop's default syn(), which synthesizes every column), this "
            "risk does not apply: use synthpop's disclosure measures ("
            + ("idrisk disclosure" if current() == "cli" else
               "idrisk.r.disclosure or idrisk.disclosure_summary")
            + "); if the rows are in another order, restore the confidential order; if a "
            "known variable was synthesized, move it to the synthesized variables",
            category,
            stacklevel=user_stacklevel(),
        )
    return min(shares)


def _norm(label: object) -> str:
    return " ".join(str(label).split()).casefold()


def _label_counts(series: pd.Series) -> pd.Series:
    """Label -> number of records, as the messages show them (``astype(str)`` of the values,
    missing values left out)."""
    return series.dropna().astype(str).value_counts()


def _label_codes(series: pd.Series, memo: dict) -> tuple[np.ndarray, np.ndarray]:
    """``(labels, codes)``: the label of each value of ``series`` is ``labels[code]`` (the
    labels of :func:`_label_counts`; code -1: missing; two codes may share a label, as two
    categories with one text).

    A categorical gives its codes (its categories' labels are written once per categories
    object, kept in ``memo``); text, booleans and integers factorise their values (one value,
    one label); any other dtype (floats: -0.0 and 0.0 are one value with two labels; dates;
    objects: 1 and 1.0 likewise) goes through :func:`_label_counts`.
    """
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype) and dtype.categories.dtype.kind not in "mM":
        cats = dtype.categories
        found = memo.get(id(cats))
        if found is None or found[0] is not cats:
            found = memo[id(cats)] = (cats, _category_labels(dtype))
        return found[1], series.array.codes
    if isinstance(dtype, pd.StringDtype) or (
        isinstance(dtype, np.dtype) and dtype.kind in "biu"
    ):
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
        return pd.Series(uniques).astype(str).to_numpy(dtype=object), codes
    counted = _label_counts(series)
    labels = counted.index.to_numpy(dtype=object)
    return labels, np.repeat(np.arange(len(labels)), counted.to_numpy())


def _category_labels(dtype: pd.CategoricalDtype) -> np.ndarray:
    """``astype(str)`` of each category: text is itself, an integer its digits, anything else
    converted by pandas."""
    cats = dtype.categories
    if isinstance(cats.dtype, pd.StringDtype):
        return np.array(cats.tolist(), dtype=object)
    if cats.dtype.kind in "iu":
        return np.array([str(v) for v in cats.tolist()], dtype=object)
    each = pd.Categorical.from_codes(np.arange(len(cats)), dtype=dtype)
    return pd.Series(each).astype(str).to_numpy(dtype=object)


def check_label_overlap(
    confidential: pd.DataFrame | Mapping[str, pd.Series],
    frames: Sequence[pd.DataFrame | Mapping[str, pd.Series]],
    names: Sequence[str],
    columns: Sequence[str],
    orig_name: str,
    category: type[Warning] = UserWarning,
) -> list[str]:
    """Warn for each categorical column whose synthetic labels are (nearly) disjoint from the
    confidential ones; returns the columns named.

    The decision counts codes without writing every value as text (:func:`_label_codes`);
    the message, when there is one, is composed from :func:`_label_counts`.
    """
    named = []
    memo: dict = {}
    for c in dict.fromkeys(columns):
        labels, codes = _label_codes(confidential[c], memo)
        conf_labels = set(labels[np.unique(codes[codes >= 0])])
        if not conf_labels:
            continue
        inside_memo: dict = {}
        for frame, where in zip(frames, names):
            labels, codes = _label_codes(frame[c], memo)
            found = inside_memo.get(id(labels))
            if found is None or found[0] is not labels:  # is each label a confidential one?
                inside = np.fromiter((v in conf_labels for v in labels), bool, len(labels))
                found = inside_memo[id(labels)] = (labels, np.append(inside, False))
            if found[1][:-1].all():  # the usual case
                continue
            total = len(codes) - int(np.count_nonzero(codes < 0))
            if total == 0:
                continue
            inside_total = int(np.count_nonzero(found[1][codes]))  # code -1 -> the last: False
            if inside_total >= LABEL_MIN_SHARE * total:
                continue
            _warn_disjoint(confidential[c], frame[c], c, where, orig_name, category)
            named.append(c)
            break
    return named


def _warn_disjoint(
    conf: pd.Series,
    syn: pd.Series,
    column: str,
    where: str,
    orig_name: str,
    category: type[Warning],
) -> None:
    """The warning of :func:`check_label_overlap` for one column of one dataset."""
    conf_counts, syn_counts = _label_counts(conf), _label_counts(syn)
    conf_labels = set(conf_counts.index)
    total = int(syn_counts.sum())
    inside = int(syn_counts[syn_counts.index.isin(conf_labels)].sum())
    conf_ex = shared_values(conf_counts.to_dict())
    syn_ex = shared_values({v: k for v, k in syn_counts.items() if v not in conf_labels})
    conf_norm = {_norm(v) for v in conf_labels}
    if any(_norm(v) in conf_norm for v in syn_counts.index if v not in conf_labels):
        how = "they differ in upper/lower case or spaces"
    elif _numeric(syn_counts.index) != _numeric(conf_counts.index):
        how = "one holds codes, the other labels"
    else:
        how = "the labels differ"
    pairs = f" (e.g. {_quoted(syn_ex)} vs {_quoted(conf_ex)})" if conf_ex and syn_ex else ""
    warnings.warn(
        f"{where}: column {column!r} has labels that {orig_name} does not have: "
        f"{100 * (total - inside) / total:.0f}% of its values{pairs}; {how}. "
        "A label is matched only by the same label, so these records never match "
        "and the risk is understated: write the labels as in the confidential data",
        category,
        stacklevel=user_stacklevel(),
    )


def _numeric(labels: pd.Index) -> bool:
    return bool(pd.to_numeric(pd.Series(labels), errors="coerce").notna().mean() > 0.5)


def diagnose_inputs(
    confidential: pd.DataFrame | Mapping[str, pd.Series],
    frames: Sequence[pd.DataFrame | Mapping[str, pd.Series]],
    names: Sequence[str],
    known: Sequence[str],
    categorical: Sequence[str],
    orig_name: str,
    category: type[Warning] = UserWarning,
) -> None:
    """All the checks of this module (called by ``prepare_inputs`` with ``category``
    ``RiskInputWarning``; this module imports nothing of ``_prepare``)."""
    check_partial_synthesis(confidential, frames, names, known, orig_name, category)
    check_label_overlap(confidential, frames, names, categorical, orig_name, category)

