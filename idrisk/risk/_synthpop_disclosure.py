r"""Engine of synthpop 1.9-3's disclosure measures (``disclosure``, ``multi.disclosure``,
``replicated.uniques``), written from synthpop's documented behaviour and checked
against live synthpop run with ``LC_COLLATE=C``.

Everything here follows synthpop's code, quirks included; ``quirks="corrected"`` switches
the documented quirks off (see :func:`disclosure_tables`). The public faces are
:mod:`idrisk.r` (R's names and result shapes) and :mod:`idrisk.risk.disclosure_measures`.

Numbers become text in three places, each with a rule of base R:

* ``factor(x)`` of a double names its levels with ``as.character`` -- 15 significant digits,
  fixed or scientific, whichever is narrower (:func:`r_character`: ``1e+05``, ``123456.7``);
* ``cut(..., dig.lab = 8)`` writes interval bounds with C's ``%.8g`` (:func:`cut_labels`);
* ``as.matrix`` of a data frame with a non-numeric column ``format()``\ s each numeric column
  -- 7 significant digits, common decimals and width (:func:`r_format`: ``" -8"``, ``" NA"``).

Level names are sorted by code point, which is R's ``order()`` under ``LC_COLLATE=C``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from .._schema import is_categorical, label, require_columns
from .._synthetic import synthetic_frames, synthetic_name
from ..exceptions import SynthpopQuirkWarning


def _sci_parts(x: float, digits: int) -> tuple[int, int, bool]:
    """(kpower, nsig, rounding widens) of ``|x|`` rounded to ``digits`` significant digits."""
    mantissa, exponent = f"{abs(x):.{digits - 1}e}".split("e")
    kpower = int(exponent)
    nsig = len(mantissa.replace(".", "").rstrip("0")) or 1
    widens = 0 < kpower and abs(x) < 10.0**kpower
    return kpower, nsig, widens


def _format_real(values: Sequence[float], digits: int) -> tuple[int, int, bool]:
    """Common (width, decimals, scientific) of finite ``values`` under R's ``formatReal``."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return 0, 0, False
    neg = any(v < 0 for v in finite)
    rgt = mxsl = mxns = mxe = -(10**9)
    mne = 10**9
    mxl = -(10**9)
    for v in finite:
        if v == 0:
            kpower, nsig, widens = 0, 1, False
        else:
            kpower, nsig, widens = _sci_parts(v, digits)
        left = kpower + 1 - (1 if widens else 0)
        sleft = (1 if v < 0 else 0) + (1 if left <= 0 else left)
        rgt = max(rgt, nsig - left)
        mxl = max(mxl, left)
        mxsl = max(mxsl, sleft)
        mxns = max(mxns, nsig)
        mxe = max(mxe, kpower)
        mne = min(mne, kpower)
    if mxl < 0:
        mxsl = 1 + int(neg)
    rgt = max(rgt, 0)
    width_fixed = mxsl + rgt + (1 if rgt else 0)
    e = 2 if (mxe >= 100 or mne <= -99) else 1
    d = mxns - 1
    width_sci = int(neg) + (1 if d > 0 else 0) + d + 4 + e
    if width_fixed <= width_sci:
        return width_fixed, rgt, False
    return width_sci, d, True


def _write(v: float, decimals: int, scientific: bool) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Inf" if v > 0 else "-Inf"
    if scientific:
        mantissa, exponent = f"{v:.{decimals}e}".split("e")
        sign, digits = exponent[0], exponent[1:].lstrip("0")
        return f"{mantissa}e{sign}{digits.zfill(2)}"
    text = f"{v:.{decimals}f}"
    return "0" if text in ("-0", "-0.0") else text


def r_character(x: float) -> str:
    """R's ``as.character`` of one double (15 significant digits).

    Examples
    --------
    >>> [r_character(v) for v in (100000.0, 123456.7, 0.1, 1e-4, -8.0, 2.5)]
    ['1e+05', '123456.7', '0.1', '1e-04', '-8', '2.5']
    """
    _, decimals, scientific = _format_real([x], 15)
    return _write(x, decimals, scientific)


def r_labels(values: np.ndarray) -> list[str]:
    """Labels R gives the values of a numeric vector: integers plainly, doubles by
    :func:`r_character`."""
    if np.issubdtype(values.dtype, np.integer):
        return [str(int(v)) for v in values]
    return [r_character(float(v)) for v in values]


def r_format(values: np.ndarray, missing: np.ndarray) -> list[str]:
    """R's ``format()`` of a numeric vector as ``as.matrix`` leaves it: a common width (which
    counts ``NA`` as two characters), and NA restored, written ``NA`` without padding.

    Examples
    --------
    >>> import numpy as np
    >>> r_format(np.array([-8.0, 800.0, 0.0]), np.array([False, False, True]))
    [' -8', '800', 'NA']
    >>> r_format(np.array([800.0, 1500.5]), np.array([False, False]))
    [' 800.0', '1500.5']
    """
    if np.issubdtype(values.dtype, np.integer):
        texts = [None if na else str(int(v)) for v, na in zip(values, missing, strict=True)]
    else:
        present = [float(v) for v, na in zip(values, missing, strict=True) if not na]
        _, decimals, scientific = _format_real(present, 7)
        texts = [
            None if na else _write(float(v), decimals, scientific)
            for v, na in zip(values, missing, strict=True)
        ]
    width = max([len(t) for t in texts if t is not None] + [2 if any(missing) else 0])
    return ["NA" if t is None else t.rjust(width) for t in texts]


def cut_labels(breaks: Sequence[float], dig_lab: int = 8) -> list[str]:
    """Labels of ``cut(x, breaks, right = FALSE, include.lowest = TRUE, dig.lab = dig_lab)``.

    Examples
    --------
    >>> cut_labels([1.0, 2.5, 10.5])
    ['[1,2.5)', '[2.5,10.5]']
    """
    texts: list[str] = []
    for dig in range(dig_lab, max(12, dig_lab) + 1):
        texts = [f"{0.0 + b:.{dig}g}" for b in breaks]
        if all(a != b for a, b in zip(texts[:-1], texts[1:], strict=True)):
            break
    else:
        raise ValueError(f"breaks {list(breaks)} cannot be labelled distinctly")
    labels = [f"[{a},{b})" for a, b in zip(texts[:-1], texts[1:], strict=True)]
    labels[-1] = labels[-1][:-1] + "]"
    return labels


# ====================================================================== warnings


