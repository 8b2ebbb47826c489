"""The table engine of synthpop 1.9-3's disclosure measures (``disclosure``,
``multi.disclosure``, ``replicated.uniques``), written from synthpop's documented behaviour and
checked against live synthpop run with ``LC_COLLATE=C``.

Everything here follows synthpop's code, quirks included; ``quirks="corrected"`` switches
the documented quirks off (see :func:`disclosure_tables`). The public faces are
:mod:`idrisk.r` (R's names and result shapes, from ``idrisk/_rdisclosure.py``) and
:mod:`idrisk.risk.disclosure_measures`. R's factors and grouping are in
:mod:`idrisk.risk._rfactor`, R's sums in :mod:`idrisk.risk._rsums`, R's number-to-text rules
in :mod:`idrisk._rtext`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from .._schema import require_columns
from .._stack import user_stacklevel
from .._synthetic import synthetic_name
from ..exceptions import SynthpopQuirkWarning
from ._rfactor import (
    MISSING,
    _complete,
    _crosstab,
    _Factor,
    _marked,
    _Table,
    _union,
    as_factor,
    group_numeric,
    is_r_numeric,
    level_axis,
    quasi_identifiers,
    recode_missing,
)
from ._rsums import _colsums, _rmean, _rsum, _total

# ====================================================================== warnings


def _quirk(name: str, detail: str) -> None:
    import warnings

    warnings.warn(f"synthpop quirk '{name}': {detail}", SynthpopQuirkWarning,
                  stacklevel=user_stacklevel())


TABLES = ("original", "synthetic", "Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO")
EXCLUSION_COLUMNS = (
    "excluded target", "missing target", "missing in  keys", "set to exclude",
    "over denom_lim", "remaining",
)


# ====================================================================== disclosure
def _as_int_list(value: object, argument: str) -> list[int]:
    vals: list[Any] = [value] if np.isscalar(value) else list(cast(Iterable[Any], value))
    out = []
    for v in vals:
        if isinstance(v, bool) or not float(v).is_integer():
            raise ValueError(f"{argument} must hold whole numbers, got {v!r}")
        out.append(int(v))
    return out


def resolve_columns(
    data: pd.DataFrame, value: str | int | Sequence[str | int], argument: str
) -> list[str]:
    """Column names from names or R's 1-based column numbers."""
    vals = [value] if isinstance(value, (str, int, np.integer)) else list(value)
    names = []
    for v in vals:
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            if not 1 <= v <= data.shape[1]:
                raise ValueError(
                    f"{argument}: column number {v} is outside 1..{data.shape[1]} of data"
                )
            names.append(str(data.columns[v - 1]))
        elif isinstance(v, str):
            names.append(v)
        else:
            raise TypeError(f"{argument}: expected column names or numbers, got {v!r}")
    return names


def _recycle(value: object, n: int, argument: str) -> list:
    vals = [value] if np.isscalar(value) or value is None else list(value)  # type: ignore
    if not vals:
        raise ValueError(f"{argument} is empty")
    return [vals[i % len(vals)] for i in range(n)]


