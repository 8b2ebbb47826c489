"""Random streams for the synthesizers: an R-identical one and a fast numpy one.

:class:`RStream` reproduces R's default generator (``RNGkind("Mersenne-Twister",
"Inversion", "Rejection")``, the default since R 3.6.0) draw for draw:

* ``set.seed(s)``: ``s`` modulo 2**32 is scrambled 50 times with the linear
  congruential step ``s <- 69069 * s + 1``; 625 further steps give the seed
  table, whose first entry (the position slot) is dropped and replaced by 624.
* ``unif_rand()``: a 32-bit Mersenne-Twister word times 2**-32, nudged into
  (0, 1).
* ``R_unif_index(n)``: rejection sampling on ``bits = ceil(log2(n))`` random
  bits built from 16-bit chunks ``floor(unif_rand() * 65536)``.
* ``sample.int(n, k)`` without replacement: the swap-with-last algorithm.
* ``sample(x, 1, prob = p)``: probabilities normalised, sorted decreasingly with
  R's heap sort ``revsort`` (not stable), one ``unif_rand()``.

The Mersenne-Twister itself (R's ``MT_genrand``) and the samplers are compiled loops
(:mod:`idrisk.synthesis._kernels`) on the stream's own state: R's seed table and position.
Its raw 32-bit output is that of :class:`numpy.random.MT19937` given the same table.

:class:`NumpyStream` has the same methods on top of a :class:`numpy.random.Generator`
(PCG64). Its draws have the same distributions but are *not* R's values; it is
the ``rng="numpy"`` fast mode of :func:`idrisk.synthesis.syn`.

Examples
--------
>>> s = RStream(42)
>>> [round(float(u), 12) for u in s.unif_rand(3)]
[0.914806043496, 0.937075413298, 0.286139534786]
>>> s = RStream(1)
>>> (s.unif_index(10, 5) + 1).tolist()   # R: set.seed(1); sample(10, 5, TRUE)
[9, 4, 7, 1, 2]
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from . import _kernels

__all__ = [
    "NumpyStream",
    "RStream",
    "RandomStream",
    "make_stream",
    "qnorm_as241",
    "r_seed_table",
    "revsort",
]

_TWO_M32 = 2.3283064365386963e-10  # 2**-32, R's i2_32m1 multiplier
_UINT32 = 0xFFFFFFFF


def r_seed_table(seed: int) -> np.ndarray:
    """The 624-word Mersenne-Twister state that R's ``set.seed(seed)`` creates.

    Parameters
    ----------
    seed : int
        Any integer; it is taken modulo 2**32 as R does with its 32-bit seed.

    Returns
    -------
    numpy.ndarray
        ``uint32`` array of length 624 (the position slot is not included).

    Examples
    --------
    >>> r_seed_table(0).shape
    (624,)
    """
    s = int(seed) & _UINT32
    for _ in range(50):
        s = (69069 * s + 1) & _UINT32
    table = np.empty(625, dtype=np.uint32)
    for j in range(625):
        s = (69069 * s + 1) & _UINT32
        table[j] = s
    return table[1:].copy()


def revsort(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R's ``revsort``: heap sort into decreasing order, carrying the indices.

    The order of tied values follows R's heap sort (it is not a stable sort),
    which matters for reproducing R's weighted ``sample``.

    Parameters
    ----------
    a : numpy.ndarray
        Values to sort.

    Returns
    -------
    (values, index) : tuple of numpy.ndarray
        Sorted values (decreasing) and the 0-based original positions.

    Examples
    --------
    >>> revsort(np.array([0.2, 0.5, 0.3]))[1].tolist()
    [1, 2, 0]
    """
    x = np.concatenate([[0.0], np.asarray(a, dtype=float)])  # 1-based as in the C code
    ib = np.arange(-1, x.size - 1, dtype=np.int64)
    _kernels.revsort(x, ib)
    return x[1:], ib[1:]


def _horner(r: np.ndarray, coefs: tuple[float, ...]) -> np.ndarray:
    """((c0 * r + c1) * r + c2) ... in the order written in AS 241."""
    out = r * coefs[0] + coefs[1]
    for c in coefs[2:]:
        out = out * r + c
    return out