def _quirk(name: str, detail: str) -> None:
    import warnings

    warnings.warn(f"synthpop quirk '{name}': {detail}", SynthpopQuirkWarning, stacklevel=4)


# ====================================================================== factors
MISSING = "Missing"


class _Factor:
    """An R factor: level labels and integer codes (-1 = NA)."""

    __slots__ = ("codes", "levels")

    def __init__(self, levels: list[str], codes: np.ndarray) -> None:
        self.levels = list(levels)
        self.codes = np.asarray(codes, dtype=np.intp)

    @property
    def has_na(self) -> bool:
        return bool((self.codes < 0).any())

    def labels(self) -> np.ndarray:
        """Level label of each value (``None`` for NA)."""
        lv = np.array(self.levels + [None], dtype=object)
        return lv[np.where(self.codes < 0, len(self.levels), self.codes)]


def _from_labels(labels: np.ndarray, levels: list[str]) -> _Factor:
    index = {lv: i for i, lv in enumerate(levels)}
    return _Factor(levels, np.array([-1 if v is None else index[v] for v in labels]))


def is_r_numeric(series: pd.Series) -> bool:
    """R's ``is.numeric``: integer and double columns (not logical, not factor) -- the
    package's rule (:func:`idrisk._schema.is_categorical`) read the other way round."""
    return not is_categorical(series)