def disclosure_tables(
    syn: Sequence[pd.DataFrame],
    data: pd.DataFrame,
    keys: str | int | Sequence[str | int],
    target: str | int,
    *,
    cont_na: dict[str, Sequence[float]] | None = None,
    denom_lim: int = 5,
    exclude_ov_denom_lim: bool = False,
    not_targetlev: Sequence[str] | str | None = None,
    usetargetNA: bool = True,
    usekeysNA: bool | Sequence[bool] = True,
    exclude_keys: Sequence[str] | str | None = None,
    exclude_keylevs: Sequence[str] | str | None = None,
    exclude_targetlevs: Sequence[str] | str | None = None,
    ngroups_target: int | None = None,
    ngroups_keys: int | Sequence[int] | None = None,
    thresh_1way: Sequence[float] = (50, 90),
    thresh_2way: Sequence[float] = (4, 80),
    quirks: str = "synthpop",
    warn: bool = True,
    key_cache: dict | None = None,
) -> dict:
    """synthpop's ``disclosure.synds`` computation on m synthetic frames.

    Returns a dict with R's component names (``ident``, ``attrib``, ``allCAPs``,
    ``check_1way``, ``check1``, ``check_2way``, ``check2``, ``Nexclusions``, ``keys``,
    ``target``, ``Norig``) and, under ``"_tables"``, the per-synthesis tables.

    With ``quirks="corrected"`` these quirks of synthpop 1.9-3 are switched off:

    * *usekeysNA permutation*: with keys given in another order than the data's, synthpop
      permutes ``usekeysNA`` (and applies ``ngroups_keys``) with the wrong permutation;
      corrected: each setting stays with its key.
    * *tables combined by position*: synthpop adds missing levels to one table, sorts it by
      name and then combines it with the other table by position; corrected: by name.
    * *identity measures depend on the target*: synthpop computes UiO, UiS, UiOiS and repU
      after the target's exclusions; corrected: after the key exclusions (``usekeysNA``) only.
    * *unused levels count as present*: UiOiS asks whether an original unique's key name is
      among the synthetic q's level names; with one key these are the key factor's levels,
      unused ones included (unless the synthetic key has NA, whose recoding drops them);
      corrected: keys held by some synthetic record.
    * *full row counts*: synthpop divides by all records even when some were excluded;
      corrected: by the records remaining in the original (synthetic) table.
    * *TCAP over no records*: with ``exclude_ov_denom_lim`` a DiSCO record (original cell
      <= denom_lim) can keep its keys while every synthetic cell of those keys is over the
      limit, so no original record is left in TCAP's denominator and synthpop's TCAP is
      ``Inf``; corrected: NaN, as every measure whose denominator is empty.
    * *'|' in level labels*: the 2-way check names a pair ``"<target level>|<key level>"``
      and reads the levels back as its first two ``"|"``-separated words; a key level misread
      has no records, so its share is NaN and ``check_2way`` gets a row of NAs, and a target
      level misread stops synthpop (here a ``ValueError``); corrected: the pair's own levels.
    """
    if quirks not in ("synthpop", "corrected"):
        raise ValueError(f"quirks must be 'synthpop' or 'corrected', got {quirks!r}")
    fix = quirks == "corrected"
    syn = list(syn)
    m = len(syn)
    if m == 0:
        raise ValueError("no synthetic data sets given")
    user_keys = resolve_columns(data, keys, "keys")
    tnames = resolve_columns(data, target, "target")
    if len(tnames) != 1:
        raise ValueError(f"target must be a single column, got {tnames}")
    tname = tnames[0]
    if tname in user_keys:
        raise ValueError(f"target {tname!r} is also one of the keys")
    if "target" in data.columns:
        raise ValueError("data has a column called 'target'; rename it (synthpop uses the name)")
    if len(set(user_keys)) != len(user_keys):
        raise ValueError(f"keys: a column is listed twice in {user_keys}")
    for where, frame in [("data", data)] + [(synthetic_name(j + 1, "object"), s)
                                             for j, s in enumerate(syn)]:
        require_columns(frame, [tname], "target", where)
        require_columns(frame, user_keys, "keys", where)
    if isinstance(denom_lim, bool) or not float(denom_lim).is_integer() or denom_lim < 1:
        raise ValueError(f"denom_lim must be a positive whole number, got {denom_lim!r}")
    if ngroups_target is not None and ngroups_target == 1:
        raise ValueError("ngroups_target must not be 1")
    n_keys = len(user_keys)
    use_na = [bool(v) for v in _recycle(usekeysNA, n_keys, "usekeysNA")]
    ng_keys = None if ngroups_keys is None else _as_int_list(ngroups_keys, "ngroups_keys")
    if ng_keys is not None:
        ng_keys = _recycle(ng_keys, n_keys, "ngroups_keys")
        if 1 in ng_keys:
            raise ValueError("ngroups_keys must not contain 1")

    # --- keys in data order; settings given per key follow (wrongly, in synthpop)
    dkeys = [c for c in data.columns if c in set(user_keys)]
    right = [user_keys.index(k) for k in dkeys]
    wrong = [dkeys.index(k) for k in user_keys]
    quirk_perm = right if fix else wrong
    if ng_keys is not None:
        ng_data = [ng_keys[i] for i in right] if fix else ng_keys
        if warn and not fix and ng_data != [ng_keys[i] for i in right]:
            _quirk("ngroups_keys order", "ngroups_keys is applied to the keys in data order "
                   f"{dkeys}, not in the order given {user_keys}")
    else:
        ng_data = None
    use_na_data = [use_na[i] for i in quirk_perm]
    if warn and not fix and use_na_data != [use_na[i] for i in right]:
        _quirk("usekeysNA permutation", f"keys reordered to data order {dkeys} and usekeysNA "
               f"permuted wrongly: used {use_na_data} instead of "
               f"{[use_na[i] for i in right]}")

    cont = {k: [v for v in vals if not _isna(v)] for k, vals in (cont_na or {}).items()}
    require_columns(data, list(cont), "cont_na", "data")

    # --- grouping and factors
    def factors(col: str, ngroups: int | None) -> list[_Factor]:
        cols = [data[col]] + [s[col] for s in syn]
        if ngroups is not None and ngroups > 0 and is_r_numeric(data[col]):
            sizes = sorted({len(s) for s in syn})
            if not fix and len(sizes) > 1:
                raise ValueError(
                    f"ngroups for {col!r}: the synthetic data sets have different numbers of "
                    f"rows {sizes}, and synthpop 1.9-3 cannot pool them for the grouping (it "
                    "stops: 'x1, x2, and xsyn must be numeric'); quirks='corrected' groups "
                    "them")
            return group_numeric(cols, int(ngroups), cont.get(col, []))
        return [as_factor(c) for c in cols]

    tf = factors(tname, ngroups_target)
    target_had_na = tf[0].has_na
    tf = [recode_missing(f) for f in tf]
    # the keys' factors and q (the same for every target of multi.disclosure's key_cache)
    cached = (tuple(dkeys), None if ng_data is None else tuple(ng_data))
    keys_made = None if key_cache is None else key_cache.get(cached)
    if keys_made is None:
        kf = [[recode_missing(f) for f in factors(k, None if ng_data is None else ng_data[i])]
              for i, k in enumerate(dkeys)]
        keys_made = (kf, *quasi_identifiers(kf))
        if key_cache is not None:
            key_cache[cached] = keys_made
    kf, q_axis, q_ids, q_codes = keys_made
    orig_t, orig_k = tf[0], [f[0] for f in kf]
    # every dataset's levels as ids of one axis per dimension: tables line up by integers
    t_axis, t_ids = level_axis(tf)
    d0 = _crosstab(orig_t.codes, t_ids[0], q_codes[0], q_ids[0], t_axis, q_axis)
    nd = len(data)

    not_t = [] if not_targetlev is None else (
        [not_targetlev] if isinstance(not_targetlev, str) else list(not_targetlev))
    ex_k = [] if exclude_keys is None else (
        [exclude_keys] if isinstance(exclude_keys, str) else list(exclude_keys))
    ex_kl = [] if exclude_keylevs is None else (
        [exclude_keylevs] if isinstance(exclude_keylevs, str) else list(exclude_keylevs))
    ex_tl = [] if exclude_targetlevs is None else (
        [exclude_targetlevs] if isinstance(exclude_targetlevs, str)
        else list(exclude_targetlevs))
    if not (len(ex_k) == len(ex_kl) == len(ex_tl)):
        raise ValueError("exclude_keys, exclude_keylevs and exclude_targetlevs must have the "
                         "same length")
    for k, kl, tl in zip(ex_k, ex_kl, ex_tl, strict=True):
        if k not in dkeys:
            raise ValueError(f"exclude_keys: {k!r} is not one of the keys {dkeys}")
        if str(kl) not in orig_k[dkeys.index(k)].levels:
            raise ValueError(f"exclude_keylevs: {kl!r} is not a level of key {k!r} in data")
        if str(tl) not in orig_t.levels:
            raise ValueError(f"exclude_targetlevs: {tl!r} is not a level of target "
                             f"{tname!r} in data")

    per = []
    two_way = _TwoWay(orig_t, orig_k)
    for j in range(m):
        s0 = _crosstab(tf[j + 1].codes, t_ids[j + 1], q_codes[j + 1], q_ids[j + 1], t_axis,
                       q_axis)
        rows_d = _union(d0.row_ids, s0.row_ids, t_axis, fix)
        cols_d = _union(d0.col_ids, s0.col_ids, q_axis, fix)
        d = _complete(d0, rows_d, cols_d, by_name=fix)
        s = _complete(s0, rows_d, cols_d, by_name=fix)
        if warn and not fix and not (np.array_equal(d.row_ids, s.row_ids)
                                     and np.array_equal(d.col_ids, s.col_ids)):
            _quirk("tables combined by position",
                   f"synthesis {j + 1}: the original and synthetic tables of {tname} by keys "
                   "list their levels in different orders and synthpop combines them by "
                   "position, so cells of different levels are compared")
        in_s = [_marked(ids, q_axis)[d.col_ids]  # q's levels; those held by records
                for ids in (s0.col_ids, s0.col_ids[s0.counts.sum(axis=0) > 0])]
        per.append(_measures(d, s, nd, len(syn[j]), n_keys, dkeys, not_t, target_had_na,
                             usetargetNA, use_na_data, list(zip(ex_k, ex_kl, ex_tl)),
                             exclude_ov_denom_lim, int(denom_lim), fix, in_s))
        if warn and per[-1]["uiois_by_levels"]:
            _quirk("unused levels count as present",
                   f"synthesis {j + 1}: an original unique whose key level is a level of the "
                   "synthetic key but held by no synthetic record counts in UiOiS")
        per[-1]["dims"] = (d0.counts.shape, d.counts.shape)
        per[-1]["check_1way"] = _check_1way(per[-1], thresh_1way)
        per[-1]["check_2way"] = _check_2way(per[-1], two_way, dkeys, thresh_2way, tname, fix,
                                            warn)
    if warn and not fix and any(p["target_excluded"] for p in per):
        _quirk("identity measures depend on the target",
               "records were excluded for the target, which changes UiO, UiS, UiOiS and repU "
               "as well; denominators stay the full row counts")
    if warn and not fix and any(np.isinf(p["allCAPs"]["TCAP"]) for p in per):
        _quirk("TCAP over no records",
               "DiSCO records remain after the exclusions but no original record's keys "
               "remain in the synthetic table (e.g. all its cells over denom_lim), so TCAP "
               "divides by 0 and is Inf")
    return _assemble(per, dkeys, tname, nd, tf, orig_t)


