"""DPMPM: engines, K = 1 limit, latent-class modes, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from idrisk.categorical import DPMPM, KStarWarning, _kernels, dpmpm_synthesize
from idrisk.exceptions import NotFittedError


def _data(n=600, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = rng.integers(0, 3, n)
    lab = (3 * a + 2 * b + rng.integers(0, 3, n)) % 9
    return pd.DataFrame({"a": pd.Categorical(a), "b": pd.Categorical(b),
                         "lab": pd.Categorical([f"L{v}" for v in lab])})


def _z_step_reference(pi, thetaT, parent, col, leaf_of_record, u, K):
    """The class step in plain numpy with the kernel's association order: class weights down
    the prefix tree (``P[node] = P[parent] * thetaT[col]``), running sums left to right, z =
    the number of running sums <= u * total (clipped to K - 1)."""
    P = np.empty((parent.shape[0], K))
    P[0] = pi
    for node in range(1, parent.shape[0]):
        P[node] = P[parent[node]] * thetaT[col[node]]
    cdf = np.cumsum(P, axis=1)
    rows = cdf[leaf_of_record]
    z = (rows <= (u * rows[:, K - 1])[:, None]).sum(axis=1)
    return np.minimum(z, K - 1)


def test_z_step_never_draws_an_empty_class_at_the_boundary():
    """u = 0 puts the threshold on the running sums of empty leading classes: z is the first
    class with positive weight (z counts the running sums <= threshold, ties included)."""
    pi = np.array([0.0, 0.5, 0.0, 0.5])
    thetaT = np.ones((2, 4))
    parent, col = np.array([0, 0, 0]), np.array([0, 0, 1])  # root and two leaves
    leaf = np.array([1, 2, 1, 2])
    u = np.array([0.0, 0.0, 0.5, 1.0])
    z = np.empty(4, dtype=np.int64)
    counts = np.zeros((4, 3), dtype=np.int64)
    _kernels.z_step(pi, thetaT, parent, col, leaf, u, z, counts, np.zeros((4, 1), np.int64))
    np.testing.assert_array_equal(z, _z_step_reference(pi, thetaT, parent, col, leaf, u, 4))
    np.testing.assert_array_equal(z, [1, 1, 3, 3])


def test_z_step_kernels_agree_with_a_direct_categorical_draw():
    """The prefix-tree kernel equals the textbook draw: first k with cdf_k > u * total."""
    rng = np.random.default_rng(1)
    df = _data(200, 1)
    model = DPMPM(K=6, seed=1, progress=False, n_iter=20, burn=10, keep=1).fit(df, "lab")
    snap = model._snapshots[0]
    codes = np.column_stack([df[c].cat.codes for c in df])
    w = snap.pi[None, :] * np.prod([snap.theta[j][:, codes[:, j]].T for j in range(3)], axis=0)
    u = rng.random(len(df))
    expected = np.array([np.argmax(np.cumsum(row) > ui * row.sum()) for row, ui in zip(w, u)])
    from idrisk.categorical.dpmpm import _prefix_tree
    d = np.array([2, 3, 9])
    offsets = np.concatenate([[0], np.cumsum(d)])
    theta_flat = np.concatenate(snap.theta, axis=1)
    parent, col, slices, leaf = _prefix_tree(codes, offsets)
    rec_cols = codes + offsets[:-1]
    z = np.empty(len(df), dtype=np.int64)
    counts = np.zeros((6, offsets[-1] + 1), dtype=np.int64)
    thetaT = np.ascontiguousarray(theta_flat.T)
    _kernels.z_step(snap.pi, thetaT, parent, col, leaf, u, z, counts, rec_cols)
    # products in another association order may round differently at a boundary
    assert (z == expected).mean() > 0.99
    np.testing.assert_array_equal(z, _z_step_reference(snap.pi, thetaT, parent, col, leaf, u, 6))
    np.testing.assert_array_equal(counts[:, 0], np.bincount(z, minlength=6))
    np.testing.assert_array_equal(counts[:, 1 + offsets[2]:].sum(axis=1), counts[:, 0])
    for j in range(3):  # (class, level) counts of every variable
        want = np.zeros((6, d[j]), dtype=np.int64)
        np.add.at(want, (z, codes[:, j]), 1)
        np.testing.assert_array_equal(counts[:, 1 + offsets[j]:1 + offsets[j + 1]], want)


def test_K_one_synthetic_label_frequencies_converge_to_the_marginal():
    df = _data(800, 2)
    fit = DPMPM(K=1, seed=5, progress=False, n_iter=400, burn=100, keep=40).fit(df, "lab")
    assert (fit.trace_["kstar"] == 1).all()
    marg = df["lab"].value_counts(normalize=True).sort_index()
    for z in ("kept", "prior", "gibbs"):
        out = fit.set_params(z=z).synthesize(40, seed=1)
        freq = pd.concat([d["lab"] for d in out]).value_counts(normalize=True)
        freq = freq.reindex(marg.index)
        # multinomial noise over 40 x 800 draws plus the Dirichlet posterior's spread
        se = np.sqrt(marg * (1 - marg) * (1 / (40 * 800) + 1 / 800))
        assert (np.abs(freq - marg) < 4 * se).all(), (z, freq - marg)


def test_kept_mode_keeps_the_relation_with_kept_variables_prior_mode_does_not():
    df = _data(800, 3)
    fit = DPMPM(K=20, seed=2, progress=False, n_iter=1500, burn=700, keep=5).fit(df, "lab")

    def dev(out):  # sum of absolute deviations of the two-way table lab x a, m-averaged
        t0 = pd.crosstab(df["a"], df["lab"])
        return np.mean([np.abs(pd.crosstab(d["a"], d["lab"]) - t0).to_numpy().sum()
                        for d in out])

    kept, prior = (dev(fit.set_params(z=z).synthesize(5, seed=4)) for z in ("kept", "prior"))
    assert kept < 0.5 * prior, (kept, prior)


def test_gibbs_mode_pulls_towards_the_true_label():
    # five latent classes, each concentrated on two labels; the kept variable barely
    # depends on the class, so only the true label reveals it
    rng = np.random.default_rng(4)
    c = rng.integers(0, 5, 800)
    lab = np.where(rng.random(800) < 0.9, 2 * c + rng.integers(0, 2, 800),
                   rng.integers(0, 10, 800))
    df = pd.DataFrame({"a": pd.Categorical(rng.random(800) < 0.45 + 0.02 * c),
                       "lab": pd.Categorical(lab)})
    fit = DPMPM(K=20, seed=2, progress=False, n_iter=1500, burn=700, keep=5).fit(df, "lab")
    hits = {z: np.mean([(d["lab"] == df["lab"]).mean()
                        for d in fit.set_params(z=z).synthesize(5, seed=1)])
            for z in ("kept", "gibbs")}
    # kept: about the sum of squared label shares (0.1); SE of each rate is about 0.005
    assert hits["kept"] < 0.12 and hits["gibbs"] > hits["kept"] + 0.04, hits


def test_kept_iterations_are_well_separated_and_end_at_n_iter():
    fit = DPMPM(K=5, seed=1, progress=False, n_iter=1000, burn=500, keep=5).fit(_data(100), "lab")
    assert [s.iteration for s in fit._snapshots] == [600, 700, 800, 900, 1000]


def test_kstar_warning_when_K_is_too_small():
    with pytest.warns(KStarWarning, match="K = 2"):
        DPMPM(K=2, seed=1, progress=False, n_iter=100, burn=50, keep=2).fit(_data(300), "lab")


def test_synthetic_data_keep_dtypes_index_and_kept_columns():
    df = _data(300).set_index(np.arange(300) + 1000)
    df["lab_str"] = df["lab"].astype(str)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KStarWarning)
        out = dpmpm_synthesize(df, ["lab", "lab_str"], m=2, K=5, n_iter=100, burn=50, seed=1,
                               progress=False)
    for d in out:
        assert list(d.columns) == list(df.columns)
        assert d["lab"].dtype == df["lab"].dtype and d["lab_str"].dtype == df["lab_str"].dtype
        pd.testing.assert_index_equal(d.index, df.index)
        pd.testing.assert_series_equal(d["a"], df["a"])
    assert "dpmpm" in repr(out) and out.to_frame()["dataset"].tolist()[-1] == 2
    assert "<p>" in out._repr_html_()
    assert out.diagnostics["iteration"].tolist() == [75, 100]


def test_errors_name_the_argument():
    df = _data(50)
    with pytest.raises(ValueError, match="K must"):
        DPMPM(K=0).fit(df, "lab")
    bad = df.astype(object)
    bad.loc[3, "b"] = None
    with pytest.raises(ValueError, match="'b'"):
        DPMPM(progress=False, n_iter=10, burn=5, keep=1).fit(bad, "lab")
    with pytest.raises(KeyError, match="nope"):
        DPMPM(K=3, progress=False, seed=1, n_iter=10, burn=5, keep=1).fit(df, "nope")
    fit = DPMPM(K=3, progress=False, seed=1, n_iter=10, burn=5, keep=1).fit(df, "lab")
    with pytest.raises(ValueError, match="z must"):
        fit.set_params(z="posterior").synthesize(1)
    with pytest.raises(ValueError, match="m=2 exceeds"):
        fit.set_params(z="kept").synthesize(2)
    with pytest.raises(NotFittedError, match="fit"):
        DPMPM().synthesize(1)