_A = (2509.0809287301226727, 33430.575583588128105, 67265.770927008700853,
      45921.953931549871457, 13731.693765509461125, 1971.5909503065514427,
      133.14166789178437745, 3.387132872796366608)
_B = (5226.495278852854561, 28729.085735721942674, 39307.89580009271061,
      21213.794301586595867, 5394.1960214247511077, 687.1870074920579083,
      42.313330701600911252, 1.0)
_C = (7.7454501427834140764e-4, 0.0227238449892691845833, 0.24178072517745061177,
      1.27045825245236838258, 3.64784832476320460504, 5.7694972214606914055,
      4.6303378461565452959, 1.42343711074968357734)
_D = (1.05075007164441684324e-9, 5.475938084995344946e-4, 0.0151986665636164571966,
      0.14810397642748007459, 0.68976733498510000455, 1.6763848301838038494,
      2.05319162663775882187, 1.0)
_E = (2.01033439929228813265e-7, 2.71155556874348757815e-5, 0.0012426609473880784386,
      0.026532189526576123093, 0.29656057182850489123, 1.7848265399172913358,
      5.4637849111641143699, 6.6579046435011037772)
_F = (2.04426310338993978564e-15, 1.4215117583164458887e-7, 1.8463183175100546818e-5,
      7.868691311456132591e-4, 0.0148753612908506148525, 0.13692988092273580531,
      0.59983220655588793769, 1.0)


def qnorm_as241(p: np.ndarray) -> np.ndarray:
    """Standard normal quantile by Wichura's AS 241 (PPND16), as R 4.2's ``qnorm``.

    Parameters
    ----------
    p : numpy.ndarray
        Probabilities strictly inside (0, 1).

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> float(qnorm_as241(np.array([0.975]))[0])   # R: sprintf("%.17g", qnorm(0.975))
    1.9599639845400536
    """
    p = np.asarray(p, dtype=float)
    q = p - 0.5
    out = np.empty_like(p)
    mid = np.abs(q) <= 0.425
    if mid.any():
        qm = q[mid]
        r = 0.180625 - qm * qm
        out[mid] = qm * _horner(r, _A) / _horner(r, _B)
    tail = ~mid
    if tail.any():
        qt = q[tail]
        r = np.where(qt > 0, 0.5 - p[tail] + 0.5, p[tail])  # R_DT_CIv
        # the C library's log (as R uses), not numpy's vectorised one
        r = np.sqrt(-np.array([math.log(v) for v in r.tolist()], dtype=float))
        val = np.empty_like(r)
        near = r <= 5.0
        rn = r[near] - 1.6
        val[near] = _horner(rn, _C) / _horner(rn, _D)
        rf = r[~near] - 5.0
        val[~near] = _horner(rf, _E) / _horner(rf, _F)
        out[tail] = np.where(qt < 0.0, -val, val)
    return out


class RandomStream(Protocol):
    """What the synthesizer needs from a random stream (0-based indices)."""

    def unif_rand(self, size: int) -> np.ndarray: ...

    def unif_index(self, n: int, size: int) -> np.ndarray: ...

    def sample_without_replacement(self, n: int, size: int | None = None) -> np.ndarray: ...

    def skip_permutation(self, n: int) -> None: ...

    def weighted_choice(self, probs: np.ndarray) -> np.ndarray: ...

    def sample_seed(self) -> int: ...

    def norm_rand(self, size: int) -> np.ndarray: ...