def _isna(v: object) -> bool:
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def _measures(
    d: _Table, s: _Table, nd: int, ns: int, n_keys: int, dkeys: list[str],
    not_t: list[str], target_had_na: bool, usetargetNA: bool, use_na: list[bool],
    triples: list[tuple[str, str, str]], over_lim: bool, denom_lim: int, fix: bool,
    in_syn: list[np.ndarray],
) -> dict:
    """The eight tables of one synthesis, their exclusions and the measures (``in_syn``: per
    column of ``d``, whether its name is a level of the synthetic q, and whether a synthetic
    record holds it)."""
    with np.errstate(invalid="ignore", divide="ignore"):  # all excluded: NaN, as in R
        return _measures_of(d, s, nd, ns, n_keys, dkeys, not_t, target_had_na, usetargetNA,
                            use_na, triples, over_lim, denom_lim, fix, in_syn)


def _measures_of(
    d: _Table, s: _Table, nd: int, ns: int, n_keys: int, dkeys: list[str],
    not_t: list[str], target_had_na: bool, usetargetNA: bool, use_na: list[bool],
    triples: list[tuple[str, str, str]], over_lim: bool, denom_lim: int, fix: bool,
    in_syn: list[np.ndarray],
) -> dict:
    # The tables hold whole numbers (int32): R's double sums of them are exact, and so are
    # numpy's. A cell's proportion of its column is 1 (R's ``prop == 1``) exactly when the
    # cell holds the whole column.
    D, S = d.counts, s.counts
    d_total, s_total = D.sum(axis=0), S.sum(axis=0)
    s_present = s_total > 0
    fixed_d = (D == d_total) & (D > 0)
    fixed_s = (S == s_total) & s_present
    excluding = bool(not_t or (not usetargetNA and target_had_na) or not all(use_na)
                     or triples or over_lim)
    tables = {
        "original": D.copy() if excluding else D,  # zeroed in place below
        "synthetic": S.copy() if excluding else S,
        "Dorig": np.where(fixed_d, D, 0),
        "Dsyn": np.where(fixed_s, S, 0),
        "iS": np.where(s_present[None, :], D, 0),
        "DiS": np.where(fixed_s.any(axis=0)[None, :], D, 0),
        "DiSCO": np.where(fixed_s, D, 0),
        "DiSDiO": np.where(fixed_s & fixed_d, D, 0),
    }
    names = {k: (s if k in ("synthetic", "Dsyn") else d) for k in TABLES}
    nex = np.zeros((len(TABLES), len(EXCLUSION_COLUMNS)))

    def zero(step: int, mask_of) -> None:
        for i, k in enumerate(TABLES):
            mask = mask_of(names[k], tables[k])
            nex[i, step] += tables[k][mask].sum()
            tables[k][mask] = 0

    def rows_named(levels):
        return lambda t, _: np.isin(t.row_names(), levels)[:, None] & \
            np.ones((1, len(t.col_ids)), bool)

    def key_is(i: int, level: str):
        return lambda t, _: np.ones((len(t.row_ids), 1), bool) & (
            t.col_field(i, n_keys) == level)[None, :]

    if not_t:
        zero(0, rows_named(not_t))
    if not usetargetNA and target_had_na:
        zero(1, rows_named([MISSING]))
    for i, use in enumerate(use_na):
        if not use:
            zero(2, key_is(i, MISSING))
    def pair_is(i: int, key_level: str, target_level: str):
        return lambda t, v: (t.row_names() == target_level)[:, None] & key_is(i, key_level)(t, v)

    for key, keylev, targetlev in triples:
        zero(3, pair_is(dkeys.index(key), str(keylev), str(targetlev)))
    if over_lim:
        zero(4, lambda t, values: values > denom_lim)
    totals = {k: _total(tables[k]) for k in TABLES}
    nex[:, 5] = list(totals.values())
    target_excluded = bool(nex[:2, [0, 1, 3, 4]].sum() > 0)

    Dx, Sx = tables["original"], tables["synthetic"]
    if fix:  # identity from the keys alone: only the usekeysNA exclusions
        def key_only(t: _Table, values: np.ndarray) -> np.ndarray:
            out = values.copy()
            for i, use in enumerate(use_na):
                if not use:
                    out[:, t.col_field(i, n_keys) == MISSING] = 0
            return out

        ident_d, ident_s = key_only(d, D), key_only(s, S)
        nd_, ns_ = _total(Dx), _total(Sx)
        ident_nd, ident_ns = _total(ident_d), _total(ident_s)
    else:
        ident_d, ident_s = Dx, Sx
        nd_, ns_ = ident_nd, ident_ns = np.float64(nd), np.float64(ns)
    # R's forms: count / N * 100; sum(), colSums() and rowSums() accumulate in long double
    dqx, sqx = (Dx.sum(axis=0), Sx.sum(axis=0)) if excluding else (d_total, s_total)
    dq, sq = (ident_d.sum(axis=0), ident_s.sum(axis=0)) if fix else (dqx, sqx)
    in_s = [((dq == 1) & present).sum() for present in in_syn]  # synthpop: by level names
    ident = {
        "UiO": float((dq == 1).sum()) / ident_nd * 100,
        "UiS": float((sq == 1).sum()) / ident_ns * 100,
        "UiOiS": float(in_s[fix]) / ident_nd * 100,
        "repU": float(((dq == 1) & (sq == 1)).sum()) / ident_nd * 100,
    }
    disco = tables["DiSCO"]
    nonzero = disco[disco > 0]
    attrib = {
        "Dorig": totals["Dorig"] / nd_ * 100,
        "Dsyn": totals["Dsyn"] / ns_ * 100,
        "iS": totals["iS"] / nd_ * 100,
        "DiS": totals["DiS"] / nd_ * 100,
        "DiSCO": totals["DiSCO"] / nd_ * 100,
        "DiSDiO": totals["DiSDiO"] / nd_ * 100,
        "max_denom": float(disco.max()) if disco.size else 0.0,
        "mean_denom": _rmean(nonzero, whole=True),
    }
    # Per column, R sums proportions: colSums(p^2) * N for CAPd and CAPs, colSums(p_syn *
    # count) for DCAP. A column whose records share one target level has proportion 1 in
    # that cell and 0 elsewhere, so its sums are exact: N, and the original count of that
    # cell. Only columns with several levels are divided and summed in long double; empty
    # columns add exact zeros to the long-double sums over the columns.
    if excluding:
        fixed_d, fixed_s = (Dx == dqx) & (Dx > 0), (Sx == sqx) & (Sx > 0)
    several_d = np.flatnonzero((dqx > 0) & ~fixed_d.any(axis=0))
    several_s = np.flatnonzero((sqx > 0) & ~fixed_s.any(axis=0))
    p_d = np.take(Dx, several_d, axis=1) / dqx[several_d]  # np.take keeps rows contiguous
    p_s = np.take(Sx, several_s, axis=1) / sqx[several_s]
    capd, caps_s = dqx.astype(float), sqx.astype(float)
    capd[several_d] = _colsums(p_d**2) * dqx[several_d]
    caps_s[several_s] = _colsums(p_s**2) * sqx[several_s]
    dcap = (np.where(fixed_s, Dx, 0) if excluding else disco).sum(axis=0).astype(float)
    dcap[several_s] = _colsums(p_s * np.take(Dx, several_s, axis=1))
    row_totals = D.sum(axis=1)
    tcap_denom = _total(dqx[sqx > 0])
    caps = {
        "baseCAPd": 100 * _rsum((row_totals / nd) ** 2),
        "CAPd": _rsum(capd) / nd_ * 100,
        "CAPs": _rsum(caps_s) / ns_ * 100,
        "DCAP": _rsum(dcap) / nd_ * 100,
        "TCAP": float(totals["DiSCO"] / tcap_denom * 100),
    }
    if fix and tcap_denom == 0:  # DiSCO records left but no denominator: undefined, not Inf
        caps["TCAP"] = float("nan")
    return {
        "ident": ident, "attrib": attrib, "allCAPs": caps, "Nexclusions": nex,
        "tables": tables, "d": d, "s": s, "target_excluded": target_excluded,
        "uiois_by_levels": in_s[0] != in_s[1] and not fix,
    }