def _numbers(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(values, missing) of a numeric column; integer columns stay integer."""
    missing = series.isna().to_numpy()
    if pd.api.types.is_integer_dtype(series.dtype):
        return series.fillna(0).to_numpy(dtype=np.int64), missing
    return series.to_numpy(dtype=float, na_value=np.nan), missing


def as_factor(series: pd.Series) -> _Factor:
    """R's ``factor()`` of a column as synthpop meets it (categoricals keep their levels)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        levels = [label(c) for c in series.cat.categories]
        return _Factor(levels, series.cat.codes.to_numpy())
    missing = series.isna().to_numpy()
    if is_r_numeric(series):
        values, _ = _numbers(series)
        distinct = np.unique(values[~missing])
        codes = np.full(len(series), -1)
        codes[~missing] = np.searchsorted(distinct, values[~missing])
        return _Factor(r_labels(distinct), codes)
    if pd.api.types.is_bool_dtype(series.dtype) or series.dtype == object and all(
        isinstance(v, (bool, np.bool_)) for v in series[~missing]
    ) and (~missing).any():
        text = np.array(
            [None if na else ("TRUE" if v else "FALSE") for v, na in zip(series, missing,
                                                                         strict=True)],
            dtype=object,
        )
    else:
        text = np.array([None if na else str(v) for v, na in zip(series, missing, strict=True)],
                        dtype=object)
    return _from_labels(text, sorted({v for v in text if v is not None}))


def recode_missing(f: _Factor) -> _Factor:
    """synthpop's NA recoding: ``factor(as.character(x))`` with NA as level ``"Missing"`` --
    levels re-sorted by name and unused ones dropped (only when there is an NA)."""
    if not f.has_na:
        return f
    labels = f.labels()
    labels[f.codes < 0] = MISSING
    return _from_labels(labels, sorted(set(labels)))


# ====================================================================== grouping
def _r_quantile7(x: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """R's ``quantile(type = 7)``: ``(1 - h) * x[lo] + h * x[hi]`` where needed."""
    xs = np.sort(x)
    n = len(xs)
    index = 1 + max(n - 1, 0) * probs
    lo = np.floor(index).astype(int)
    hi = np.ceil(index).astype(int)
    qs = xs[lo - 1].copy()
    xhi = xs[hi - 1]
    interp = (index > lo) & (xhi != qs)
    h = (index - lo)[interp]
    qs[interp] = (1 - h) * qs[interp] + h * xhi[interp]
    return qs


def class_breaks(x: np.ndarray, n: int, style: str) -> np.ndarray:
    """``classInt::classIntervals(x, n, style)$brks`` for the quantile and equal styles.

    When ``n`` is at least the number of distinct values, every value is its own class with
    breaks half-way between them (classInt's "unique" breaks), as classInt does.

    Examples
    --------
    >>> import numpy as np
    >>> class_breaks(np.array([1.0, 2, 3, 4, 10]), 7, "quantile").tolist()
    [-0.125, 1.5, 2.5, 3.5, 7.0, 11.125]
    >>> class_breaks(np.array([0.0, 1, 2, 3, 4, 6, 8]), 2, "equal").tolist()
    [0.0, 4.0, 8.0]
    """
    distinct = np.unique(x)
    if len(distinct) < 2:
        raise ValueError("grouping a numeric column needs at least two distinct values")
    if n >= len(distinct):
        gaps = np.diff(distinct)
        half = gaps.mean() / 2
        return np.concatenate(
            [[distinct[0] - half], distinct[:-1] + gaps / 2, [distinct[-1] + half]]
        )
    if style == "quantile":
        probs = np.minimum(np.arange(n + 1) * (1.0 / n), 1.0)
        return _r_quantile7(x, probs)
    lo, hi = float(x.min()), float(x.max())
    out = lo + np.arange(n + 1) * ((hi - lo) / n)
    out[-1] = hi
    return out


def _cut(values: np.ndarray, breaks: np.ndarray) -> np.ndarray:
    """Codes of ``cut(right = FALSE, include.lowest = TRUE)`` (-1 outside the breaks)."""
    codes = np.searchsorted(breaks, values, side="right") - 1
    codes[values == breaks[-1]] = len(breaks) - 2
    codes[(values < breaks[0]) | (values > breaks[-1])] = -1
    return codes


def group_numeric(
    columns: list[pd.Series], n: int, codes: Sequence[float]
) -> list[_Factor]:
    """synthpop's grouping of one numeric column into ``n`` classes, original first.

    Breaks come from the quantiles of the original and all synthetic values together
    (missing values and ``cont.na`` codes left out); if the original falls into fewer than
    three classes, equal-width breaks are used instead. Codes become levels after the
    intervals.
    """
    parts = [_numbers(c) for c in columns]
    code_arr = np.array([float(c) for c in codes], dtype=float)

    def usable(values: np.ndarray, missing: np.ndarray) -> np.ndarray:
        return ~missing & ~np.isin(values.astype(float), code_arr)

    pooled = np.concatenate([v[usable(v, m)].astype(float) for v, m in parts])
    orig_vals = parts[0][0][usable(*parts[0])].astype(float)
    breaks = np.unique(class_breaks(pooled, n, "quantile"))
    if len(np.unique(_cut(orig_vals, breaks))) < 3:
        breaks = np.unique(class_breaks(pooled, n, "equal"))
    interval_labels = cut_labels(list(breaks))
    code_labels = [r_character(c) for c in code_arr]
    levels = interval_labels + code_labels
    out = []
    for values, missing in parts:
        fvals = values.astype(float)
        cut_codes = np.full(len(values), -1)
        ok = usable(values, missing)
        cut_codes[ok] = _cut(fvals[ok], breaks)
        for k, c in enumerate(code_arr):
            cut_codes[~missing & (fvals == c)] = len(interval_labels) + k
        out.append(_Factor(levels, cut_codes))
    return out


# ====================================================================== tables
class _Table:
    """A target x quasi-identifier count table with its level names."""

    __slots__ = ("cols", "counts", "rows")

    def __init__(self, counts: np.ndarray, rows: list[str], cols: list[str]) -> None:
        self.counts = counts
        self.rows = list(rows)
        self.cols = list(cols)

    def copy(self, counts: np.ndarray | None = None) -> _Table:
        return _Table(self.counts.copy() if counts is None else counts, self.rows, self.cols)


def _quasi_identifier(keys: list[_Factor]) -> tuple[list[str], np.ndarray]:
    """(levels, codes) of q: one key is the key factor, several keys their labels pasted with
    ``" | "`` (only observed combinations, sorted by name)."""
    if len(keys) == 1:
        return keys[0].levels, keys[0].codes
    pasted = [" | ".join(parts) for parts in zip(*[k.labels() for k in keys], strict=True)]
    levels = sorted(set(pasted))
    index = {lv: i for i, lv in enumerate(levels)}
    return levels, np.array([index[p] for p in pasted], dtype=np.intp)


def _crosstab(target: _Factor, q_levels: list[str], q_codes: np.ndarray) -> _Table:
    counts = np.zeros((len(target.levels), len(q_levels)), dtype=np.int64)
    ok = (target.codes >= 0) & (q_codes >= 0)
    np.add.at(counts, (target.codes[ok], q_codes[ok]), 1)
    return _Table(counts, target.levels, q_levels)


def _complete(t: _Table, rows: list[str], cols: list[str], by_name: bool) -> _Table:
    """Add the missing rows and columns as zeros.

    synthpop (``by_name=False``) re-sorts a dimension by name only when something was added
    to it; ``by_name=True`` puts both tables in the order of ``rows``/``cols``.
    """
    counts = t.counts
    r, counts = _complete_axis(list(t.rows), rows, counts, 0, by_name)
    c, counts = _complete_axis(list(t.cols), cols, counts, 1, by_name)
    return _Table(counts, r, c)


def _complete_axis(
    have: list[str], want: list[str], counts: np.ndarray, axis: int, by_name: bool
) -> tuple[list[str], np.ndarray]:
    """One dimension of :func:`_complete`."""
    present = set(have)
    extra = [x for x in want if x not in present]
    if not (extra or by_name):
        return have, counts
    shape = list(counts.shape)
    shape[axis] = len(extra)
    counts = np.concatenate([counts, np.zeros(shape, np.int64)], axis=axis)
    names = have + extra
    if by_name:
        position = {x: i for i, x in enumerate(names)}
        order = [position[x] for x in want]
    else:
        order = sorted(range(len(names)), key=names.__getitem__)
    return [names[i] for i in order], np.take(counts, order, axis=axis)


def _rsum(x: np.ndarray) -> np.float64:
    """R's ``sum()`` of doubles: in column-major order, accumulated in long double."""
    flat = np.asarray(x, dtype=float).ravel(order="F")
    if not flat.size:
        return np.float64(0.0)
    return np.float64(np.cumsum(flat, dtype=np.longdouble)[-1])


def _rmean(x: object) -> float:
    """R's ``mean()`` of doubles: a long-double sum over n, then one correction pass."""
    v = np.asarray(x, dtype=float)
    if not v.size:
        return float("nan")
    s = np.cumsum(v, dtype=np.longdouble)[-1] / v.size
    if np.isfinite(s):
        s = s + np.cumsum(v.astype(np.longdouble) - s)[-1] / v.size
    return float(s)


def _colsums(x: np.ndarray) -> np.ndarray:
    """R's ``colSums()``: each column accumulated in long double."""
    x = np.asarray(x, dtype=float)
    if not x.shape[0]:
        return np.zeros(x.shape[1])
    return np.cumsum(x, axis=0, dtype=np.longdouble)[-1].astype(float)


def _proportions(counts: np.ndarray) -> np.ndarray:
    totals = counts.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = counts / totals
    return np.where(totals > 0, p, 0.0)


TABLES = ("original", "synthetic", "Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO")
EXCLUSION_COLUMNS = (
    "excluded target", "missing target", "missing in  keys", "set to exclude",
    "over denom_lim", "remaining",
)


# ====================================================================== disclosure
def _fields(col: str, n_keys: int) -> list[str]:
    return col.split(" | ") if n_keys > 1 else [col]


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
    * *full row counts*: synthpop divides by all records even when some were excluded;
      corrected: by the records remaining in the original (synthetic) table.
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
    for k in cont:
        if k not in data.columns:
            raise KeyError(f"cont_na: {k!r} is not a column of data")

    # --- grouping and factors
    def factors(col: str, ngroups: int | None) -> list[_Factor]:
        cols = [data[col]] + [s[col] for s in syn]
        if ngroups is not None and ngroups > 0 and is_r_numeric(data[col]):
            return group_numeric(cols, int(ngroups), cont.get(col, []))
        return [as_factor(c) for c in cols]

    tf = factors(tname, ngroups_target)
    kf = [factors(k, None if ng_data is None else ng_data[i]) for i, k in enumerate(dkeys)]
    target_had_na = tf[0].has_na
    orig_t = recode_missing(tf[0])
    orig_k = [recode_missing(f[0]) for f in kf]
    q0_levels, q0_codes = _quasi_identifier(orig_k)
    d0 = _crosstab(orig_t, q0_levels, q0_codes)
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
    for j in range(m):
        st = recode_missing(tf[j + 1])
        sk = [recode_missing(f[j + 1]) for f in kf]
        ql, qc = _quasi_identifier(sk)
        s0 = _crosstab(st, ql, qc)
        rows_d = sorted(set(d0.rows) | set(s0.rows)) if not fix else d0.rows + [
            r for r in s0.rows if r not in set(d0.rows)]
        cols_d = sorted(set(d0.cols) | set(s0.cols)) if not fix else d0.cols + [
            c for c in s0.cols if c not in set(d0.cols)]
        d = _complete(d0, rows_d, cols_d, by_name=fix)
        s = _complete(s0, rows_d, cols_d, by_name=fix)
        if warn and not fix and (d.rows != s.rows or d.cols != s.cols):
            _quirk("tables combined by position",
                   f"synthesis {j + 1}: the original and synthetic tables of {tname} by keys "
                   "list their levels in different orders and synthpop combines them by "
                   "position, so cells of different levels are compared")
        per.append(_measures(d, s, nd, len(syn[j]), n_keys, dkeys, not_t, target_had_na,
                             usetargetNA, use_na_data, list(zip(ex_k, ex_kl, ex_tl)),
                             exclude_ov_denom_lim, int(denom_lim), fix))
        per[-1]["dims"] = (d0.counts.shape, d.counts.shape)
        per[-1]["check_1way"] = _check_1way(per[-1], thresh_1way)
        per[-1]["check_2way"] = _check_2way(per[-1], orig_t, orig_k, dkeys, thresh_2way)
    if warn and not fix and any(p["target_excluded"] for p in per):
        _quirk("identity measures depend on the target",
               "records were excluded for the target, which changes UiO, UiS, UiOiS and repU "
               "as well; denominators stay the full row counts")
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
) -> dict:
    """The eight tables of one synthesis, their exclusions and the measures."""
    with np.errstate(invalid="ignore", divide="ignore"):  # all excluded: NaN, as in R
        return _measures_of(d, s, nd, ns, n_keys, dkeys, not_t, target_had_na, usetargetNA,
                            use_na, triples, over_lim, denom_lim, fix)


def _measures_of(
    d: _Table, s: _Table, nd: int, ns: int, n_keys: int, dkeys: list[str],
    not_t: list[str], target_had_na: bool, usetargetNA: bool, use_na: list[bool],
    triples: list[tuple[str, str, str]], over_lim: bool, denom_lim: int, fix: bool,
) -> dict:
    D, S = d.counts.astype(float), s.counts.astype(float)
    pd_, ps = _proportions(D), _proportions(S)
    s_present = S.sum(axis=0) > 0
    tables = {
        "original": D.copy(),
        "synthetic": S.copy(),
        "Dorig": np.where(pd_ == 1, D, 0.0),
        "Dsyn": np.where(ps == 1, S, 0.0),
        "iS": np.where(s_present[None, :], D, 0.0),
        "DiS": np.where((ps == 1).any(axis=0)[None, :], D, 0.0),
    }
    tables["DiSCO"] = np.where(ps == 1, tables["iS"], 0.0)
    tables["DiSDiO"] = np.where(pd_ == 1, tables["DiSCO"], 0.0)
    names = {k: (s if k in ("synthetic", "Dsyn") else d) for k in TABLES}
    nex = np.zeros((len(TABLES), len(EXCLUSION_COLUMNS)))

    def zero(step: int, mask_of) -> None:
        for i, k in enumerate(TABLES):
            mask = mask_of(names[k], tables[k])
            nex[i, step] += tables[k][mask].sum()
            tables[k][mask] = 0.0

    def rows_named(levels):
        return lambda t, _: np.isin(np.array(t.rows, dtype=object), levels)[:, None] & \
            np.ones((1, len(t.cols)), bool)

    def cols_where(pred):
        return lambda t, _: np.ones((len(t.rows), 1), bool) & np.array(
            [pred(_fields(c, n_keys)) for c in t.cols], dtype=bool)[None, :]

    if not_t:
        zero(0, rows_named(not_t))
    if not usetargetNA and target_had_na:
        zero(1, rows_named([MISSING]))
    for i, use in enumerate(use_na):
        if not use:
            zero(2, cols_where(lambda f, i=i: f[i] == MISSING))
    for key, keylev, targetlev in triples:
        i = dkeys.index(key)
        zero(3, lambda t, _, i=i, kl=str(keylev), tl=str(targetlev):
             np.array([r == tl for r in t.rows], bool)[:, None]
             & np.array([_fields(c, n_keys)[i] == kl for c in t.cols], bool)[None, :])
    if over_lim:
        zero(4, lambda t, values: values > denom_lim)
    for i, k in enumerate(TABLES):
        nex[i, 5] = tables[k].sum()
    target_excluded = bool(nex[:2, [0, 1, 3, 4]].sum() > 0)

    Dx, Sx = tables["original"], tables["synthetic"]
    if fix:  # identity from the keys alone: only the usekeysNA exclusions
        def key_only(t: _Table, values: np.ndarray) -> np.ndarray:
            out = values.copy()
            for i, use in enumerate(use_na):
                if not use:
                    out[:, [_fields(c, n_keys)[i] == MISSING for c in t.cols]] = 0.0
            return out

        ident_d, ident_s = key_only(d, D), key_only(s, S)
        nd_, ns_ = Dx.sum(), Sx.sum()
        ident_nd, ident_ns = ident_d.sum(), ident_s.sum()
    else:
        ident_d, ident_s = Dx, Sx
        nd_, ns_ = ident_nd, ident_ns = np.float64(nd), np.float64(ns)
    # R's forms: count / N * 100; sum(), colSums() and rowSums() accumulate in long double
    dq, sq = _colsums(ident_d), _colsums(ident_s)
    ident = {
        "UiO": float((dq == 1).sum()) / ident_nd * 100,
        "UiS": float((sq == 1).sum()) / ident_ns * 100,
        "UiOiS": float(((dq == 1) & s_present).sum()) / ident_nd * 100,
        "repU": float(((dq == 1) & (sq == 1)).sum()) / ident_nd * 100,
    }
    disco = tables["DiSCO"]
    nonzero = disco[disco > 0]
    attrib = {
        "Dorig": _rsum(tables["Dorig"]) / nd_ * 100,
        "Dsyn": _rsum(tables["Dsyn"]) / ns_ * 100,
        "iS": _rsum(tables["iS"]) / nd_ * 100,
        "DiS": _rsum(tables["DiS"]) / nd_ * 100,
        "DiSCO": _rsum(disco) / nd_ * 100,
        "DiSDiO": _rsum(tables["DiSDiO"]) / nd_ * 100,
        "max_denom": float(disco.max()) if disco.size else 0.0,
        "mean_denom": _rmean(nonzero),
    }
    pdx, psx = _proportions(Dx), _proportions(Sx)
    dqx, sqx = _colsums(Dx), _colsums(Sx)
    row_totals = _colsums(D.T)
    caps = {
        "baseCAPd": 100 * _rsum((row_totals / nd) ** 2),
        "CAPd": _rsum(_colsums(pdx**2) * dqx) / nd_ * 100,
        "CAPs": _rsum(_colsums(psx**2) * sqx) / ns_ * 100,
        "DCAP": _rsum(_colsums(psx * Dx)) / nd_ * 100,
        "TCAP": float(_rsum(disco) / np.float64(_rsum(dqx[sqx > 0])) * 100),
    }
    return {
        "ident": ident, "attrib": attrib, "allCAPs": caps, "Nexclusions": nex,
        "tables": tables, "d": d, "s": s, "target_excluded": target_excluded,
    }


def _check_1way(p: dict, thresh: Sequence[float]) -> pd.DataFrame | None:
    disco = p["tables"]["DiSCO"]
    by_level = disco.sum(axis=1)
    total = disco.sum()
    if total == 0:
        return None
    order = sorted(range(len(by_level)), key=lambda i: -by_level[i])
    top = order[0]
    share = by_level[top] / total * 100
    if not (by_level[top] > thresh[0] and share > thresh[1]):
        return None
    level = p["d"].rows[top]
    d = p["tables"]["original"]
    all_ = d.sum()
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


def _check_2way(
    p: dict, orig_t: _Factor, orig_k: list[_Factor], dkeys: list[str],
    thresh: Sequence[float],
) -> pd.DataFrame | None:
    d, disco = p["d"], p["tables"]["DiSCO"]
    n_keys = len(dkeys)
    cells = np.argwhere(disco > thresh[0])
    pieces = []
    for i, key in enumerate(dkeys):
        counts: dict[str, int] = {}
        for r, c in cells:
            pair = f"{d.rows[r]}|{_fields(d.cols[c], n_keys)[i]}"
            counts[pair] = counts.get(pair, 0) + int(disco[r, c])
        for pair in sorted(counts):
            pieces.append((pair, counts[pair], key))
    if not pieces:
        return None
    t_labels = orig_t.labels()
    rows = []
    for idx, (pair, n, key) in enumerate(pieces, start=1):
        tl, kl = pair.split("|", 1)
        k_labels = orig_k[dkeys.index(key)].labels()
        in_key = k_labels == kl
        key_total = float(in_key.sum())
        ktt = float((in_key & (t_labels == tl)).sum())
        rows.append((str(idx), pair, n, key, ktt, key_total, 100 * ktt / key_total))
    order = sorted(range(len(rows)), key=lambda i: -rows[i][2])
    kept = [rows[i] for i in order if rows[i][6] > thresh[1]]
    if not kept:
        return None
    return pd.DataFrame(
        {
            "target_key_levs": pd.Categorical(
                [r[1] for r in kept], categories=list(dict.fromkeys(r[1] for r in rows))),
            "npairs": np.array([r[2] for r in kept], dtype=np.int32),
            "key": [r[3] for r in kept],
            "key_target_total": [r[4] for r in kept],
            "key_total": [r[5] for r in kept],
            "PctTargetKeyLevel": [r[6] for r in kept],
        },
        index=pd.Index([r[0] for r in kept]),
    )


def _assemble(per: list[dict], dkeys: list[str], tname: str, nd: int, tf, orig_t) -> dict:
    m = len(per)
    index = pd.Index([str(j + 1) for j in range(m)])
    out: dict = {
        name: pd.DataFrame([p[name] for p in per], index=index)
        for name in ("ident", "attrib", "allCAPs")
    }
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
    out["Nexclusions"] = [
        pd.DataFrame(p["Nexclusions"], index=list(TABLES), columns=list(EXCLUSION_COLUMNS))
        for p in per
    ]
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
    repU only (corrected: the mean over the m syntheses), and ``exclude.keylevs`` is replaced
    by ``exclude.targetlevs`` (corrected: ``exclude_keylevs`` is used).
    """
    fix = quirks == "corrected"
    syn = list(syn)
    key_names = resolve_columns(data, keys, "keys")
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
            thresh_2way=thresh_2way, quirks=quirks, warn=False,
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


# ====================================================================== R's printing
def _r_round(x: float, digits: int) -> float:
    return float(np.round(x, digits)) if math.isfinite(x) else x


def _column_texts(values: Sequence[object]) -> list[str]:
    """One data-frame column as ``print.data.frame`` writes it (numbers with 7 digits)."""
    if all(v is None or isinstance(v, (int, float, np.integer, np.floating))
           and not isinstance(v, bool) for v in values):
        nums = [None if v is None else float(v) for v in values]  # type: ignore[arg-type]
        _, decimals, scientific = _format_real([v for v in nums if v is not None], 7)
        return ["NA" if v is None else _write(v, decimals, scientific) for v in nums]
    return ["NA" if v is None or v is pd.NA else str(v) for v in values]


def r_print_frame(frame: pd.DataFrame, width: int = 80) -> list[str]:
    """Lines of R's ``print()`` of a data frame or matrix (columns right-aligned, row names
    left-aligned, wrapped at ``width`` characters)."""
    rows = [str(r) for r in frame.index]
    rw = max([len(r) for r in rows] + [0])
    cols = []
    for c in frame.columns:
        texts = _column_texts(list(frame[c]))
        w = max([len(str(c))] + [len(t) for t in texts])
        cols.append((str(c).rjust(w), [t.rjust(w) for t in texts]))
    lines: list[str] = []
    i = 0
    while i < len(cols) or (i == 0 and not cols):
        block: list[Any] = []
        used = rw
        while i < len(cols) and (not block or used + 1 + len(cols[i][0]) <= width):
            block.append(cols[i])
            used += 1 + len(cols[i][0])
            i += 1
        lines.append(" " * rw + "".join(" " + h for h, _ in block))
        for r, name in enumerate(rows):
            lines.append(name.ljust(rw) + "".join(" " + t[r] for _, t in block))
        if not cols:
            break
    return lines


def _rounded(frame: pd.DataFrame, digits: int) -> pd.DataFrame:
    return frame.apply(lambda col: [_r_round(float(v), digits) for v in col])


_CHECK1_TEXT = [
    "Please add 'check_1way' to to.print (e.g. print(disclosure_result, to.print = "
    "'check_1way'),",
    "and look at original data to decide if backround knowledge would make this disclosure "
    "likely",
    "Consider excluding this level with the not.targetlev parameter to the disclosure "
    "function.",
    "",
    "",
]
_CHECK2_TEXT = [
    "",
    "Please examine component $check_2way of the disclosure object and look at original data.",
    "Consider excluding these key-target pairs with some the following parameters to "
    "disclosure:",
    "exclude_ov_denom_lim = TRUE or defining key-target combinations from exclude.targetlevs,",
    "exclude.keys and exclude.keylevs",
    "",
]
TO_PRINT = ("short", "ident", "attrib", "allCAPs", "check_1way", "check_2way", "exclusions",
            "all")


def format_disclosure(x: dict, to_print: Sequence[str] | str | None = None,
                      digits: int | None = None) -> str:
    """The text of synthpop's ``print.disclosure`` (the ``"all"`` option leaves out R's line
    showing the call, which has no Python form)."""
    tp = list([to_print] if isinstance(to_print, str) else (to_print or [x["to.print"]]))
    bad = [t for t in tp if t not in TO_PRINT]
    if bad:
        raise ValueError(f"to_print: {bad} not among {list(TO_PRINT)}")
    if "short" in tp and len(tp) > 1:
        raise ValueError("to_print: 'short' must be used alone")
    if "all" in tp:
        tp = tp + ["ident", "attrib", "allCAPs"]
    dg = x["digits"] if digits is None else digits
    keys = " ".join(x["keys"])
    target = x["target"]
    out = [f"Disclosure measures from synthesis for {x['Norig']} records in original data.", ""]
    excluded = any(float(n.iloc[:, :5].to_numpy().sum()) > 0 for n in x["Nexclusions"])
    if excluded:
        out += [
            "Some records excluded from the evaluation of disclosure risks",
            "See details by adding 'exclusions' to the parameter to.print of disclosure,",
            "    or by printing the details with to,print including 'exclusions'.",
        ]
    m = len(x["ident"])
    if "short" in tp:
        short = pd.DataFrame(
            {
                "Identity (UiO/repU)": [x["ident"]["UiO"].iloc[0], *x["ident"]["repU"]],
                "Attrib (Dorig/DiSCO)": [x["attrib"]["Dorig"].iloc[0], *x["attrib"]["DiSCO"]],
            },
            index=["Original"] + [f"Synthesis {j + 1}" for j in range(m)],
        )
        out += [f"Identity  measures for keys {keys} ",
                f"and attribute measures for {target} from the same keys"]
        out += r_print_frame(_rounded(short, dg)) + [""]
    if "ident" in tp:
        out += [f"Identity disclosure measures for {m} synthetic data set(s) from keys:",
                f" {keys} ", ""]
        out += r_print_frame(_rounded(x["ident"], dg)) + [""]
    if "attrib" in tp:
        out += [f"Attribute disclosure measures for {target} from keys: {keys} "]
        out += r_print_frame(_rounded(x["attrib"], dg)) + [""]
    if "allCAPs" in tp:
        out += [f"CAP measures for the target {target} with keys", f"{keys} ", ""]
        out += r_print_frame(_rounded(x["allCAPs"], dg)) + [""]
    if "check_1way" in tp:
        out += ["Details of target level contributing disproportionately to disclosure"]
        out += _print_list(x["check_1way"]) + [""]
    elif x["check1"]:
        out += [f"The 1 way distributions of {target} has a large contribution to disclosure "
                f"from level {x['check1']} "] + _CHECK1_TEXT
    if "check_2way" in tp:
        c2 = x["check_2way"]
        dims = f" {c2.shape[0]} {c2.shape[1]}" if isinstance(c2, pd.DataFrame) else ""
        out += ["Details of target-key combinations contributing disproportionately to "
                "disclosure", f"This is a list with one for each of{dims} syntheses"]
        out += _print_list(c2)
    elif x["check2"]:
        out += [f"Details of target-key pairs contributing disproportionately to disclosure "
                f"of {target} ", f"{x['check2']} "] + _CHECK2_TEXT
    if "exclusions" in tp:
        for j, n in enumerate(x["Nexclusions"]):
            out += ["", f"Records excluded from attribute exclusion measures for synthesis "
                    f"{j + 1} "] + r_print_frame(n)
    return "\n".join(out)


def _print_list(value: object) -> list[str]:
    """R's print of a data frame, or of a list of data frames and ``""`` strings."""
    if isinstance(value, pd.DataFrame):
        return r_print_frame(value)
    out = []
    for j, item in enumerate(cast(Iterable[Any], value)):
        out.append(f"[[{j + 1}]]")
        out += r_print_frame(item) if isinstance(item, pd.DataFrame) else [f'[1] "{item}"']
        out.append("")
    return out


