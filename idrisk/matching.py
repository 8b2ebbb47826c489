"""Counting engine: c_i (matches of target i) and T_i (own row matches) for one synthetic dataset.

The R package compares every target with every synthetic record, O(n^2) per dataset. Here:

* categorical variables (and every variable when ``r`` is None) are folded into one integer
  *group key*; a target can only match synthetic records of its own key;
* one continuous variable: the synthetic values are sorted within groups and c_i is a difference
  of two binary searches, O(n log n);
* several continuous variables: the variable whose intervals hold the fewest candidates is used
  for the binary search and the candidates are checked on the other variables, vectorised and in
  bounded chunks.

Comparisons are the same floating-point comparisons the R package makes, so counts are exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["MatchRule", "KeyEncoder", "half_widths", "interval_bounds", "count_matches"]

_CHUNK = 1 << 22  # candidate pairs checked at once (bounds memory to a few hundred MB)


@dataclass(frozen=True)
class MatchRule:
    """How a synthetic value is compared with a target's interval.

    Parameters
    ----------
    closed
        ``lo <= y <= hi`` (the article) instead of R's ``lo < y < hi``.
    na_matches
        R's behaviour: a comparison with a missing continuous value is never false, so NA matches
        anything. ``False``: NA never matches.
    ellipsoid
        Match jointly on the continuous variables: ``sum(((y - x) / d) ** 2) < 1`` (``<= 1`` when
        closed) instead of each variable on its own interval.
    """

    closed: bool = False
    na_matches: bool = True
    ellipsoid: bool = False


class KeyEncoder:
    """Fold several integer code columns into one group key, fitted on the confidential data.

    Synthetic combinations that no confidential record has get key -1 (they can match no target),
    and so does any row with a missing code (-1).
    """

    def __init__(self, codes: np.ndarray):
        self._stages: list[tuple[int, pd.Index]] = []
        n, p = codes.shape
        key = np.zeros(n, dtype=np.int64)
        na = np.zeros(n, dtype=bool)
        for v in range(p):
            col = codes[:, v]
            na |= col < 0
            size = int(col.max()) + 2 if col.size else 1
            raw = key * size + (col + 1)
            uniques, key = self._compress(raw)
            self._stages.append((size, uniques))
        self.keys = np.where(na, -1, key)
        self.n_keys = int(self.keys.max()) + 1 if n and p else 1
        if p == 0:
            self.keys = np.zeros(n, dtype=np.int64)

    @staticmethod
    def _compress(raw: np.ndarray) -> tuple[pd.Index, np.ndarray]:
        codes, uniques = pd.factorize(raw)
        return pd.Index(uniques), codes.astype(np.int64)

    def transform(self, codes: np.ndarray) -> np.ndarray:
        n, p = codes.shape
        key = np.zeros(n, dtype=np.int64)
        bad = np.zeros(n, dtype=bool)
        for v, (size, uniques) in enumerate(self._stages):
            col = codes[:, v]
            bad |= (col < 0) | (col + 1 >= size)
            raw = key * size + np.clip(col + 1, 0, size - 1)
            key = uniques.get_indexer(raw).astype(np.int64)
            bad |= key < 0
            key = np.maximum(key, 0)
        return np.where(bad, -1, key)


def half_widths(
    x: np.ndarray,
    radii: np.ndarray,
    *,
    percentage: bool,
    abs_radius: bool = False,
    euclidean_dist: bool = False,
    known: np.ndarray | None = None,
) -> np.ndarray:
    """Half-width d of every target's interval on every continuous variable.

    ``d_v = r_v * x_v`` (``r_v * |x_v|`` with ``abs_radius``) when ``percentage``, else ``r_v``.
    With R's ``euclideanDist`` every known variable gets ``d_K = sqrt(sum_known d_v^2)`` and every
    synthesized one ``d_S = sqrt(d_K + sum_syn d_v^2)`` -- d_K itself, not its square, as R does.
    """
    n, p = x.shape
    if percentage:
        d = radii[None, :] * (np.abs(x) if abs_radius else x)
    else:
        d = np.broadcast_to(radii[None, :], (n, p)).astype(np.float64)
    if not euclidean_dist or p == 0:
        return np.array(d, dtype=np.float64)
    known = np.zeros(p, dtype=bool) if known is None else np.asarray(known, dtype=bool)
    d_known = np.zeros(n)
    for v in np.flatnonzero(known):
        d_known = d_known + d[:, v] * d[:, v]
    d_known = np.sqrt(d_known)
    d_syn = d_known.copy()
    for v in np.flatnonzero(~known):
        d_syn = d_syn + d[:, v] * d[:, v]
    d_syn = np.sqrt(d_syn)
    return np.where(known[None, :], d_known[:, None], d_syn[:, None])


def interval_bounds(x: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(x - d, x + d)`` computed in exactly that form (what R compares against)."""
    return x - d, x + d