def _check_1way(p: dict, thresh: Sequence[float]) -> pd.DataFrame | None:
    disco = p["tables"]["DiSCO"]
    by_level = disco.sum(axis=1).astype(float)
    total = _total(disco)
    if total == 0:
        return None
    order = sorted(range(len(by_level)), key=lambda i: -by_level[i])
    top = order[0]
    share = by_level[top] / total * 100
    if not (by_level[top] > thresh[0] and share > thresh[1]):
        return None
    level = p["d"].rows[top]
    d = p["tables"]["original"]
    all_ = _total(d)
    return pd.DataFrame(
        {
            "Level": [level],
            "All": [all_],
            "PctLevelAll": [d[top].sum() / all_ * 100],
            "totalDisclosive": [total],
            "nLevelDis": [by_level[top]],
            "PctLevelDis": [share],
        },
        index=pd.Index([level]),
    )


class _TwoWay:
    """The original records the 2-way check counts, shared by all syntheses: records by key
    label (``total``) and by target and key label (``with_target``). Levels are found by
    name (two levels may share one); the counts per key are made when first asked for."""

    __slots__ = ("_counts", "keys", "target")

    def __init__(self, target: _Factor, keys: list[_Factor]) -> None:
        self.target = target
        self.keys = keys
        self._counts: dict[int, tuple[list, list, dict, dict]] = {}

    def _of(self, i: int) -> tuple[list[int], list[list[int]], dict, dict]:
        if i not in self._counts:
            t, k = self.target, self.keys[i]
            nk = len(k.levels)
            ok = (t.codes >= 0) & (k.codes >= 0)
            both = np.bincount(t.codes[ok] * nk + k.codes[ok], minlength=len(t.levels) * nk)
            self._counts[i] = (
                np.bincount(k.codes[k.codes >= 0], minlength=nk).tolist(),
                both.reshape(len(t.levels), nk).tolist(), _positions(k.levels),
                _positions(t.levels))
        return self._counts[i]

    def is_target_level(self, level: str) -> bool:
        return level in self.target.levels

    def total(self, i: int, key_level: str) -> int:
        totals, _, key_at, _ = self._of(i)
        return sum(totals[j] for j in key_at.get(key_level, []))

    def with_target(self, i: int, target_level: str, key_level: str) -> int:
        _, both, key_at, target_at = self._of(i)
        return sum(both[r][c] for r in target_at.get(target_level, [])
                   for c in key_at.get(key_level, []))


