r"""R's text: how base R writes numbers and prints data frames (R 4.2).

Numbers become text in three places, each with a rule of base R:

* ``as.character`` of a double (and ``factor(x)``'s level names) -- 15 significant digits,
  fixed or scientific, whichever is narrower (:func:`r_label`: ``1e+05``, ``123456.7``);
* ``cut(..., dig.lab = 8)`` writes interval bounds with C's ``%.8g`` (:func:`cut_labels`);
* ``as.matrix`` of a data frame with a non-numeric column ``format()``\ s each numeric column
  -- 7 significant digits, common decimals and width (:func:`r_format`: ``" -8"``, ``" NA"``).

and :func:`r_print_frame` writes R's ``print()`` of a data frame. This is the package's one
``as.character``: :func:`idrisk._schema.r_label` is this module's :func:`r_label`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from ._rround import r_round_one

__all__ = ["cut_labels", "r_format", "r_label", "r_labels", "r_print_frame"]


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


def r_label(value: object) -> str:
    """R's ``as.character`` of a value (R 4.2): booleans ``TRUE``/``FALSE``, numbers with 15
    significant digits in fixed notation unless scientific is narrower (``1e5`` -> ``"1e+05"``),
    anything else ``str``.

    Examples
    --------
    >>> [r_label(v) for v in (1e5, 123456.0, 0.1 + 0.2, 1 / 3, 1e15, 2.0, 0.001, 1e-4, -1.5)]
    ['1e+05', '123456', '0.3', '0.333333333333333', '1e+15', '2', '0.001', '1e-04', '-1.5']
    >>> [r_label(v) for v in (100000.0, 123456.7, 0.1, -8.0, 2.5, 99999.99999999999)]
    ['1e+05', '123456.7', '0.1', '-8', '2.5', '1e+05']
    >>> r_label(True), r_label("x"), r_label(float("nan"))
    ('TRUE', 'x', 'NaN')
    """
    if isinstance(value, (bool, np.bool_)):
        return "TRUE" if value else "FALSE"
    if not isinstance(value, (int, float, np.integer, np.floating)):
        return str(value)
    x = float(value)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    if x == 0:
        return "0"
    # 15 significant digits; fixed unless scientific is narrower (checked against R 4.2 on
    # 6,000 values, 99999.99999999999 -> "1e+05" included, where formatReal's
    # rounding-widens rule would print "100000")
    mantissa, exponent = f"{x:.14e}".split("e")
    nsig = len(mantissa.lstrip("-").replace(".", "").rstrip("0")) or 1
    kpower = int(exponent)
    neg = int(x < 0)
    sci_width = neg + (nsig + 1 if nsig > 1 else 1) + (4 if abs(kpower) < 100 else 5)
    if kpower >= 0:
        left, right = kpower + 1, max(0, nsig - kpower - 1)
    else:
        left, right = 1, nsig - kpower - 1
    fixed_width = neg + left + (right + 1 if right > 0 else 0)
    if fixed_width <= sci_width:
        return f"{x:.{right}f}"
    return f"{x:.{nsig - 1}e}"


def r_labels(values: np.ndarray) -> list[str]:
    """Labels R gives the values of a numeric vector: integers plainly, doubles by
    :func:`r_label`."""
    if np.issubdtype(values.dtype, np.integer):
        return [str(int(v)) for v in values]
    return [r_label(float(v)) for v in values]


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


# ====================================================================== R's printing
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
    return frame.apply(lambda col: [r_round_one(v, digits) for v in col])


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
