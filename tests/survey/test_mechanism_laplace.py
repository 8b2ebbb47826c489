"""Pseudo posterior mechanism (alpha, Delta, epsilon) and the Laplace baseline.

References are direct loops over the spec's formulas, written independently of the code.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from idrisk.survey import (
    alpha_weights,
    design_table,
    epsilon,
    find_alpha_scaling,
    half_sample_replicates,
    inclusion_probabilities,
    laplace_noise,
    laplace_sensitivities,
    laplace_table,
    lipschitz_bounds,
    weighted_lipschitz_bounds,
)

# --------------------------------------------------------------------------- mechanism


def ref_alpha(delta, c, g):
    finite = [d for d in delta if math.isfinite(d)]
    lo, hi = min(finite), max(finite)
    out = []
    for d in delta:
        if not math.isfinite(d):
            out.append(0.0)
            continue
        a = c * (1 - (d - lo) / (hi - lo)) + g
        out.append(min(1.0, max(0.0, a)))
    return out


def test_lipschitz_alpha_epsilon_equal_the_formulas():
    rng = np.random.default_rng(3)
    ll = rng.normal(-2, 2, size=(50, 30))
    ll[7, 4] = -np.inf
    delta = lipschitz_bounds(ll)
    for i in range(30):
        want = math.inf if i == 4 else max(abs(ll[s, i]) for s in range(50))
        assert delta[i] == want
    for c, g in [(1.0, 0.0), (0.7, 0.2), (2.0, -0.5), (0.3, 0.9)]:
        np.testing.assert_array_equal(alpha_weights(delta, c, g), ref_alpha(list(delta), c, g))
    alpha = alpha_weights(delta, 0.8, 0.1)
    assert alpha[4] == 0.0
    dal = weighted_lipschitz_bounds(ll, alpha)
    for i in range(30):
        want = 0.0 if alpha[i] == 0 else max(abs(alpha[i] * ll[s, i]) for s in range(50))
        assert dal[i] == pytest.approx(want, rel=1e-15)
    assert epsilon(1.8, 3) == 10.8
    assert epsilon(float(dal.max()), 5) == pytest.approx(2 * dal.max() * 5, rel=1e-15)


@pytest.mark.parametrize("target", [0.5, 1.8, 3.0])
def test_find_alpha_scaling_hits_the_target(target):
    delta = np.random.default_rng(5).gamma(4, 1.5, size=400)
    c, g = find_alpha_scaling(delta, target)
    assert max(a * d for a, d in zip(ref_alpha(list(delta), c, g), delta, strict=True)) == (
        pytest.approx(target, rel=1e-9))
    c2, g2 = find_alpha_scaling(delta, target, c=0.5)
    assert c2 == 0.5
    got = max(a * d for a, d in zip(ref_alpha(list(delta), c2, g2), delta, strict=True))
    assert got == pytest.approx(target, rel=1e-9)


def test_find_alpha_scaling_unreachable_target_is_an_error():
    with pytest.raises(ValueError, match="not reachable"):
        find_alpha_scaling(np.array([1.0, 2.0]), 5.0)


# --------------------------------------------------------------------------- PPS


def ref_inclusion(a, n):
    """Certainty units out one at a time, until the rest all fall below 1."""
    a = [float(v) for v in a]
    certain: set[int] = set()
    while True:
        rest = [i for i in range(len(a)) if i not in certain and a[i] > 0]
        tot = sum(a[i] for i in rest)
        pik = {i: (n - len(certain)) * a[i] / tot for i in rest}
        new = {i for i, p in pik.items() if p >= 1}
        if not new:
            break
        certain |= new
    return [1.0 if i in certain else pik.get(i, 0.0) for i in range(len(a))]


def test_inclusion_probabilities_brute_force():
    rng = np.random.default_rng(9)
    for _ in range(20):
        a = rng.lognormal(0, 1.5, size=40)
        a[rng.integers(0, 40)] = 0
        n = int(rng.integers(1, 25))
        got = inclusion_probabilities(a, n)
        np.testing.assert_allclose(got, ref_inclusion(a, n), rtol=1e-12)
        assert got.sum() == pytest.approx(n)


def test_inclusion_probabilities_of_no_unit_are_zero():
    # R: sampling::inclusionprobabilities(c(1, 2, 3), 0) is 0 0 0 (idrisk gave NaN, 0 / 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = inclusion_probabilities([1.0, 2.0, 3.0], 0)
    np.testing.assert_array_equal(got, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(inclusion_probabilities([0.0, 2.0], 0), [0.0, 0.0])


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not found")
def test_inclusion_probabilities_equal_live_r():
    rng = np.random.default_rng(12)
    cases = [(np.round(rng.lognormal(0, 2, size=30), 3), n) for n in (0, 1, 7, 29)]
    cases.append((np.array([0.0, 1.0, 2.0, 50.0, 0.5]), 3))
    code = "suppressWarnings(suppressPackageStartupMessages(library(sampling)));" + "".join(
        f"cat(sprintf('%.17g', inclusionprobabilities(c({', '.join(map(repr, a.tolist()))}), "
        f"{n})), '\\n');" for a, n in cases)
    res = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, timeout=120)
    if res.returncode != 0:
        pytest.skip(f"R's sampling package not usable: {res.stderr[-200:]}")
    lines = res.stdout.strip().splitlines()
    assert len(lines) == len(cases)
    for (a, n), line in zip(cases, lines, strict=True):
        want = np.array(line.split(), dtype=float)
        np.testing.assert_allclose(inclusion_probabilities(a, n), want, rtol=1e-13, atol=1e-15)


# --------------------------------------------------------------------------- replicates


def test_half_samples_even_strata_double_or_zero_and_keep_half():
    df = pd.DataFrame({"h": np.repeat(["a", "b", "c"], [6, 10, 7]),
                       "w": np.arange(1.0, 24.0)})
    reps = half_sample_replicates(df, "h", "w", R=50, seed=4).to_numpy()
    w = df["w"].to_numpy()
    for h, nh in (("a", 6), ("b", 10)):
        idx = (df["h"] == h).to_numpy()
        ratio = reps[idx] / w[idx, None]
        assert set(np.unique(ratio)) <= {0.0, 2.0}
        assert (np.sum(ratio == 2.0, axis=0) == nh // 2).all()
    # odd stratum (n = 7, m = 3): Preston's rescaling
    idx = (df["h"] == "c").to_numpy()
    lam = math.sqrt(3 / 4)
    ratio = np.round(reps[idx] / w[idx, None], 12)
    assert set(np.unique(ratio)) == {round(1 - lam, 12), round(1 - lam + lam * 7 / 3, 12)}


def test_half_sample_variance_matches_taylor_on_average():
    """Over many replicates the half-sample variance of a total is the Taylor variance."""
    rng = np.random.default_rng(8)
    df = pd.DataFrame({"h": np.repeat(["a", "b"], [9, 12]), "g": "x",
                       "y": rng.lognormal(0, 1, 21), "w": rng.uniform(1, 5, 21)})
    reps = half_sample_replicates(df, "h", "w", R=20000, seed=3)
    rep = design_table(df, "y", "w", "h", by=["g"], margins=False, variance="replicate",
                       replicate_weights=reps).table
    tay = design_table(df, "y", "w", "h", by=["g"], margins=False).table
    # Monte Carlo error of a variance from 20000 replicates is about 1-2%
    assert rep["count_se"].iloc[0] ** 2 == pytest.approx(tay["count_se"].iloc[0] ** 2, rel=0.05)


# --------------------------------------------------------------------------- Laplace


def small_sample(seed=1, n=120):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "h": rng.choice(["A", "B", "C"], n), "g": rng.choice(["f", "m"], n),
        "y": rng.lognormal(11, 0.4, n), "w": rng.lognormal(4, 0.6, n),
    })


def test_sensitivities_equal_brute_force_leave_one_out():
    df = small_sample()
    sens = laplace_sensitivities(df, "y", "w", by=["h", "g"])
    for _, row in sens.iterrows():
        mask = np.ones(len(df), dtype=bool)
        for col in ("h", "g"):
            if row[col] != "All":
                mask &= (df[col] == row[col]).to_numpy()
        cell = df.loc[mask]
        mu = np.sum(cell.w * cell.y) / np.sum(cell.w)
        loo = []
        for i in range(len(cell)):
            rest = cell.drop(cell.index[i])
            loo.append(abs(mu - np.sum(rest.w * rest.y) / np.sum(rest.w)))
        assert row["mean_sensitivity"] == pytest.approx(max(loo), rel=1e-9)
        assert row["count_sensitivity"] == cell.w.max()


@pytest.mark.parametrize("scale", [0.5, 30.0])
def test_numpy_noise_has_the_stated_scale(scale):
    x = laplace_noise(scale, 20000, rng=np.random.default_rng(2))
    assert stats.kstest(x, stats.laplace(scale=scale).cdf).pvalue > 0.01
    # and not another scale: the test can fail
    assert stats.kstest(x, stats.laplace(scale=1.2 * scale).cdf).pvalue < 1e-6


def test_opendp_noise_has_the_stated_scale():
    pytest.importorskip("opendp")
    x = laplace_noise(np.full(3000, 4.0), backend="opendp")
    assert stats.kstest(x, stats.laplace(scale=4.0).cdf).pvalue > 0.001


@pytest.mark.filterwarnings("ignore:rows with one unit")
def test_laplace_table_noise_scale_and_budget():
    """Noisy minus exact count over many seeds is Laplace(Delta* / eps_q)."""
    df = small_sample(2)
    exact = design_table(df, "y", "w", "h", by=["h", "g"]).table
    sens = laplace_sensitivities(df, "y", "w", by=["h", "g"])
    eps = 10.8
    diffs = []
    for seed in range(200):
        tab = laplace_table(df, "y", "w", "h", by=["h", "g"], epsilon=eps, seed=seed)
        diffs.append(tab.table["count"].to_numpy() - exact["count"].to_numpy())
    info = tab.info
    assert info["releases"] == 2 * 4 * 11
    assert info["epsilon_per_release"] == pytest.approx(eps / 88)
    scale = sens["count_sensitivity"].max() / (eps / 88)
    assert tab.table["count_scale"].iloc[0] == pytest.approx(scale)
    d = np.concatenate(diffs)
    assert stats.kstest(d, stats.laplace(scale=scale).cdf).pvalue > 0.001


def test_laplace_is_seeded_and_not_additive():
    df = small_sample(3)
    a = laplace_table(df, "y", "w", "h", by=["h", "g"], epsilon=10.8, seed=5)
    b = laplace_table(df, "y", "w", "h", by=["h", "g"], epsilon=10.8, seed=5)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert a.additivity() > 1e-3
    assert design_table(df, "y", "w", "h", by=["h", "g"]).additivity() < 1e-12


def test_opendp_backend_or_clear_import_error(monkeypatch):
    df = small_sample(4)
    try:
        import opendp  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"idrisk\[dp\]"):
            laplace_table(df, "y", "w", "h", by=["g"], epsilon=1.0, backend="opendp")
        return
    tab = laplace_table(df, "y", "w", "h", by=["g"], epsilon=1.0, seed=1, backend="opendp")
    assert tab.info["backend"] == "opendp"
    import sys

    monkeypatch.setitem(sys.modules, "opendp", None)
    monkeypatch.setitem(sys.modules, "opendp.prelude", None)
    with pytest.raises(ImportError, match=r"idrisk\[dp\]"):
        laplace_table(df, "y", "w", "h", by=["g"], epsilon=1.0, backend="opendp")