def _positions(levels: list[str]) -> dict[str, list[int]]:
    """Where each level name occurs among ``levels``."""
    out: dict[str, list[int]] = {}
    for j, lv in enumerate(levels):
        out.setdefault(lv, []).append(j)
    return out


def _check_2way(
    p: dict, orig: _TwoWay, dkeys: list[str], thresh: Sequence[float], tname: str, fix: bool,
    warn: bool = True,
) -> pd.DataFrame | None:
    """synthpop's 2-way check: target-key level pairs of the DiSCO cells over ``thresh[0]``
    whose share of the original records of the key level is over ``thresh[1]``.

    synthpop names a pair ``"<target level>|<key level>"`` and reads the two levels back as
    the first and second ``"|"``-separated words, so a level holding ``"|"`` is read wrongly:
    a key level that is not there has no records and the share 0 * 100 / 0 is NaN, which
    R's row selection turns into a row of NAs (named ``"NA"``, ``"NA.1"``, ...); a target
    level that is not there stops synthpop (an error). ``fix``: the pair's own levels;
    ``warn``: a quirk warning when a level is read wrongly.
    """
    d, disco = p["d"], p["tables"]["DiSCO"]
    n_keys = len(dkeys)
    r, c = np.nonzero(disco > thresh[0])
    if not r.size:
        return None
    target_names = d.row_names()[r]
    values = disco[r, c].astype(np.int64).tolist()
    pieces = []
    for i in range(n_keys):
        counts: dict[tuple[str, str, str], int] = {}
        for tl, kl, v in zip(target_names, d.col_field(i, n_keys, c), values, strict=True):
            pair = f"{tl}|{kl}"
            words = pair.split("|")
            at = (pair, tl, kl) if fix else (pair, words[0], words[1])
            counts[at] = counts.get(at, 0) + v
        for at in sorted(counts):
            pieces.append((at, counts[at], i))
    if warn and not fix and any(at[0] != f"{at[1]}|{at[2]}" for at, _, _ in pieces):
        _quirk("'|' in level labels",
               "synthpop's 2-way check reads a target-key pair's levels back from "
               "'<target level>|<key level>' as its first two '|'-separated words, so a level "
               "holding '|' is read wrongly: a key level that is not there has no records, "
               "its share 0 * 100 / 0 is NaN and check_2way gets a row of NAs")
    rows = []
    for idx, ((pair, tl, kl), n, i) in enumerate(pieces, start=1):
        if not orig.is_target_level(tl):
            raise ValueError(
                f"a level of target {tname!r} holds '|': synthpop's 2-way check reads the "
                f"target level of the pair {pair!r} as {tl!r}, which is not a level, and "
                "synthpop 1.9-3 stops with 'replacement has length zero'; rename the level "
                "or use quirks='corrected'")
        key_total = float(orig.total(i, kl))
        ktt = float(orig.with_target(i, tl, kl))
        pct = 100 * ktt / key_total if key_total else np.nan  # R: 0 * 100 / 0 is NaN
        rows.append((str(idx), pair, n, dkeys[i], ktt, key_total, pct))
    order = sorted(range(len(rows)), key=lambda i: -rows[i][2])
    # R's allpairs[PctTargetKeyLevel > thresh, ]: a NaN share selects a row of NAs
    kept = [rows[i] if not np.isnan(rows[i][6]) else None for i in order
            if np.isnan(rows[i][6]) or rows[i][6] > thresh[1]]
    if not kept:
        return None
    categories = {pair: j for j, pair in enumerate(dict.fromkeys(r[1] for r in rows))}
    na = (None, None, None, None, np.nan, np.nan, np.nan)
    full = [r if r is not None else na for r in kept]
    names, n_na = [], 0
    for row in kept:  # R's make.unique row names of the NA rows: NA, NA.1, NA.2, ...
        names.append(row[0] if row is not None else "NA" if not n_na else f"NA.{n_na}")
        n_na += row is None
    npairs = [r[2] for r in full]
    numbers = np.array([r[4:] for r in full], dtype=float)
    return pd.DataFrame(
        {
            "target_key_levs": pd.Categorical.from_codes(
                [categories[r[1]] if r[1] is not None else -1 for r in full],
                categories=list(categories)),
            "npairs": (pd.array(npairs, dtype="Int32") if n_na
                       else np.array(npairs, dtype=np.int32)),
            "key": [r[3] for r in full],
            "key_target_total": numbers[:, 0],
            "key_total": numbers[:, 1],
            "PctTargetKeyLevel": numbers[:, 2],
        },
        index=pd.Index(names),
    )


