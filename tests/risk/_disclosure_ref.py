"""Brute-force reference of synthpop's disclosure measures in the ``corrected`` reading,
written record by record from the definitions (shared/specs/synthpop-disclosure.md §2.9-11
with the quirks of §2 fixed), without tables, level sorting or positions.

A record's key combination is the tuple of its key values (missing = None) and its target
value (missing = None); counts are over records. Exclusions remove records from the measures
after the flags are set on the full data, as synthpop zeroes cells after building its tables.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import pandas as pd


def _value(v):
    return None if v is None or (not isinstance(v, str) and pd.isna(v)) else v


def _label(v) -> str:
    """How a level is named in the arguments: whole numbers without ".0"."""
    if v is None:
        return "Missing"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _records(frame: pd.DataFrame, keys: list[str], target: str) -> list[tuple[tuple, object]]:
    return [
        (tuple(_value(row[k]) for k in keys), _value(row[target]))
        for _, row in frame.iterrows()
    ]


def _ratio(a: float, b: float) -> float:
    return math.nan if b == 0 else a / b


def reference(
    confidential: pd.DataFrame,
    synthetic: Sequence[pd.DataFrame],
    keys: list[str],
    target: str,
    *,
    not_syn_levels: Sequence[str] = (),
    use_syn_na: bool = True,
    use_known_na: bool | Sequence[bool] = True,
    exclude: Sequence[tuple[str, str, str]] = (),
    exclude_over_denom_lim: bool = False,
    denom_lim: int = 5,
) -> list[dict[str, float]]:
    """One dict of the 17 measures per synthetic dataset."""
    use_na = [use_known_na] * len(keys) if isinstance(use_known_na, bool) else list(use_known_na)
    orig = _records(confidential, keys, target)
    n = len(orig)
    d_q = Counter(q for q, _ in orig)
    d_tq = Counter(orig)
    target_has_na = any(t is None for _, t in orig)

    def key_excluded(q) -> bool:
        return any(not use and v is None for use, v in zip(use_na, q, strict=True))

    def target_excluded(q, t) -> bool:
        if _label(t) in set(not_syn_levels):
            return True
        if not use_syn_na and target_has_na and t is None:
            return True
        return any(_label(q[keys.index(k)]) == kl and _label(t) == tl for k, kl, tl in exclude)

    out = []
    for frame in synthetic:
        syn = _records(frame, keys, target)
        s_q = Counter(q for q, _ in syn)
        s_tq = Counter(syn)
        kept_d = [
            (q, t) for q, t in orig
            if not key_excluded(q) and not target_excluded(q, t)
            and not (exclude_over_denom_lim and d_tq[(q, t)] > denom_lim)
        ]
        kept_s = [
            (q, t) for q, t in syn
            if not key_excluded(q) and not target_excluded(q, t)
            and not (exclude_over_denom_lim and s_tq[(q, t)] > denom_lim)
        ]
        nd, ns = len(kept_d), len(kept_s)
        dk_q = Counter(q for q, _ in orig if not key_excluded(q))
        sk_q = Counter(q for q, _ in syn if not key_excluded(q))
        nk_d = sum(dk_q.values())
        nk_s = sum(sk_q.values())
        uio = sum(1 for q, _ in orig if not key_excluded(q) and dk_q[q] == 1)
        uis = sum(1 for q, _ in syn if not key_excluded(q) and sk_q[q] == 1)
        uiois = sum(1 for q, _ in orig if not key_excluded(q) and dk_q[q] == 1 and s_q[q] > 0)
        repu = sum(1 for q, _ in orig if not key_excluded(q) and dk_q[q] == 1 and sk_q[q] == 1)

        def d_fixed(q, t) -> bool:
            return d_tq[(q, t)] == d_q[q]

        def disco(q, t, s_q=s_q, s_tq=s_tq) -> bool:
            return s_q[q] > 0 and s_tq[(q, t)] == s_q[q]

        dis_any = {q for (q, t), c in s_tq.items() if c == s_q[q]}
        disco_cells = {(q, t) for q, t in kept_d if disco(q, t)}
        disco_records = [(q, t) for q, t in kept_d if disco(q, t)]
        d2_q = Counter(q for q, _ in kept_d)
        d2_tq = Counter(kept_d)
        s2_q = Counter(q for q, _ in kept_s)
        s2_tq = Counter(kept_s)
        target_counts = Counter(_label(t) for _, t in orig)
        out.append({
            "UiO": 100 * _ratio(uio, nk_d),
            "UiS": 100 * _ratio(uis, nk_s),
            "UiOiS": 100 * _ratio(uiois, nk_d),
            "repU": 100 * _ratio(repu, nk_d),
            "Dorig": 100 * _ratio(sum(d_fixed(q, t) for q, t in kept_d), nd),
            "Dsyn": 100 * _ratio(sum(s_tq[(q, t)] == s_q[q] for q, t in kept_s), ns),
            "iS": 100 * _ratio(sum(s_q[q] > 0 for q, _ in kept_d), nd),
            "DiS": 100 * _ratio(sum(q in dis_any for q, _ in kept_d), nd),
            "DiSCO": 100 * _ratio(len(disco_records), nd),
            "DiSDiO": 100 * _ratio(sum(d_fixed(q, t) for q, t in disco_records), nd),
            "max_denom": float(max([d_tq[c] for c in disco_cells], default=0)),
            "mean_denom": (sum(d_tq[c] for c in disco_cells) / len(disco_cells)
                           if disco_cells else math.nan),
            "baseCAPd": 100 * sum((c / n) ** 2 for c in target_counts.values()),
            "CAPd": 100 * _ratio(sum(d2_tq[(q, t)] / d2_q[q] for q, t in kept_d), nd),
            "CAPs": 100 * _ratio(sum(s2_tq[(q, t)] / s2_q[q] for q, t in kept_s), ns),
            "DCAP": 100 * _ratio(sum(_ratio(s2_tq[(q, t)], s2_q[q]) if s2_q[q] else 0.0
                                     for q, t in kept_d), nd),
            "TCAP": 100 * _ratio(len(disco_records), sum(s2_q[q] > 0 for q, _ in kept_d)),
        })
    return out