# ====================================================================== R-shaped results
class DisclosureList(dict):
    """synthpop's ``disclosure`` object: a dict with R's component names; printing follows
    ``print.disclosure`` (:meth:`print` takes ``to_print`` and ``digits``)."""

    def __repr__(self) -> str:
        return format_disclosure(self)

    def print(self, to_print: Sequence[str] | str | None = None,
              digits: int | None = None) -> None:
        """Print like R's ``print(x, to.print = , digits = )``."""
        print(format_disclosure(self, to_print, digits))


class MultiDisclosureList(dict):
    """synthpop's ``multi.disclosure`` object (a dict with R's component names)."""

    def __repr__(self) -> str:
        x = self
        dg = x["digits"]
        table = x["attrib.table"].copy()
        for c in ("attrib.orig", "attrib.syn"):  # NaN here is R's NA (a mean of nothing)
            table[c] = pd.Series([None if math.isnan(v) else _r_round(v, dg)
                                  for v in table[c]], index=table.index, dtype=object)
        lines = [
            f"Disclosure risk for {x['Norig']} records in the original data",
            f"Results are averaged over {x['m']} syntheses",
            "Identity disclosure measures",
            f"from keys: {' '.join(x['keys'])} ",
            f"For original  ( UiO )  {_cat_number(_r_round(x['ident.orig'][0], dg))} %",
            f"For synthetic ( {x['ident.meas']} ) "
            f"{_cat_number(_r_round(x['ident.syn'][0], dg))} %.",
            "",
            f"Table of attribute disclosure measures for {' '.join(x['keys'])} ",
            f"Original measure is  {'CAPd' if x['attrib.meas'] == 'DCAP' else 'Dorig'} and "
            f"synthetic measure is {x['attrib.meas']} ",
            "Variables Ordered by synthetic disclosure measure",
            "",
        ]
        return "\n".join(lines + r_print_frame(table))