def _assemble(per: list[dict], dkeys: list[str], tname: str, nd: int, tf, orig_t) -> dict:
    m = len(per)
    index = pd.Index([str(j + 1) for j in range(m)])
    out: dict = {}
    for name in ("ident", "attrib", "allCAPs"):
        columns = list(per[0][name])
        out[name] = pd.DataFrame(np.array([[p[name][c] for c in columns] for p in per],
                                          dtype=float), index=index, columns=columns)
    c1 = [p["check_1way"] for p in per]
    c2 = [p["check_2way"] for p in per]
    check1 = ""
    for c in c1:
        if c is not None:
            check1 = f"Check  {tname}  level  {c['Level'].iloc[0]}"
    check2 = ""
    for c in c2:
        if c is not None:
            check2 = f"{len(c)} pairs need checks"
    if m == 1:
        out["check_1way"] = c1[0] if c1[0] is not None else [""]
        out["check_2way"] = c2[0] if c2[0] is not None else [""]
    else:
        out["check_1way"] = ["" if c is None else c for c in c1]
        out["check_2way"] = ["" if c is None else c for c in c2]
    out["check1"] = check1
    out["check2"] = check2
    rows, columns = pd.Index(TABLES), pd.Index(EXCLUSION_COLUMNS)
    out["Nexclusions"] = [pd.DataFrame(p["Nexclusions"], index=rows, columns=columns)
                          for p in per]
    out["keys"] = list(dkeys)
    out["target"] = tname
    out["Norig"] = nd
    out["_tables"] = per
    return out


