"""Helpers shared by the utility measures: level unions, dataset lists, BLAS threads, R's
aliased columns.

What is categorical is decided by the package's one rule, :func:`idrisk._schema.is_categorical`.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext

import numpy as np
import pandas as pd

from .._schema import sorted_levels


def _single_thread_blas():
    """Run BLAS single-threaded: the many small fits here are slower with threads on a busy
    machine (threadpoolctl, when installed)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional
        return nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _levels(columns: Sequence[pd.Series]) -> list:
    """Union of the levels of ``columns``, ordered as R's ``factor`` would order them."""
    cats: list = []
    for s in columns:
        if isinstance(s.dtype, pd.CategoricalDtype):
            cats.extend(s.cat.categories.tolist())
        else:
            cats.extend(pd.unique(s.dropna()).tolist())
    return sorted_levels(cats)


def _kept_columns(X: np.ndarray, tol: float = 1e-7) -> list[int]:
    """Columns of ``X`` not in the span of the earlier kept ones (R's ``lm`` keeps these and
    gives the others, the aliased ones, ``NA``): a column is aliased when its residual on the
    kept columns is below ``tol`` times its norm (zero columns included)."""
    kept: list[int] = []
    q = np.zeros((X.shape[0], 0))
    for j in range(X.shape[1]):
        x = X[:, j]
        norm = float(np.linalg.norm(x))
        r = x - q @ (q.T @ x)
        rn = float(np.linalg.norm(r))
        if norm > 0 and rn > tol * norm:
            kept.append(j)
            q = np.column_stack([q, r / rn])
    return kept