class RStream:
    """R's ``unif_rand`` stream (Mersenne-Twister, Rejection sampling).

    Parameters
    ----------
    seed : int or None
        Passed to :meth:`set_seed`. ``None`` (like an unseeded R session) takes
        a seed from the operating system's entropy; it is kept in ``.seed``.

    Examples
    --------
    >>> RStream(2021).sample_seed() > 0
    True
    """

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self.set_seed(seed)

    # -- state ------------------------------------------------------------------
    def set_seed(self, seed: int) -> None:
        """Reset the stream exactly as R's ``set.seed(seed)``."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"seed must be an integer, got {seed!r}")
        self.seed = int(seed)
        self._mt = r_seed_table(int(seed)).astype(np.int64)
        self._state = np.array([624, 0], dtype=np.int64)  # position, words drawn

    @property
    def n_used(self) -> int:
        """Number of 32-bit words drawn since the seed was set."""
        return int(self._state[1])

    def _raw(self, k: int) -> np.ndarray:
        """Next ``k`` raw 32-bit words (as int64)."""
        out = np.empty(int(k), dtype=np.int64)
        _kernels.mt_words(self._mt, self._state, out)
        return out

    # -- draws ------------------------------------------------------------------
    def unif_rand(self, size: int = 1) -> np.ndarray:
        """``size`` values of R's ``unif_rand()`` (as ``runif(size)``)."""
        u = self._raw(int(size)).astype(np.float64) * _TWO_M32
        # R's fixup: keep strictly inside (0, 1)
        u[u <= 0.0] = 0.5 * _TWO_M32
        u[u >= 1.0] = 1.0 - 0.5 * _TWO_M32
        return u

    def unif_index(self, n: int, size: int = 1) -> np.ndarray:
        """``size`` draws of R's ``R_unif_index(n)``: uniform on 0..n-1 (0-based).

        This is what ``sample.int(n, size, replace = TRUE)`` uses (plus one).
        """
        n = int(n)
        size = int(size)
        if n <= 0:
            raise ValueError(f"n must be positive, got {n}")
        out = np.empty(size, dtype=np.int64)
        _kernels.unif_index_groups(self._mt, self._state, np.array([n]), np.array([size]), out)
        return out

    def sample_without_replacement(self, n: int, size: int | None = None) -> np.ndarray:
        """R's ``sample.int(n, size)`` (swap with last), 0-based.

        Examples
        --------
        >>> (RStream(42).sample_without_replacement(5) + 1).tolist()  # R: set.seed(42); sample(5)
        [1, 5, 4, 3, 2]
        """
        n = int(n)
        size = n if size is None else int(size)
        if size > n:
            raise ValueError(f"size ({size}) larger than population ({n})")
        out = np.empty(size, dtype=np.int64)
        _kernels.permutation_draws(self._mt, self._state, n, size, True, out)
        return out

    def skip_permutation(self, n: int) -> None:
        """Consume the draws of ``sample.int(n, n)`` without keeping the result.

        rpart's cross-validation groups use exactly these draws.
        """
        _kernels.permutation_draws(self._mt, self._state, int(n), int(n), False,
                                   np.empty(0, dtype=np.int64))

    def unif_index_groups(self, ns, sizes) -> np.ndarray:
        """``unif_index(ns[g], sizes[g])`` for every group g in turn, concatenated.

        The same draws as the separate calls, in one compiled loop.
        """
        ns = np.asarray(ns, dtype=np.int64)
        sizes = np.asarray(sizes, dtype=np.int64)
        if ns.size and ns.min() <= 0:
            raise ValueError(f"n must be positive, got {int(ns.min())}")
        out = np.empty(int(sizes.sum()), dtype=np.int64)
        _kernels.unif_index_groups(self._mt, self._state, ns, sizes, out)
        return out

    def _donor_draws(self, group, counts, starts, order) -> np.ndarray:
        """syn.cart's donor draws in one compiled call: for each group of ``group`` (values
        0..len(counts)-1) in order of first appearance, for its rows in row order,
        ``order[starts[g] + unif_index(counts[g])]`` -- the draws of one
        ``unif_index(counts[g], rows of g)`` call per group, in that order."""
        out = np.empty(len(group), dtype=np.int64)
        _kernels.donor_draws(self._mt, self._state, np.asarray(group, dtype=np.int64),
                             np.asarray(counts, dtype=np.int64),
                             np.asarray(starts, dtype=np.int64),
                             np.asarray(order, dtype=np.int64), out)
        return out

    def weighted_choice(self, probs: np.ndarray) -> np.ndarray:
        """One R ``sample(k, 1, prob = p)`` per row of ``probs`` (0-based columns).

        Each row is normalised (R's ``FixupProb``), sorted with R's ``revsort``,
        and one ``unif_rand()`` picks the first class whose cumulative
        probability reaches it.
        """
        probs = np.asarray(probs, dtype=float)
        if probs.ndim != 2:
            raise ValueError("probs must be a 2-d array (rows x classes)")
        out = np.empty(probs.shape[0], dtype=np.int64)
        u = self.unif_rand(probs.shape[0])
        bad = _kernels.weighted_picks(np.ascontiguousarray(probs), u, out)  # compiled loop
        if bad >= 0:
            raise ValueError(f"invalid probability vector {probs[bad]!r}")
        return out

    def sample_seed(self) -> int:
        """``sample.int(1e9, 1)``: what synthpop draws for ``seed = "sample"``."""
        return int(self.unif_index(1_000_000_000, 1)[0]) + 1

    def norm_rand(self, size: int = 1) -> np.ndarray:
        """``size`` standard normals as R's ``rnorm`` (``normal.kind = "Inversion"``).

        Each value uses two ``unif_rand()``: ``u = floor(2**27 * u1) + u2`` and
        ``qnorm(u / 2**27)`` with Wichura's algorithm AS 241 evaluated in the
        same order as R 4.2's ``qnorm``, so the values are R's bit for bit.

        Examples
        --------
        >>> round(float(RStream(1).norm_rand(1)[0]), 10)   # R: set.seed(1); rnorm(1)
        -0.6264538107
        """
        u = self.unif_rand(2 * int(size)).reshape(-1, 2)
        big = 134217728.0
        return qnorm_as241((np.floor(big * u[:, 0]) + u[:, 1]) / big)


