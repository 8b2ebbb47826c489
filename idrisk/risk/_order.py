"""The sort order of float64 values through numpy's sort of 64-bit integers.

:func:`value_order` returns exactly ``np.argsort(v, kind="stable")``: the rows in value order,
equal values in row order, NaN last. It costs a sort of n integers where numpy's float argsort
sorts n (value, index) pairs, 2-4 times longer on machines whose numpy sorts with AVX-512.

How. Each value becomes a 64-bit key whose unsigned order is the values' order (the sign bit
flipped for positive values, every bit flipped for negative ones; -0.0 taken as 0.0, NaN as
the largest key). The key's low ``b`` bits (``b`` = bits of ``n - 1``) are replaced by the
row, so numpy sorts plain integers and the rows fall out of the sorted keys. Keys that differ
in their high bits keep the values' order. Rows whose high bits agree form a run: values equal
(ties, kept in row order, as a stable sort keeps them), or values that differ only in the
dropped bits, relatively closer than ``2 ** -(63 - b - 11)``. Each run is checked on its values
and sorted by them (stably) where they are out of order, so the result is exact whatever the
values; a run costs at most a sort of its own length. With groups, the group takes the key's
top bits and the value the bits below it: the rows come out by (group, value, row).
"""

from __future__ import annotations

import numpy as np

from .._numba import jit as _jit

__all__ = ["key", "rows_of", "value_order"]

#: below this many values numpy's stable argsort is taken (it costs less than two kernel calls)
ORDER_MIN_VALUES = 256

#: the fewest bits of a value's key kept beside a group's and a row's: more than the sign and
#: exponent (13), so that NaN's runs hold NaN only, and few runs to sort again
VALUE_MIN_BITS = 24

_NO_GROUP = np.zeros(0, dtype=np.int64)


@_jit
def key(x, bits, group, group_bits, shift, row):
    """The order-preserving key of value ``x`` (``bits``: its bits as uint64), below its
    group's ``group_bits`` (none when 0), its low ``shift`` bits replaced by its ``row``."""
    sign = np.uint64(1) << np.uint64(63)
    if np.isnan(x):
        k = ~np.uint64(0)
    elif x == 0.0:  # -0.0 == 0.0: one key (a stable sort keeps them in row order)
        k = sign
    else:
        k = ~bits if bits & sign else bits | sign
    if group_bits > 0:
        gb = np.uint64(group_bits)
        k = (np.uint64(group) << (np.uint64(64) - gb)) | (k >> gb)
    return (k & ~((np.uint64(1) << np.uint64(shift)) - np.uint64(1))) | np.uint64(row)


@_jit
def _keys(v, bits, group, group_bits, shift, out):
    """Each value's :func:`key` (its row: its index)."""
    for i in range(v.shape[0]):
        out[i] = key(v[i], bits[i], group[i] if group_bits > 0 else 0, group_bits, shift, i)


@_jit
def rows_of(keys, shift, v):
    """The sorted keys' rows, in place (as int64), each run of equal high bits sorted stably
    by value where it is out of order."""
    low = (np.uint64(1) << np.uint64(shift)) - np.uint64(1)
    rows = keys.view(np.int64)
    n = keys.shape[0]
    start = 0
    while start < n:
        prefix = keys[start] >> np.uint64(shift)
        end = start + 1
        while end < n and keys[end] >> np.uint64(shift) == prefix:
            end += 1
        for q in range(start, end):
            rows[q] = np.int64(keys[q] & low)
        ordered = True
        for q in range(start + 1, end):  # (NaN runs hold NaN only: never "out of order")
            if v[rows[q]] < v[rows[q - 1]]:
                ordered = False
                break
        if not ordered:  # rows ascending within the run: a stable sort keeps ties in row order
            run = rows[start:end].copy()
            by_value = np.argsort(v[run], kind="mergesort")
            for t in range(end - start):
                rows[start + t] = run[by_value[t]]
        start = end
    return rows


def value_order(v: np.ndarray, group: np.ndarray | None = None) -> np.ndarray:
    """``np.argsort(v, kind="stable")`` of a 1-D float64 array (int64), by numpy's integer sort
    (see the module's notes); with ``group`` (integers >= 0, one per value),
    ``np.lexsort((v, group))``: by group, then value.

    The group takes the key's top bits (as many as the largest group needs); when the group's
    and the row's bits leave fewer than :data:`VALUE_MIN_BITS` of the value, the rows are
    sorted by value, then stably by group.

    Examples
    --------
    >>> import numpy as np
    >>> from idrisk.risk._order import value_order
    >>> v = np.array([2.5, -1.0, np.nan, 0.0, -0.0, 2.5])
    >>> value_order(v).tolist()
    [1, 3, 4, 0, 5, 2]
    >>> value_order(v, group=np.array([1, 1, 0, 0, 1, 0])).tolist()
    [3, 5, 2, 1, 4, 0]
    """
    v = np.ascontiguousarray(v, dtype=np.float64)
    n = len(v)
    shift = max(1, (n - 1).bit_length())
    group_bits = 0
    if group is not None:
        group = np.ascontiguousarray(group, dtype=np.int64)
        group_bits = int(group.max(initial=0)).bit_length()
        if n < ORDER_MIN_VALUES or 64 - group_bits - shift < VALUE_MIN_BITS:
            rows = value_order(v)
            return rows[np.argsort(group[rows], kind="stable")]
    elif n < ORDER_MIN_VALUES:
        return np.argsort(v, kind="stable")
    keys = np.empty(n, dtype=np.uint64)
    _keys(v, v.view(np.uint64), group if group is not None else _NO_GROUP, group_bits, shift,
          keys)  # fmt: skip
    keys.sort()
    return rows_of(keys, shift, v)
