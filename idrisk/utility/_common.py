"""Helpers shared by the utility measures: level unions, dataset lists, BLAS threads.

What is categorical is decided by the package's one rule, :func:`idrisk._schema.is_categorical`.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext

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