class RepUniqList(dict):
    """synthpop's ``replicated.uniques`` object (a dict with R's component names)."""

    def __repr__(self) -> str:
        x = self
        lines = [f"Uniques and replicated uniques for  {x['m']}  synthesised data set(s)", "",
                 f" from keys:  {' '.join(x['keys'])} ", ""]
        if x["m"] == 1:
            lines += r_print_frame(x["res_tab"])
        else:
            lines += _print_list(x["res_tab"])
        lines += ["To view possible exclusions from synthesised data set(s) check components",
                  "  synU.rm (suggested for low-fidelity synthesis) or  repU.rm (for high "
                  "fidelity)"]
        return "\n".join(lines)


def _cat_number(v: float) -> str:
    """A number as R's ``cat()`` writes it (7 significant digits; NA for a missing one)."""
    if math.isnan(v):
        return "NA"
    _, decimals, scientific = _format_real([v], 7)
    return _write(v, decimals, scientific)


def _synorig_changes(syn: pd.DataFrame, data: pd.DataFrame) -> list[str]:
    """What synthpop's ``synorig.compare`` would change (empty: nothing)."""
    changes = []
    extra = [c for c in syn.columns if c not in data.columns]
    if extra:
        changes.append(f"synthetic columns {extra} are not in data")
    for c in [c for c in syn.columns if c in data.columns]:
        a, b = syn[c], data[c]
        for where, s in (("synthetic", a), ("original", b)):
            if not (is_r_numeric(s) or isinstance(s.dtype, pd.CategoricalDtype)):
                changes.append(f"{c!r} is turned from character into a factor in the {where}")
        if is_r_numeric(a) != is_r_numeric(b):
            changes.append(f"{c!r} is numeric in one data set and not in the other")
        elif isinstance(a.dtype, pd.CategoricalDtype) and isinstance(b.dtype, pd.CategoricalDtype):
            if list(a.cat.categories) != list(b.cat.categories):
                changes.append(f"levels of {c!r} differ between synthetic and original")
    return changes