def _inside(lo, hi, y, rule: MatchRule) -> np.ndarray:
    """Element-wise interval test with R's NA semantics (a comparison with NA never excludes)."""
    if rule.closed:
        out = ~((y < lo) | (y > hi))
    else:
        out = ~((y <= lo) | (y >= hi))
    if not rule.na_matches:
        out &= ~(np.isnan(y) | np.isnan(lo) | np.isnan(hi))
    return out


def _ellipsoid_inside(x, d, y, rule: MatchRule) -> np.ndarray:
    """Joint test ``sum(((y - x)/d)^2) < 1`` over the last axis (``<= 1`` when closed)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (y - x) / d
        term = z * z
    nan = np.isnan(y) | np.isnan(x) | np.isnan(d)
    degenerate = d <= 0
    if rule.closed:
        zero_ok = (d == 0) & (y == x)
        term = np.where(degenerate, np.where(zero_ok, 0.0, np.inf), term)
    else:
        term = np.where(degenerate, np.inf, term)
    if rule.na_matches:
        term = np.where(nan, 0.0, term)
    else:
        term = np.where(nan, np.inf, term)
    total = term.sum(axis=-1)
    return total <= 1.0 if rule.closed else total < 1.0


def _rows_match(lo, hi, x, d, y, rule: MatchRule) -> np.ndarray:
    """Does target row (lo, hi, x, d) match synthetic row y on every continuous variable?"""
    ok = _inside(lo, hi, y, rule).all(axis=-1)
    if rule.ellipsoid:
        ok &= _ellipsoid_inside(x, d, y, rule)
    return ok


def _expand(starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ranges [start, start + length): (owner of each position, position)."""
    total = int(lengths.sum())
    owner = np.repeat(np.arange(len(lengths)), lengths)
    offsets = np.cumsum(lengths) - lengths
    pos = np.arange(total, dtype=np.int64) - np.repeat(offsets - starts, lengths)
    return owner, pos


class _SortedDim:
    """Synthetic rows of one continuous variable, sorted by (group key, value)."""

    def __init__(self, skey: np.ndarray, y: np.ndarray):
        ok = (skey >= 0) & ~np.isnan(y)
        rows = np.flatnonzero(ok)
        self.values = np.sort(y[rows])
        self.width = len(self.values) + 1
        rank = np.searchsorted(self.values, y[rows], side="left")
        composite = skey[rows] * self.width + rank
        order = np.argsort(composite, kind="stable")
        self.composite = composite[order]
        self.rows = rows[order]

    def ranges(self, tkey, lo, hi, rule: MatchRule) -> tuple[np.ndarray, np.ndarray]:
        """Positions [a, b) in ``self.rows`` of the group's rows with lo < y < hi (or closed)."""
        if rule.closed:
            qlo = np.searchsorted(self.values, lo, side="left")
            qhi = np.searchsorted(self.values, hi, side="right")
        else:
            qlo = np.searchsorted(self.values, lo, side="right")
            qhi = np.searchsorted(self.values, hi, side="left")
        whole = np.isnan(lo) | np.isnan(hi)  # NA bound: no exclusion on this variable
        qlo = np.where(whole, 0, qlo)
        qhi = np.where(whole, self.width, qhi)
        base = np.maximum(tkey, 0) * self.width
        a = np.searchsorted(self.composite, base + qlo, side="left")
        b = np.searchsorted(self.composite, base + qhi, side="left")
        b = np.maximum(a, b)
        dead = tkey < 0
        if not rule.na_matches:
            dead = dead | whole
        return np.where(dead, 0, a), np.where(dead, 0, b)


