"""R-compatible and numpy random streams (idrisk.synthesis.rng)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from scipy import stats

from idrisk.synthesis.rng import NumpyStream, RStream, make_stream, r_seed_table, revsort

needs_rscript = pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript (R) not found")


def _r(code: str) -> np.ndarray:
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, check=True)
    return np.array(out.stdout.split(), dtype=float)


def test_runif_published_values():
    # R: set.seed(42); runif(3)
    u = RStream(42).unif_rand(3)
    np.testing.assert_allclose(u, [0.914806043496355, 0.937075413297862, 0.286139534786344],
                               rtol=0, atol=5e-16)


def test_known_sample_values():
    # values printed by R 4.2.2 (sample.kind = "Rejection")
    assert (RStream(1).unif_index(10, 5) + 1).tolist() == [9, 4, 7, 1, 2]
    assert (RStream(42).sample_without_replacement(5) + 1).tolist() == [1, 5, 4, 3, 2]
    assert RStream(2021).sample_seed() == 864471206


@needs_rscript
def test_seed_table_equals_r_random_seed():
    r = _r("set.seed(7); cat(.Random.seed[-1])").astype(np.int64)
    assert r[0] == 624  # position slot
    np.testing.assert_array_equal(r_seed_table(7).astype(np.int64),
                                  np.where(r[1:] < 0, r[1:] + 2**32, r[1:]))


def test_draw_counts():
    s = RStream(3)
    s.unif_index(1, 4)  # bits = 0: still one draw per value
    assert s.n_used == 4
    s = RStream(3)
    s.unif_index(2**16, 10)  # 16 bits -> 2 words per try; power of two: no rejection
    assert s.n_used == 20
    s = RStream(3)
    s.skip_permutation(100)
    a = s.n_used
    t = RStream(3)
    t.sample_without_replacement(100)
    assert t.n_used == a and a >= 100


def test_stream_continues_across_calls():
    a = RStream(5)
    x = np.concatenate([a.unif_index(77, 10), a.unif_index(77, 30)])
    b = RStream(5)
    np.testing.assert_array_equal(x, b.unif_index(77, 40))


def test_revsort_is_a_decreasing_permutation():
    rng = np.random.default_rng(0)
    for n in (1, 2, 5, 13):
        a = rng.integers(0, 4, n).astype(float)
        vals, idx = revsort(a)
        assert sorted(idx.tolist()) == list(range(n))
        np.testing.assert_array_equal(vals, a[idx])
        assert np.all(np.diff(vals) <= 0)


def test_numpy_stream_distribution():
    s = make_stream("numpy", 1)
    assert isinstance(s, NumpyStream)
    draws = s.unif_index(7, 70_000)
    counts = np.bincount(draws, minlength=7)
    assert stats.chisquare(counts).pvalue > 1e-4
    picks = s.weighted_choice(np.tile([0.2, 0.5, 0.3], (30_000, 1)))
    freq = np.bincount(picks, minlength=3) / picks.size
    np.testing.assert_allclose(freq, [0.2, 0.5, 0.3], atol=0.015)
    perm = s.sample_without_replacement(50)
    assert sorted(perm.tolist()) == list(range(50))
    with pytest.raises(ValueError, match="rng must be"):
        make_stream("python", 1)


@pytest.mark.parametrize("kind", ["r", "numpy"])
def test_grouped_index_draws_equal_separate_calls(kind):
    ns, sizes = [3, 70_000, 1, 250, 2**40, 9], [4, 3, 2, 40, 5, 0]
    a, b = make_stream(kind, 8), make_stream(kind, 8)
    grouped = a.unif_index_groups(ns, sizes)
    separate = np.concatenate([b.unif_index(n, k) for n, k in zip(ns, sizes)])
    np.testing.assert_array_equal(grouped, separate)
    np.testing.assert_array_equal(a.unif_rand(3), b.unif_rand(3))  # streams at one place
    assert a.unif_index_groups([], []).size == 0
    with pytest.raises(ValueError, match="positive"):
        a.unif_index_groups([3, 0], [1, 1])


def test_r_stream_uniform_index_distribution():
    draws = RStream(9).unif_index(5571, 55_710)
    assert draws.min() >= 0 and draws.max() < 5571
    counts = np.bincount(draws // 557, minlength=11)[:10]
    assert stats.chisquare(counts).pvalue > 1e-4


@needs_rscript
def test_against_r_streams():
    code = (
        "set.seed(-17); a <- runif(500); set.seed(123456789); b <- sample.int(5571, 3000, TRUE);"
        "set.seed(2021); c <- sample(5571); set.seed(8); d <- sample.int(100000, 200, TRUE);"
        "set.seed(99); e <- sample.int(3e9, 50, TRUE);"
        "cat(sprintf('%.17g', a), b, c, d, e)"
    )
    r = _r(code)
    s = RStream(-17)
    np.testing.assert_array_equal(s.unif_rand(500), r[:500])
    np.testing.assert_array_equal(RStream(123456789).unif_index(5571, 3000) + 1, r[500:3500])
    np.testing.assert_array_equal(RStream(2021).sample_without_replacement(5571) + 1,
                                  r[3500:9071])
    np.testing.assert_array_equal(RStream(8).unif_index(100000, 200) + 1, r[9071:9271])
    np.testing.assert_array_equal(RStream(99).unif_index(3_000_000_000, 50) + 1, r[9271:])


@needs_rscript
def test_grouped_draws_and_skipped_permutations_against_r():
    """The compiled loops (grouped ``R_unif_index``, ``sample.int`` with the result kept or
    skipped) leave R's values and R's stream position."""
    code = (
        "set.seed(8); a <- c(sample.int(3, 4, TRUE), sample.int(70000, 3, TRUE),"
        " sample.int(1, 2, TRUE), sample.int(250, 40, TRUE), sample.int(2^31, 5, TRUE));"
        " a2 <- runif(2); set.seed(3); invisible(sample(100000)); b <- runif(2);"
        " set.seed(4); c <- sample.int(40000, 300); c2 <- runif(1);"
        " cat(a, sprintf('%.17g', a2), sprintf('%.17g', b), c, sprintf('%.17g', c2))"
    )
    r = _r(code)
    s = RStream(8)
    got = s.unif_index_groups([3, 70_000, 1, 250, 2**31], [4, 3, 2, 40, 5]) + 1
    np.testing.assert_array_equal(got, r[:54])
    np.testing.assert_array_equal(s.unif_rand(2), r[54:56])
    t = RStream(3)
    t.skip_permutation(100_000)
    np.testing.assert_array_equal(t.unif_rand(2), r[56:58])
    u = RStream(4)
    np.testing.assert_array_equal(u.sample_without_replacement(40_000, 300) + 1, r[58:358])
    np.testing.assert_array_equal(u.unif_rand(1), r[358:])


@needs_rscript
def test_weighted_single_draws_match_r_including_ties():
    code = (
        "set.seed(11); P <- rbind(c(.3,.3,.4), c(.25,.25,.25), c(1,1,1), c(.5,0,.5), c(2,1,1),"
        " c(1,2,2)); out <- c(); for (r in 1:300) out <- c(out, sample(3, 1, prob=P[(r-1)%%6+1,]));"
        " cat(out)"
    )
    r = _r(code).astype(int)
    P = np.array([[.3, .3, .4], [.25, .25, .25], [1, 1, 1], [.5, 0, .5], [2, 1, 1], [1, 2, 2]])
    rows = np.array([P[i % 6] for i in range(300)])
    np.testing.assert_array_equal(RStream(11).weighted_choice(rows) + 1, r)


@needs_rscript
def test_norm_rand_equals_r_rnorm_bit_for_bit():
    # inversion: two unif_rand per value, AS 241 quantile (tails use the C library's log)
    r = _r('set.seed(7); cat(sprintf("%.17g", rnorm(20000)))')
    np.testing.assert_array_equal(RStream(7).norm_rand(20000), r)
    s = RStream(7)
    s.norm_rand(3)
    assert s.n_used == 6


@pytest.mark.parametrize("seed", [0, 7, -17, 2021])
def test_compiled_mersenne_twister_equals_numpy_mt19937(seed):
    """The compiled MT_genrand against numpy's MT19937 given R's seed table: raw words across
    several regenerations of the state, drawn in pieces of every size and by the samplers."""
    ref = np.random.MT19937(0)
    ref.state = {"bit_generator": "MT19937", "state": {"key": r_seed_table(seed), "pos": 624}}
    want = ref.random_raw(5000).astype(np.int64)
    s = RStream(seed)
    got = np.concatenate([s._raw(k) for k in (1, 623, 1, 624, 1000, 2751)])
    np.testing.assert_array_equal(got, want)
    t = RStream(seed)  # samplers consume the same words: 16 bits per chunk, rejection
    draws = t.unif_index(1000, 300)
    words = want[: t.n_used] >> 16
    np.testing.assert_array_equal(draws, words[(words & 1023) < 1000][:300] & 1023)


def _reference_revsort(a):
    """R's revsort transcribed in plain Python (the version the package used before)."""
    x = [float(v) for v in a]
    n = len(x)
    ib = list(range(n))
    if n <= 1:
        return x, ib
    x.insert(0, 0.0)
    ib.insert(0, -1)
    l_ = (n >> 1) + 1
    ir = n
    while True:
        if l_ > 1:
            l_ -= 1
            ra, ii = x[l_], ib[l_]
        else:
            ra, ii = x[ir], ib[ir]
            x[ir], ib[ir] = x[1], ib[1]
            ir -= 1
            if ir == 1:
                x[1], ib[1] = ra, ii
                break
        i, j = l_, l_ << 1
        while j <= ir:
            if j < ir and x[j] > x[j + 1]:
                j += 1
            if ra > x[j]:
                x[i], ib[i] = x[j], ib[j]
                i = j
                j += j
            else:
                j = ir + 1
        x[i], ib[i] = ra, ii
    return x[1:], ib[1:]


