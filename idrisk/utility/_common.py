"""Helpers shared by the utility measures: level unions, dataset lists, BLAS threads, R's
aliased columns.

What is categorical is decided by the package's one rule, :func:`idrisk._schema.is_categorical`.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext

import numpy as np
import pandas as pd
import scipy.linalg

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


def _kept_columns(Xw: np.ndarray, tol: float = 1e-7) -> list[int]:
    """Indices of the non-aliased columns of ``Xw`` (R's ``lm``, ``glm`` and ``polr`` keep
    these and give the others, the aliased ones, ``NA``), tested in order as R does: a column
    is aliased when the norm of its part orthogonal to the kept columns before it is below
    ``tol`` times its norm (a zero column is aliased), and an aliased column is then left out
    of the basis the later columns are tested against.

    The residual norms are the diagonal of an unpivoted QR factor; the factor is trusted up
    to the first aliased column only (a column of rounding noise must not become a basis
    direction), and the test resumes after it on the columns projected off the kept ones.
    """
    n = Xw.shape[0]
    norms = np.sqrt((Xw**2).sum(axis=0))
    rest = np.flatnonzero(norms > 0)
    kept: list[np.ndarray] = []
    basis = np.zeros((n, 0))
    while len(rest) and basis.shape[1] < n:
        block = Xw[:, rest]
        if basis.shape[1]:
            for _ in range(2):  # twice: re-orthogonalised Gram-Schmidt
                block = block - basis @ (basis.T @ block)
        q, r = scipy.linalg.qr(block, mode="economic", check_finite=False)
        d = np.zeros(len(rest))
        k = min(r.shape)
        d[:k] = np.abs(np.diag(r)[:k])
        bad = np.flatnonzero(d < tol * norms[rest])
        stop = min(len(rest) if len(bad) == 0 else bad[0], n - basis.shape[1])
        kept.append(rest[:stop])
        basis = np.hstack([basis, q[:, :stop]])
        rest = rest[stop + 1:]
    return [int(j) for j in np.concatenate(kept)] if kept else []