def _data_frame_method(object: object, data: pd.DataFrame, compare_synorig: bool,
                       print_out: bool = True) -> list[pd.DataFrame]:
    """The synthetic frames after the data.frame/list method's ``synorig.compare`` step."""
    frames = synthetic_frames(object, "object")
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if not compare_synorig:
        return frames
    changes = _synorig_changes(frames[0], data)
    if not changes:
        if print_out:
            print("Synthetic and original data checked with synorig.compare,\n"
                  " looks like no adjustment needed\n")
        return frames
    fixable = all("from character into a factor" in c for c in changes)
    if not fixable:
        raise ValueError(
            "synorig.compare would adjust the data sets (" + "; ".join(changes) + "); make "
            "the synthetic and original columns agree (same columns, dtypes and categories) "
            "or pass compare_synorig=False"
        )
    if len(frames) > 1:
        _quirk("compare.synorig keeps one synthesis", "synorig.compare converted character "
               f"columns ({'; '.join(changes)}) and only the first of the {len(frames)} "
               "synthetic data sets is used")
    return frames[:1]


def _synds_cont_na(object: object, cont_na: dict | None) -> dict | None:
    if cont_na is not None:
        return cont_na
    settings = getattr(object, "settings", None) or {}
    return settings.get("cont.na") or settings.get("cont_na")