class NumpyStream:
    """Fast stream with :class:`RStream`'s interface on numpy's PCG64 generator.

    Same distributions, different values: use it when R-identical output is not
    needed.

    Examples
    --------
    >>> s = NumpyStream(1)
    >>> bool(np.all(s.unif_index(10, 100) < 10))
    True
    """

    def __init__(self, seed: int | None = None) -> None:
        self.set_seed(seed)

    def set_seed(self, seed: int | None) -> None:
        self.seed = seed
        self._gen = np.random.default_rng(seed)

    def unif_rand(self, size: int = 1) -> np.ndarray:
        return self._gen.random(int(size))

    def unif_index(self, n: int, size: int = 1) -> np.ndarray:
        if int(n) <= 0:
            raise ValueError(f"n must be positive, got {n}")
        return self._gen.integers(0, int(n), size=int(size), dtype=np.int64)

    def unif_index_groups(self, ns, sizes) -> np.ndarray:
        """``unif_index(ns[g], sizes[g])`` for every group g in turn, concatenated.

        One vectorised call; numpy draws bounded integers element by element, so the
        values equal those of the separate calls.
        """
        ns = np.asarray(ns, dtype=np.int64)
        sizes = np.asarray(sizes, dtype=np.int64)
        if ns.size and ns.min() <= 0:
            raise ValueError(f"n must be positive, got {int(ns.min())}")
        return self._gen.integers(0, np.repeat(ns, sizes), dtype=np.int64)

    def sample_without_replacement(self, n: int, size: int | None = None) -> np.ndarray:
        size = int(n) if size is None else int(size)
        return self._gen.choice(int(n), size=size, replace=False).astype(np.int64)

    def skip_permutation(self, n: int) -> None:
        """Nothing to consume: numpy mode does not mimic rpart's xval draws."""

    def weighted_choice(self, probs: np.ndarray) -> np.ndarray:
        probs = np.asarray(probs, dtype=float)
        if probs.ndim != 2:
            raise ValueError("probs must be a 2-d array (rows x classes)")
        p = probs / probs.sum(axis=1, keepdims=True)
        cum = np.cumsum(p, axis=1)
        u = np.asarray(self._gen.random(probs.shape[0]))[:, None]
        idx = (u > cum).sum(axis=1)
        return np.minimum(idx, probs.shape[1] - 1).astype(np.int64)

    def sample_seed(self) -> int:
        return int(self._gen.integers(1, 1_000_000_001))

    def norm_rand(self, size: int = 1) -> np.ndarray:
        return self._gen.standard_normal(int(size))


def make_stream(kind: str, seed: int | None) -> RStream | NumpyStream:
    """Build the stream named by ``kind`` (``"r"`` or ``"numpy"``)."""
    if kind == "r":
        return RStream(seed)
    if kind == "numpy":
        return NumpyStream(seed)
    raise ValueError(f"rng must be 'r' or 'numpy', got {kind!r}")
