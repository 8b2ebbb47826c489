"""The DPMPM latent-class step, in numpy and (when available) numba.

Both engines perform the same floating-point operations in the same order, so for the
same uniforms they return identical class assignments:

* class weights of every node of the data's prefix tree: ``P[node] = P[parent] * thetaT[col]``
  (row 0 is the root and holds the mixture weights ``pi``); the leaves are the distinct
  records;
* the running sum ``cdf`` over classes of each leaf, left to right;
* ``z_i`` = number of classes whose running sum is ``<= u_i * cdf[leaf_i, K - 1]`` (clipped
  to ``K - 1``), i.e. the first class whose running sum exceeds the threshold.

The random numbers are drawn by the caller (numpy ``Generator``), never inside a kernel.
"""

from __future__ import annotations

import numpy as np

__all__ = ["HAVE_NUMBA", "z_step_numba", "z_step_numpy"]


def z_step_numpy(pi, thetaT, parent, col, level_slices, leaf_of_record, u, z_out, counts_out,
                 rec_cols):
    """Numpy engine. Returns nothing; fills ``z_out`` (n,) and ``counts_out`` (K, L + 1)."""
    K = pi.shape[0]
    P = np.empty((parent.shape[0], K))
    P[0] = pi
    for start, stop in level_slices:
        P[start:stop] = P[parent[start:stop]] * thetaT[col[start:stop]]
    cdf = np.cumsum(P, axis=1)
    rows = cdf[leaf_of_record]
    t = u * rows[:, K - 1]
    z = (rows <= t[:, None]).sum(axis=1)
    np.minimum(z, K - 1, out=z)
    z_out[:] = z
    L1 = counts_out.shape[1]
    counts_out[:, :] = 0
    # column 0 of counts: class sizes; columns 1.. : (class, level) counts of every variable
    counts_out[:, 0] = np.bincount(z, minlength=K)
    flat = (z[:, None] * L1 + 1 + rec_cols).ravel()
    counts_out[:, 1:] = np.bincount(flat, minlength=K * L1).reshape(K, L1)[:, 1:]


try:  # pragma: no cover - exercised when numba is installed
    import numba

    @numba.njit(cache=True, nogil=True)
    def _z_step_numba(pi, thetaT, parent, col, n_nodes, leaf_of_record, u, z_out, counts_out,
                      rec_cols):
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

    def z_step_numba(pi, thetaT, parent, col, level_slices, leaf_of_record, u, z_out,
                     counts_out, rec_cols):
        """Numba engine; same arguments and results as :func:`z_step_numpy`."""
        _z_step_numba(pi, thetaT, parent, col, parent.shape[0], leaf_of_record, u, z_out,
                      counts_out, rec_cols)

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    HAVE_NUMBA = False
    z_step_numba = None