def _dispatch(object: object, data: pd.DataFrame, cont_na: dict | None,
              compare_synorig: bool) -> tuple[list[pd.DataFrame], dict | None]:
    """synthpop's S3 dispatch: a DataFrame is the data.frame method, anything else synds."""
    if isinstance(object, pd.DataFrame):
        return _data_frame_method(object, data, compare_synorig), cont_na
    return synthetic_frames(object, "object"), _synds_cont_na(object, cont_na)


def _print_progress(res: dict, target: str) -> None:
    for j, p in enumerate(res["_tables"]):
        (r0, c0), (r1, c1) = p["dims"]
        print(f"-------------------Synthesis {j + 1} --------------------")
        print(f"Table for target {target} from GT alone with keys has {r0} rows {c0} colums.")
        print(f"Table for target  {target} from GT & SD with all key combinations has {r1} "
              f"rows {c1} colums.")


def disclosure(
    object: pd.DataFrame | Sequence[pd.DataFrame],
    data: pd.DataFrame,
    keys: str | int | Sequence[str | int],
    target: str | int,
    *,
    cont_na: dict[str, Sequence[float]] | None = None,
    print_flag: bool = True,
    denom_lim: int = 5,
    exclude_ov_denom_lim: bool = False,
    not_targetlev: str | Sequence[str] | None = None,
    usetargetNA: bool = True,
    usekeysNA: bool | Sequence[bool] = True,
    exclude_keys: str | Sequence[str] | None = None,
    exclude_keylevs: str | Sequence[str] | None = None,
    exclude_targetlevs: str | Sequence[str] | None = None,
    ngroups_target: int | None = None,
    ngroups_keys: int | Sequence[int] | None = None,
    thresh_1way: Sequence[float] = (50, 90),
    thresh_2way: Sequence[float] = (4, 80),
    digits: int = 2,
    to_print: str | Sequence[str] = "short",
    compare_synorig: bool = True,
) -> DisclosureList:
    """synthpop 1.9-3's ``disclosure()``: R's arguments (``.`` written ``_``) and defaults.

    ``object`` is one synthetic DataFrame (synthpop's ``data.frame`` method, m = 1, with
    ``compare_synorig``) or a list of them / a :class:`~idrisk.SyntheticData` (the ``synds``
    method with m = its length; ``cont_na`` then plays ``object$cont.na``). The result is a
    dict with synthpop's components (``ident``, ``attrib``, ``allCAPs``, ``check_1way``,
    ``check1``, ``check_2way``, ``check2``, ``Nexclusions``, ``keys``, ``target``, ``Norig``,
    ``digits``, ``to.print``) equal to synthpop's when R runs with ``LC_COLLATE=C`` (level
    names are sorted by code point). Its ``repr`` is ``print.disclosure``'s text.

    Where synthpop's numbers come from a quirk of its code, they are reproduced and a
    :class:`SynthpopQuirkWarning` names the quirk (see :func:`disclosure_tables`).

    Examples
    --------
    >>> import pandas as pd
    >>> from idrisk.r import disclosure
    >>> ods = pd.DataFrame({"sex": pd.Categorical(["F", "F", "M", "M"]),
    ...                     "smoke": pd.Categorical(["no", "yes", "no", "no"])})
    >>> syn = ods.assign(smoke=pd.Categorical(["no", "no", "no", "no"]))
    >>> d = disclosure([syn], ods, keys="sex", target="smoke", print_flag=False)
    >>> d["attrib"][["Dorig", "DiSCO"]]
       Dorig  DiSCO
    1   50.0   75.0
    >>> print(repr(d).splitlines()[0])
    Disclosure measures from synthesis for 4 records in original data.
    """
    frames, cont_na = _dispatch(object, data, cont_na, compare_synorig)
    if isinstance(to_print, str):
        to_print = [to_print]
    bad = [t for t in to_print if t not in TO_PRINT]
    if bad:
        raise ValueError(f"to_print: {bad} not among {list(TO_PRINT)}")
    res = disclosure_tables(
        frames, data, keys, target, cont_na=cont_na, denom_lim=denom_lim,
        exclude_ov_denom_lim=exclude_ov_denom_lim, not_targetlev=not_targetlev,
        usetargetNA=usetargetNA, usekeysNA=usekeysNA, exclude_keys=exclude_keys,
        exclude_keylevs=exclude_keylevs, exclude_targetlevs=exclude_targetlevs,
        ngroups_target=ngroups_target, ngroups_keys=ngroups_keys, thresh_1way=thresh_1way,
        thresh_2way=thresh_2way,
    )
    if print_flag:
        _print_progress(res, res["target"])
    res.pop("_tables")
    out = DisclosureList(res)
    out["digits"] = digits
    out["to.print"] = to_print[0] if len(to_print) == 1 else list(to_print)
    return out


