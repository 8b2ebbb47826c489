"""synthpop 1.9-3's ``replicated.uniques``: records unique on the keys in the confidential data
and replicated in the synthetic data (the tables behind :func:`idrisk.r.replicated_uniques`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._rtext import r_format, r_labels
from .._schema import require_columns
from .._synthetic import synthetic_name
from ._rfactor import _numbers, as_factor, is_r_numeric
from ._synthpop_tables import _quirk, resolve_columns


# ====================================================================== replicated.uniques
def _key_strings(frame: pd.DataFrame, keys: list[str], fix: bool) -> np.ndarray:
    """Each row's key as synthpop compares it (``apply(x, 1, paste, collapse = "|")``)."""
    cols = [frame[k] for k in keys]
    all_numeric = all(is_r_numeric(c) for c in cols)
    texts = []
    for c in cols:
        missing = c.isna().to_numpy()
        if is_r_numeric(c):
            values, _ = _numbers(c)
            if all_numeric or fix:
                labels = r_labels(values)
                texts.append(["NA" if na else t for t, na in zip(labels, missing, strict=True)])
            else:
                texts.append(r_format(values, missing))
        else:
            f = as_factor(c)
            texts.append(["NA" if v is None else v for v in f.labels()])
    return np.array(["|".join(parts) for parts in zip(*texts, strict=True)], dtype=object)


def _single_key(frame: pd.DataFrame, key: str) -> np.ndarray:
    f = as_factor(frame[key])
    return f.labels()


def replicated_uniques_tables(
    syn: Sequence[pd.DataFrame], data: pd.DataFrame, keys: Sequence[str] | str | None = None,
    quirks: str = "synthpop",
) -> dict:
    """synthpop's ``replicated.uniques``: uniques in the original and synthetic data on
    ``keys`` and the synthetic rows that replicate them.

    Quirks reproduced (``quirks="corrected"`` fixes them): with several keys, numeric key
    columns are written with a common width per data set before comparison (so ``" 800"``
    in one data set does not match ``"800"`` in the other); with one key, the count of
    synthetic uniques found in the original is always 0.
    """
    fix = quirks == "corrected"
    syn = list(syn)
    key_list = list(data.columns) if keys is None else resolve_columns(data, keys, "keys")
    for where, frame in [("data", data)] + [(synthetic_name(j + 1, "object"), s)
                                             for j, s in enumerate(syn)]:
        require_columns(frame, key_list, "keys", where)
    single = len(key_list) == 1

    def strings(frame: pd.DataFrame) -> np.ndarray:
        return _single_key(frame, key_list[0]) if single else _key_strings(frame, key_list,
                                                                             fix)

    def unique_set(values: np.ndarray) -> set:
        counts = pd.Series([v for v in values if v is not None], dtype=object).value_counts()
        return set(counts.index[counts == 1])

    if not fix and not single:
        plain = [(_key_strings(data, key_list, True), _key_strings(s, key_list, True))
                 for s in syn]
        padded = [(_key_strings(data, key_list, False), _key_strings(s, key_list, False))
                  for s in syn]
        if any(len(unique_set(a[1]) & set(a[0])) != len(unique_set(b[1]) & set(b[0]))
               for a, b in zip(plain, padded, strict=True)):
            _quirk("replicated.uniques width formatting", "numeric keys are compared as text "
                   "padded to a common width within each data set, so equal values written "
                   "with different widths do not match")
    orig = strings(data)
    orig_u = unique_set(orig)
    orig_all = {v for v in orig if v is not None}
    n, k, m = len(data), len(syn[0]), len(syn)
    tabs, rep_rm, syn_rm = [], [], []
    if single and m == 1 and not fix:
        _quirk("single-key repU.rm", "with one key and one synthetic data set synthpop marks "
               "no row in repU.rm")
    for s in syn:
        sv = strings(s)
        syn_u = unique_set(sv)
        in_orig = set() if single and not fix else syn_u & orig_all
        replicated = syn_u & orig_u
        if not fix and single and (syn_u & orig_all):
            _quirk("single-key synthetic uniques", "with one key synthpop counts no synthetic "
                   "unique as present in the original")
        numbers = [len(orig_u), len(syn_u), len(in_orig), len(replicated)]
        totals = [n, k, n, n]
        tabs.append(pd.DataFrame(
            {"Number": [float(x) for x in numbers], "from total": [float(t) for t in totals],
             "%": [round(100 * x / t, 2) for x, t in zip(numbers, totals, strict=True)]},
            index=["Original", "Synthetic", "Synthetic uniques in original",
                   "Replicated uniques"],
        ))
        if single and m == 1 and not fix:
            rep_rm.append(np.zeros(len(sv), dtype=bool))
        else:
            rep_rm.append(np.array([v in replicated for v in sv], dtype=bool))
        syn_rm.append(np.array([v in in_orig for v in sv], dtype=bool))
    return {
        "m": m,
        "n": n,
        "k": k,
        "keys": key_list,
        "res_tab": tabs[0] if m == 1 else tabs,
        "repU.rm": rep_rm[0] if m == 1 else np.column_stack(rep_rm),
        "synU.rm": syn_rm[0] if m == 1 else np.column_stack(syn_rm),
    }