# ====================================================================== multi.disclosure
def _nth(value: object, i: int, n: int, argument: str) -> Any:
    vals = [value] if value is None or np.isscalar(value) else list(value)  # type: ignore
    return _recycle(vals, n, argument)[i]


def multi_disclosure_tables(
    syn: Sequence[pd.DataFrame],
    data: pd.DataFrame,
    keys: str | int | Sequence[str | int],
    targets: Sequence[str] | str | None = None,
    *,
    cont_na: dict[str, Sequence[float]] | None = None,
    denom_lim: int = 5,
    exclude_ov_denom_lim: bool = False,
    not_targetslev: Sequence[str] | str | None = None,
    usetargetsNA: bool | Sequence[bool] = True,
    usekeysNA: bool | Sequence[bool] = True,
    exclude_keys: Sequence | None = None,
    exclude_keylevs: Sequence | None = None,
    exclude_targetlevs: Sequence | None = None,
    ngroups_targets: int | Sequence[int | None] | None = None,
    ngroups_keys: int | Sequence[int] | None = None,
    ident_meas: str = "repU",
    attrib_meas: str = "DiSCO",
    thresh_1way: Sequence[float] = (50, 90),
    thresh_2way: Sequence[float] = (4, 80),
    quirks: str = "synthpop",
) -> dict:
    """synthpop's ``multi.disclosure.synds``: :func:`disclosure_tables` for each target.

    Quirks reproduced (``quirks="corrected"`` fixes them): ``ident.syn`` is synthesis 1's
    repU only (corrected: the mean over the m syntheses), ``exclude.keylevs`` is replaced
    by ``exclude.targetlevs`` (corrected: ``exclude_keylevs`` is used), and the keys are put
    in data order while ``usekeysNA`` and ``ngroups_keys`` stay in the order given, so each
    setting goes to the key at its position in data order (corrected: to its own key).
    """
    fix = quirks == "corrected"
    syn = list(syn)
    key_names = resolve_columns(data, keys, "keys")
    in_data_order = [c for c in data.columns if c in set(key_names)]
    if not fix and in_data_order != key_names:
        if any(v is not None and not np.isscalar(v) and len(set(v)) > 1  # type: ignore
               for v in (usekeysNA, ngroups_keys)):
            _quirk("usekeysNA permutation", f"multi.disclosure puts the keys in data order "
                   f"{in_data_order} and keeps usekeysNA and ngroups_keys in the order given "
                   f"{key_names}, so each setting goes to the key at its position")
        key_names = in_data_order
    if targets is None:
        tlist = [c for c in syn[0].columns if c not in set(key_names)]
    else:
        tlist = resolve_columns(data, targets, "targets")
    n = len(tlist)
    if set(tlist) & set(key_names):
        raise ValueError(f"targets {sorted(set(tlist) & set(key_names))} are also keys; no "
                         "target can be a key")
    if not fix and exclude_keys is not None:
        _quirk("exclude.keylevs ignored", "multi.disclosure passes exclude.targetlevs as the "
               "key levels, so exclude_keylevs is never used")
    if not fix and len(syn) > 1:
        _quirk("ident.syn from synthesis 1", "the identity measure of the summary is the "
               "first synthesis's, not the mean over the syntheses")
    outputs = {}
    key_cache: dict = {}  # the keys' factors, shared by the targets
    rows = []
    for i, t in enumerate(tlist):
        ntl = None if not_targetslev is None else _nth(not_targetslev, i, n, "not_targetslev")
        ex_k = None if exclude_keys is None else exclude_keys[i]
        ex_tl = None if exclude_targetlevs is None else exclude_targetlevs[i]
        ex_kl = None
        if exclude_keys is not None:
            ex_kl = exclude_keylevs[i] if fix and exclude_keylevs is not None else ex_tl
        ng = None if ngroups_targets is None else _nth(ngroups_targets, i, n, "ngroups_targets")
        res = disclosure_tables(
            syn, data, key_names, t, cont_na=cont_na, denom_lim=denom_lim,
            exclude_ov_denom_lim=exclude_ov_denom_lim,
            not_targetlev=None if ntl in (None, "") else ntl,
            usetargetNA=bool(_nth(usetargetsNA, i, n, "usetargetsNA")), usekeysNA=usekeysNA,
            exclude_keys=ex_k, exclude_keylevs=ex_kl, exclude_targetlevs=ex_tl,
            ngroups_target=ng, ngroups_keys=ngroups_keys, thresh_1way=thresh_1way,
            thresh_2way=thresh_2way, quirks=quirks, warn=False, key_cache=key_cache,
        )
        outputs[t] = res
        ident, attrib, caps = res["ident"], res["attrib"], res["allCAPs"]
        ident_orig = _rmean(ident["UiO"])
        if ident_meas not in ("repU", "UiSiO", "baseCAPd") or attrib_meas not in (
                "DiSCO", "DiSDiO", "DCAP"):
            raise ValueError("ident_meas must be one of 'repU', 'UiSiO', 'baseCAPd' and "
                             "attrib_meas one of 'DiSCO', 'DiSDiO', 'DCAP'")
        if ident_meas in ident.columns:
            col = ident[ident_meas]
            ident_syn = _rmean(col) if fix else float(col.iloc[0])
        else:
            ident_syn = float("nan")
        if attrib_meas == "DCAP":
            a_orig, a_syn = _rmean(caps["CAPd"]), _rmean(caps["DCAP"])
        else:
            a_orig = _rmean(attrib["Dorig"]) if attrib_meas == "DiSCO" else float("nan")
            a_syn = _rmean(attrib[attrib_meas])
        rows.append((t, a_orig, a_syn, res["check1"], res["check2"], ident_orig, ident_syn))
    order = sorted(range(n), key=lambda i: rows[i][2])
    width = len(str(n))
    names = []
    for rank, i in enumerate(order, start=1):
        t, _, _, c1, c2 = rows[i][:5]
        suffix = {(True, True): " 1&2way checks", (True, False): " 1way checks",
                  (False, True): " 2way checks", (False, False): ""}[(c1 != "", c2 != "")]
        names.append(f"{str(rank).zfill(width)} {t}{suffix}")
    table = pd.DataFrame(
        {
            "attrib.orig": [rows[i][1] for i in order],
            "attrib.syn": [rows[i][2] for i in order],
            "check1": [rows[i][3] for i in order],
            "Npairs": [float(rows[i][4] != "") for i in order],
            "check2": [rows[i][4] for i in order],
        },
        index=pd.Index(names),
    )
    return {
        "attrib.table": table,
        "keys": [c for c in data.columns if c in set(key_names)],
        "ident.orig": [r[5] for r in rows],
        "ident.syn": [r[6] for r in rows],
        "Norig": len(data),
        "denom_lim": denom_lim,
        "exclude_ov_denom_lim": exclude_ov_denom_lim,
        "usetargetsNA": [bool(_nth(usetargetsNA, i, n, "usetargetsNA")) for i in range(n)],
        "usekeysNA": [bool(v) for v in _recycle(usekeysNA, len(key_names), "usekeysNA")],
        "ident.meas": ident_meas,
        "attrib.meas": attrib_meas,
        "m": len(syn),
        "output.list": outputs,
    }