def multi_disclosure(
    object: pd.DataFrame | Sequence[pd.DataFrame],
    data: pd.DataFrame,
    keys: str | int | Sequence[str | int],
    targets: str | Sequence[str] | None = None,
    *,
    cont_na: dict[str, Sequence[float]] | None = None,
    print_flag: bool = True,
    denom_lim: int = 5,
    exclude_ov_denom_lim: bool = False,
    not_targetslev: str | Sequence[str] | None = None,
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
    digits: int = 2,
    plot: bool = True,
    compare_synorig: bool = True,
) -> MultiDisclosureList:
    """synthpop 1.9-3's ``multi.disclosure()``: :func:`disclosure` for several targets and
    the summary table ``attrib.table`` (R's arguments, ``.`` written ``_``).

    ``object`` as in :func:`disclosure`. synthpop's data.frame/list method treats a list of
    frames as one data set; here a list is the synds method with m = its length. ``plot``
    is accepted for R's signature; draw the plot with
    :meth:`idrisk.risk.DisclosureSummary.plot`. The components ``output.list``
    (disclosure results by target) hold :class:`DisclosureList` objects. Quirks reproduced:
    ``ident.syn`` is synthesis 1's value; ``exclude_keylevs`` is never used (synthpop
    passes ``exclude_targetlevs`` in its place).

    Examples
    --------
    >>> import pandas as pd
    >>> from idrisk.r import multi_disclosure
    >>> ods = pd.DataFrame({"sex": pd.Categorical(["F", "F", "M", "M"]),
    ...                     "smoke": pd.Categorical(["no", "yes", "no", "no"]),
    ...                     "sport": pd.Categorical(["y", "n", "n", "y"])})
    >>> md = multi_disclosure([ods], ods, keys="sex", print_flag=False)
    >>> md["attrib.table"][["attrib.orig", "attrib.syn"]]
             attrib.orig  attrib.syn
    1 sport          0.0         0.0
    2 smoke         50.0        50.0
    """
    frames, cont_na = _dispatch(object, data, cont_na, compare_synorig)
    res = multi_disclosure_tables(
        frames, data, keys, targets, cont_na=cont_na, denom_lim=denom_lim,
        exclude_ov_denom_lim=exclude_ov_denom_lim, not_targetslev=not_targetslev,
        usetargetsNA=usetargetsNA, usekeysNA=usekeysNA, exclude_keys=exclude_keys,
        exclude_keylevs=exclude_keylevs, exclude_targetlevs=exclude_targetlevs,
        ngroups_targets=ngroups_targets, ngroups_keys=ngroups_keys, ident_meas=ident_meas,
        attrib_meas=attrib_meas, thresh_1way=thresh_1way, thresh_2way=thresh_2way,
    )
    outputs = {}
    for i, (t, r) in enumerate(res["output.list"].items(), start=1):
        if print_flag:
            print(f"------------------ {i} {t} ------------------- ")
            _print_progress(r, t)
        r = DisclosureList({k: v for k, v in r.items() if k != "_tables"})
        r["digits"], r["to.print"] = digits, "short"
        outputs[t] = r
    res["output.list"] = outputs
    out = MultiDisclosureList(res)
    out["digits"] = digits
    out["plot"] = plot
    return out


def replicated_uniques(
    object: pd.DataFrame | Sequence[pd.DataFrame],
    data: pd.DataFrame,
    keys: str | Sequence[str] | None = None,
) -> RepUniqList:
    """synthpop 1.9-3's ``replicated.uniques()`` (``keys`` defaults to all columns of
    ``data``): ``res_tab`` (a DataFrame for m = 1, a list for m > 1), ``repU.rm`` and
    ``synU.rm`` (boolean arrays, length k or k x m), ``m``, ``n``, ``k``, ``keys``.

    Quirks reproduced (with a :class:`SynthpopQuirkWarning`): with several keys, numeric
    columns are compared as text formatted to a common width within each data set; with one
    key no synthetic unique counts as present in the original, and for m = 1 ``repU.rm`` is
    all False.

    Examples
    --------
    >>> import pandas as pd
    >>> from idrisk.r import replicated_uniques
    >>> ods = pd.DataFrame({"sex": ["F", "F", "M"], "age": [30, 40, 30]})
    >>> syn = pd.DataFrame({"sex": ["F", "M", "M"], "age": [30, 30, 50]})
    >>> replicated_uniques([syn], ods)["res_tab"]
                                   Number  from total       %
    Original                          3.0         3.0  100.00
    Synthetic                         3.0         3.0  100.00
    Synthetic uniques in original     2.0         3.0   66.67
    Replicated uniques                2.0         3.0   66.67
    """
    return RepUniqList(replicated_uniques_tables(synthetic_frames(object, "object"), data, keys))
