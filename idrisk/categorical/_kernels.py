"""The DPMPM latent-class step, compiled (numba).

* class weights of every node of the data's prefix tree: ``P[node] = P[parent] * thetaT[col]``
  (row 0 is the root and holds the mixture weights ``pi``); the leaves are the distinct
  records;
* the running sum ``cdf`` over classes of each leaf, left to right;
* ``z_i`` = number of classes whose running sum is ``<= u_i * cdf[leaf_i, K - 1]`` (clipped
  to ``K - 1``), i.e. the first class whose running sum exceeds the threshold.

The random numbers are drawn by the caller (numpy ``Generator``), never inside the kernel.
"""

from __future__ import annotations

import numpy as np

from .._numba import jit

__all__ = ["z_step"]


@jit
def _z_step(pi, thetaT, parent, col, n_nodes, leaf_of_record, u, z_out, counts_out, rec_cols):
    K = pi.shape[0]
    P = np.empty((n_nodes, K))
    for k in range(K):
        P[0, k] = pi[k]
    for node in range(1, n_nodes):
        par = parent[node]
        c = col[node]
        for k in range(K):
            P[node, k] = P[par, k] * thetaT[c, k]
    # running sums in place
    for node in range(n_nodes):
        acc = 0.0
        for k in range(K):
            acc += P[node, k]
            P[node, k] = acc
    L1 = counts_out.shape[1]
    for k in range(K):
        for j in range(L1):
            counts_out[k, j] = 0
    n = leaf_of_record.shape[0]
    p = rec_cols.shape[1]
    for i in range(n):
        leaf = leaf_of_record[i]
        t = u[i] * P[leaf, K - 1]
        # count of k with cdf <= t (cdf non-decreasing): binary search
        lo = 0
        hi = K
        while lo < hi:
            mid = (lo + hi) >> 1
            if P[leaf, mid] <= t:
                lo = mid + 1
            else:
                hi = mid
        if lo > K - 1:
            lo = K - 1
        z_out[i] = lo
        counts_out[lo, 0] += 1
        for j in range(p):
            counts_out[lo, 1 + rec_cols[i, j]] += 1


def z_step(pi, thetaT, parent, col, leaf_of_record, u, z_out, counts_out, rec_cols) -> None:
    """One latent-class step. Fills ``z_out`` (n,) and ``counts_out`` (K, L + 1): column 0 the
    class sizes, columns 1.. the (class, level) counts of every variable.

    The nodes of the prefix tree (``parent``, ``col``) come parents first.
    """
    _z_step(pi, thetaT, parent, col, parent.shape[0], leaf_of_record, u, z_out, counts_out,
            rec_cols)
