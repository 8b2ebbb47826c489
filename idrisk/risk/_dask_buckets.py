"""The per-task work of :func:`idrisk.identification_risk_dask`: records encoded into key
buckets, each bucket's targets prepared once, and a bucket counted against one synthetic
dataset by the single-machine engine (:mod:`idrisk.risk.matching`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._schema import as_float
from ._checks import check_counts
from ._keys import KeyEncoder
from ._prepare import level_codes
from .matching import CountCache, MatchRule, count_matches, half_widths

__all__ = ["Piece", "Spec", "Targets", "count_bucket", "encode", "encode_split", "key_sizes",
           "least_loaded", "place", "prepare_targets", "split"]


@dataclass(frozen=True)
class Spec:
    """What every task needs to encode and count (small; shipped with the tasks)."""

    categorical: tuple[str, ...]
    levels: dict[str, pd.Index]  # factor columns -> level index; others in categorical: exact
    continuous: tuple[str, ...]
    radii: np.ndarray | None  # None: r is None, everything matched exactly
    cont_known: np.ndarray
    percentage: bool
    abs_radius: bool
    euclidean_dist: bool
    rule: MatchRule
    buckets: int
    parse: frozenset = frozenset()  # columns declared continuous: text holding numbers parsed
    placed: tuple[pd.Index, np.ndarray] | None = None  # key hash -> bucket (place)

    def bucket_of(self, keys: np.ndarray) -> np.ndarray:
        """The bucket of each key row (the same key, the same bucket)."""
        h = _key_hash(keys)
        dtype = np.int16 if self.buckets < 1 << 15 else np.int64  # for a radix sort
        bucket = (h % np.uint64(self.buckets)).astype(dtype)
        if self.placed is not None:
            where = self.placed[0].get_indexer(h)
            known = where >= 0
            bucket[known] = self.placed[1][where[known]]
        return bucket

    def half_widths(self, x: np.ndarray) -> np.ndarray:
        assert self.radii is not None
        return half_widths(
            x,
            self.radii,
            percentage=self.percentage,
            abs_radius=self.abs_radius,
            euclidean_dist=self.euclidean_dist,
            known=self.cont_known,
        )


#: one bucket's records of one partition: (record ids, key values n x k, continuous values n x p)
Piece = tuple[np.ndarray, np.ndarray, np.ndarray]


def encode(
    part: pd.DataFrame, offset: int, spec: Spec, where: str, confidential: bool
) -> tuple[Piece, dict[str, Any]]:
    """One partition as a :data:`Piece` (rows in record order) and its
    :func:`~idrisk.risk._checks.check_counts` (NA and never-matched records).

    Keys: level codes of factor columns, values of numeric columns matched exactly (all
    keys as doubles then); continuous values with NaN for NA. Rows with a missing key value
    can match nothing (as target or as synthetic record) and are dropped.
    """
    n = len(part)
    ids = np.arange(offset, offset + n, dtype=np.int64)
    # level codes as int32 unless a numeric column is matched exactly (its values as doubles)
    exact = any(c not in spec.levels for c in spec.categorical)
    keys = np.empty((n, len(spec.categorical)), dtype=np.float64 if exact else np.int32)
    ok = np.ones(n, dtype=bool)
    for i, c in enumerate(spec.categorical):
        if c in spec.levels:
            codes = level_codes(part[c], spec.levels[c])
            ok &= codes >= 0
            keys[:, i] = codes
        else:
            keys[:, i] = as_float(part[c], c, where) + 0.0  # + 0.0 folds -0.0 into 0.0
            ok &= ~np.isnan(keys[:, i])
    counts = check_counts(np.empty((n, 0)), [])
    x = np.empty((n, 0))
    if spec.radii is not None and spec.continuous:
        x = np.column_stack([
            as_float(part[c], c, where, c in spec.parse) for c in spec.continuous
        ])  # fmt: skip
        d = spec.half_widths(x) if confidential else None
        counts = check_counts(x, list(spec.continuous), d, spec.rule.closed)
    if not ok.all():
        ids, keys, x = ids[ok], keys[ok], x[ok]
    return (ids, keys, x), counts


def split(encoded: tuple[Piece, dict[str, Any]], spec: Spec) -> list[Piece]:
    """An encoded partition cut into the key buckets (rows in record order in each)."""
    ids, keys, x = encoded[0]
    bucket = spec.bucket_of(keys)
    order = np.argsort(bucket, kind="stable")  # small ints: a radix sort
    cuts = np.searchsorted(bucket[order], np.arange(1, spec.buckets))
    return [(ids[idx], keys[idx], x[idx]) for idx in np.split(order, cuts)]


def encode_split(
    part: pd.DataFrame, offset: int, spec: Spec, where: str, confidential: bool
) -> list[Any]:
    """:func:`encode` and :func:`split` in one task: the bucket pieces, then the counts."""
    encoded = encode(part, offset, spec, where, confidential)
    return [*split(encoded, spec), encoded[1]]


def _key_hash(keys: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each key row (splitmix64's mixing of the values' bits)."""
    h = np.zeros(len(keys), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in range(keys.shape[1]):
            col = keys[:, i]
            bits = col.view(np.uint64) if col.dtype == np.float64 else col.astype(np.uint64)
            h = h * np.uint64(0x9E3779B97F4A7C15) + bits
            h ^= h >> np.uint64(30)
            h *= np.uint64(0xBF58476D1CE4E5B9)
            h ^= h >> np.uint64(27)
            h *= np.uint64(0x94D049BB133111EB)
            h ^= h >> np.uint64(31)
    return h


#: at most this many distinct keys are placed in buckets by their sizes (else by hash)
_PLACED_KEYS = 10_000


def key_sizes(encoded: tuple[Piece, dict[str, Any]]) -> tuple[np.ndarray, np.ndarray] | None:
    """(distinct key hashes, records) of an encoded partition; None if there are many."""
    hashes, sizes = np.unique(_key_hash(encoded[0][1]), return_counts=True)
    return (hashes, sizes) if len(hashes) <= _PLACED_KEYS else None


def least_loaded(sizes: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Items into bins, largest first into the least loaded bin: (bin of each item, loads)."""
    load = np.zeros(bins)
    where = np.empty(len(sizes), dtype=np.int64)
    for i in np.argsort(-np.asarray(sizes, dtype=float), kind="stable"):
        where[i] = b = int(np.argmin(load))
        load[b] += sizes[i]
    return where, load


def place(per_part: list[Any], buckets: int) -> tuple[pd.Index, np.ndarray, np.ndarray] | None:
    """Keys -> buckets, largest key first into the least loaded bucket (so that a few large
    keys do not share a bucket by chance): (key hashes, their buckets, the buckets' records);
    None when a partition has many keys."""
    if any(p is None for p in per_part) or not per_part:
        return None
    hashes, inverse = np.unique(np.concatenate([h for h, _ in per_part]), return_inverse=True)
    if len(hashes) > _PLACED_KEYS:
        return None
    sizes = np.bincount(inverse, weights=np.concatenate([k for _, k in per_part]))
    placed, loads = least_loaded(sizes, buckets)
    return pd.Index(hashes), placed, loads


def _concat(pieces: list[Piece]) -> Piece:
    if len(pieces) == 1:
        return pieces[0]
    ids, keys, x = zip(*pieces)
    return np.concatenate(ids), np.concatenate(keys), np.concatenate(x)


#: what the engine's CountCache keeps per target (bounds, sorts, ranks): about 150 bytes
_CACHE_BYTES_PER_TARGET = 150


@dataclass
class Targets:
    """One bucket's confidential records, prepared once for every synthetic dataset: record ids
    (ascending), the key encoder fitted on their key codes (numeric key columns coded by their
    values, ``exact``), continuous values and half-widths, and the engine's
    :class:`~idrisk.risk.matching.CountCache` (sorts of the targets, reused from one synthetic
    dataset to the next)."""

    tid: np.ndarray
    exact: dict[int, pd.Index]
    encoder: KeyEncoder
    x: np.ndarray
    d: np.ndarray
    cache: CountCache

    def __len__(self) -> int:
        return len(self.tid)

    def __sizeof__(self) -> int:
        """Bytes held, the cache's sorts and bounds estimated (Dask's memory accounting)."""
        arrays = (self.tid, self.encoder.keys, self.x, self.d)
        return sum(a.nbytes for a in arrays) + _CACHE_BYTES_PER_TARGET * len(self.tid)


def prepare_targets(pieces: list[Piece], spec: Spec) -> Targets:
    tid, keys, x = _concat(pieces)
    if np.any(tid[1:] <= tid[:-1]):  # buckets are built in record order; be safe anyway
        order = np.argsort(tid, kind="stable")
        tid, keys, x = tid[order], keys[order], x[order]
    codes = np.empty(keys.shape, dtype=np.int64)
    exact = {}
    for i, col in enumerate(spec.categorical):
        if col in spec.levels:
            codes[:, i] = keys[:, i]
        else:  # numeric column matched exactly: codes of the values
            codes[:, i], uniques = pd.factorize(keys[:, i])
            exact[i] = pd.Index(uniques)
    d = spec.half_widths(x) if x.shape[1] else np.zeros((len(tid), 0))
    return Targets(tid, exact, KeyEncoder(codes), x, d, CountCache())


def count_bucket(
    targets: Targets, synthetic: list[Piece], spec: Spec
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(record ids, c, own)`` of the targets of one bucket against one synthetic dataset.

    Synthetic rows are laid out on the targets' positions: row i at target i's position, so
    that the engine's own-row test compares target i with synthetic row i exactly as on the
    whole data; rows whose record is not a target of this bucket go after the targets (which
    get placeholders with key -1, matching nothing). Positions without a synthetic row get key
    -1. When every row has its target here (the known variables are not synthesized), the
    targets' arrays and their cache are the same for every dataset.
    """
    tid = targets.tid
    sid, skeys, sx = _concat(synthetic)
    nt = len(tid)
    if nt == 0 or len(sid) == 0:
        return tid, np.zeros(nt, dtype=np.int64), np.zeros(nt, dtype=bool)
    pos = np.minimum(np.searchsorted(tid, sid), nt - 1)
    paired = tid[pos] == sid
    extra = int(len(sid) - np.count_nonzero(paired))
    si = np.where(paired, pos, nt + np.cumsum(~paired) - 1) if extra else pos
    scodes = np.empty(skeys.shape, dtype=np.int64)
    for i in range(skeys.shape[1]):
        uniques = targets.exact.get(i)
        # numeric column matched exactly: a value no target has matches nothing (-1)
        scodes[:, i] = skeys[:, i] if uniques is None else uniques.get_indexer(skeys[:, i])
    skey = np.full(nt + extra, -1, dtype=np.int64)
    skey[si] = targets.encoder.transform(scodes)
    p = targets.x.shape[1]
    y = np.zeros((nt + extra, p))
    y[si] = sx
    tkey, x, d, cache = targets.encoder.keys, targets.x, targets.d, targets.cache
    if extra:
        tkey = np.concatenate([tkey, np.full(extra, -1, dtype=np.int64)])
        x, d = (np.concatenate([a, np.zeros((extra, p))]) for a in (x, d))
        cache = CountCache()
    c, own = count_matches(tkey, skey, x, d, y, spec.rule, targets.encoder.n_keys, cache)
    dtype = np.int32 if len(c) < np.iinfo(np.int32).max else np.int64  # as the result's c
    return tid, c[:nt].astype(dtype), own[:nt]