def _reference_pick(p, u):
    total = 0.0
    for v in p:
        if v > 0:
            total += float(v)
    vals, perm = _reference_revsort([float(v) / total for v in p])
    cum = 0.0
    for j in range(len(vals) - 1):
        cum += vals[j]
        if u <= cum:
            return perm[j]
    return perm[-1]


@pytest.mark.parametrize("seed", range(6))
def test_compiled_weighted_draws_equal_the_python_reference(seed):
    """The compiled revsort and weighted pick against the plain-Python transcription, on rows
    with ties, zeros and 1-12 classes; invalid rows raise."""
    rng = np.random.default_rng(seed)
    for k in (1, 2, 3, 5, 12):
        probs = rng.choice([0.0, 0.1, 0.25, 0.5, 1.0, 3.0], size=(300, k))
        probs[:, 0] += probs.sum(axis=1) == 0  # at least one positive entry
        s, t = RStream(seed), RStream(seed)
        u = t.unif_rand(300)
        want = [_reference_pick(row, float(ur)) for row, ur in zip(probs, u)]
        np.testing.assert_array_equal(s.weighted_choice(probs), want)
        for row in probs[:20]:
            vals, idx = revsort(row)
            ref_vals, ref_idx = _reference_revsort(row)
            assert vals.tolist() == ref_vals and idx.tolist() == ref_idx
    for bad in ([0.0, 0.0], [0.5, -0.1], [np.nan, 1.0], [np.inf, 1.0]):
        with pytest.raises(ValueError, match="invalid probability"):
            RStream(1).weighted_choice(np.array([[0.3, 0.7], bad]))