def count_matches(
    tkey: np.ndarray,
    skey: np.ndarray,
    x: np.ndarray,
    d: np.ndarray,
    y: np.ndarray,
    rule: MatchRule = MatchRule(),
    n_keys: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Match counts c (int64) and own-row indicator T (bool, before R's c = 0 rule).

    Parameters
    ----------
    tkey, skey
        Group keys of the targets (confidential records) and of the synthetic records; -1 never
        matches.
    x, d
        ``(n, p)`` target values and half-widths of the continuous variables.
    y
        ``(n, p)`` synthetic values of the same variables.
    """
    n, p = x.shape
    tkey = np.asarray(tkey, dtype=np.int64)
    skey = np.asarray(skey, dtype=np.int64)
    if n_keys is None:
        n_keys = int(max(tkey.max(initial=-1), skey.max(initial=-1))) + 1
    own = (tkey >= 0) & (skey == tkey)
    if p == 0:
        counts = np.bincount(skey[skey >= 0], minlength=max(n_keys, 1))
        c = np.where(tkey >= 0, counts[np.maximum(tkey, 0)], 0)
        return c.astype(np.int64), own
    lo, hi = interval_bounds(x, d)
    own &= _rows_match(lo, hi, x, d, y, rule)

    # synthetic rows whose sort-dimension value is NA match every interval there (R mode)
    dims = [_SortedDim(skey, y[:, v]) for v in range(p)]
    spans = [dim.ranges(tkey, lo[:, v], hi[:, v], rule) for v, dim in enumerate(dims)]
    totals = [int((b - a).sum()) for a, b in spans]
    v = int(np.argmin(totals))
    dim, (a, b) = dims[v], spans[v]

    nan_rows = (
        np.flatnonzero((skey >= 0) & np.isnan(y[:, v])) if rule.na_matches else np.array([], int)
    )
    if nan_rows.size:
        order = np.argsort(skey[nan_rows], kind="stable")
        nan_rows = nan_rows[order]
        nan_keys = skey[nan_rows]
        na_a = np.searchsorted(nan_keys, tkey, side="left")
        na_b = np.searchsorted(nan_keys, tkey, side="right")
        na_a = np.where(tkey < 0, 0, na_a)
        na_b = np.where(tkey < 0, 0, na_b)
    else:
        na_a = na_b = np.zeros(n, dtype=np.int64)

    if p == 1 and not rule.ellipsoid:
        return ((b - a) + (na_b - na_a)).astype(np.int64), own

    pool = np.concatenate([dim.rows, nan_rows]).astype(np.int64)
    starts = np.concatenate([a, na_a + len(dim.rows)])
    lengths = np.concatenate([b - a, na_b - na_a])
    owners_all = np.concatenate([np.arange(n), np.arange(n)])
    keep = lengths > 0
    starts, lengths, owners_all = starts[keep], lengths[keep], owners_all[keep]

    c = np.zeros(n, dtype=np.int64)
    cum = np.cumsum(lengths)
    begin = 0
    while begin < len(lengths):
        limit = (cum[begin - 1] if begin else 0) + _CHUNK
        end = max(begin + 1, int(np.searchsorted(cum, limit, side="right")))
        owner, pos = _expand(starts[begin:end], lengths[begin:end])
        targets = owners_all[begin:end][owner]
        rows = pool[pos]
        ok = _rows_match(lo[targets], hi[targets], x[targets], d[targets], y[rows], rule)
        c += np.bincount(targets[ok], minlength=n)
        begin = end
    return c, own
