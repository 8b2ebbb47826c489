"""Group keys: several categorical code columns folded into one integer key per record
(:class:`KeyEncoder`, fitted on the confidential data), the first step of the counting engine
(:mod:`idrisk.risk.matching`): a target can only match synthetic records of its own key."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import _kernels

__all__ = ["KeyEncoder"]


class KeyEncoder:
    """Fold several integer code columns into one group key, fitted on the confidential data.

    Synthetic combinations that no confidential record has get key -1 (they can match no target),
    and so does any row with a missing code (-1).
    """

    _DENSE = 1 << 22  # stages with fewer (previous key, code) pairs use a lookup array

    def __init__(self, codes: np.ndarray):
        self._stages: list[tuple[int, pd.Index]] = []
        self._luts: list[np.ndarray | None] = []
        n, p = codes.shape
        key = np.zeros(n, dtype=np.int64)
        na = np.zeros(n, dtype=bool)
        n_prev = 1
        for v in range(p):
            col = codes[:, v]
            na |= col < 0
            size = int(col.max()) + 2 if col.size else 1
            raw = key * size + (col + 1)
            lut = None
            if n_prev * size <= self._DENSE:  # (pd.factorize in one compiled pass)
                lut = np.full(n_prev * size, -1, dtype=np.int64)
                key, found = np.empty(n, dtype=np.int64), np.empty(n_prev * size, dtype=np.int64)
                uniques = pd.Index(found[: _kernels.first_codes(raw, lut, key, found)])
            else:
                uniques, key = self._compress(raw)
            self._stages.append((size, uniques))
            self._luts.append(lut)
            n_prev = max(len(uniques), 1)
        self.keys = np.where(na, -1, key)
        self.n_keys = int(self.keys.max()) + 1 if n and p else 1
        if p == 0:
            self.keys = np.zeros(n, dtype=np.int64)
        # every stage has a lookup table: one compiled pass per synthetic dataset
        self._flat: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        if p and all(lut is not None for lut in self._luts):
            luts = [lut for lut in self._luts if lut is not None]
            offsets = np.cumsum([0] + [len(lut) for lut in luts[:-1]]).astype(np.int64)
            sizes = np.array([size for size, _ in self._stages], dtype=np.int64)
            self._flat = (sizes, np.concatenate(luts), offsets)

    @staticmethod
    def _compress(raw: np.ndarray) -> tuple[pd.Index, np.ndarray]:
        codes, uniques = pd.factorize(raw)
        return pd.Index(uniques), codes.astype(np.int64)

    def transform(self, codes: np.ndarray) -> np.ndarray:
        n, p = codes.shape
        if self._flat is not None and p == len(self._stages):
            out = np.empty(n, dtype=np.int64)
            sizes, table, offsets = self._flat
            _kernels.encode_keys(np.ascontiguousarray(codes), sizes, table, offsets, out)
            return out
        key = np.zeros(n, dtype=np.int64)
        bad = np.zeros(n, dtype=bool)
        for v, (size, uniques) in enumerate(self._stages):
            col = codes[:, v]
            bad |= (col < 0) | (col + 1 >= size)
            raw = key * size + np.clip(col + 1, 0, size - 1)
            lut = self._luts[v]
            key = lut[raw] if lut is not None else uniques.get_indexer(raw).astype(np.int64)
            bad |= key < 0
            key = np.maximum(key, 0)
        return np.where(bad, -1, key)
