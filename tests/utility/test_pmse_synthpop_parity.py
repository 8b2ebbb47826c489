"""pMSE against live synthpop::utility.gen (rpy2): cases a randomized differential run found.

Each test names what differed before the fix; all call R in this process (embedded R).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from idrisk.exceptions import UtilityWarning
from idrisk.utility import pmse

pytestmark = pytest.mark.needs_r


def _r():
    from idrisk.rcompat import RNotAvailableError, require_r_package
    from idrisk.rcompat._session import robjects

    try:
        require_r_package("synthpop")
    except RNotAvailableError as exc:
        pytest.skip(f"needs the R package synthpop: {exc}")
    ro = robjects()
    ro.r('invisible(Sys.setlocale("LC_COLLATE", "C")); suppressMessages(library(synthpop))')
    return ro


def _utility_gen(orig: pd.DataFrame, syns: list[pd.DataFrame], args: str) -> dict:
    """synthpop::utility.gen(syns, orig, <args>, print.flag = FALSE): pMSE, S_pMSE, SPECKS."""
    from idrisk.rcompat.convert import dataframe_to_r, dataframes_to_r

    ro = _r()
    ro.globalenv["o"] = dataframe_to_r(orig)
    ro.globalenv["s"] = dataframes_to_r(syns) if len(syns) > 1 else dataframe_to_r(syns[0])
    ro.r(f"u <- utility.gen(s, o, {args}, print.flag = FALSE)")
    return {k: np.asarray(ro.r(f"as.numeric(u${k})"), dtype=float)
            for k in ("pMSE", "S_pMSE", "SPECKS")}


def _mixed(rng: np.random.Generator, n: int) -> pd.DataFrame:
    return pd.DataFrame({
        "x": np.round(rng.normal(size=n), 3),
        "g": pd.Categorical(rng.choice(list("abc"), n, p=[0.6, 0.3, 0.1])),
        "k": rng.integers(0, 10, n).astype(float)})


def test_perm_null_is_half_the_mean_permuted_pmse_as_synthpop():
    """Was: idrisk's permutation null was the mean permuted pMSE, synthpop's is half of it, so
    S_pMSE was half synthpop's (ratio 0.47-0.55 in 48 of 48 random cart cases)."""
    rng = np.random.default_rng(11)
    orig = _mixed(rng, 300)
    syn = orig.assign(x=np.round(rng.normal(0.3, 1, 300), 3))
    ro = _r()
    ro.r("set.seed(5)")
    ref = _utility_gen(orig, [syn], 'method = "cart", resamp.method = "perm", nperms = 50')
    ours = pmse(orig, syn, resamp_method="perm", n_repeats=50, seed=5)
    np.testing.assert_allclose(ours.pMSE.to_numpy(), ref["pMSE"], rtol=1e-12)
    # different permutation draws: the nulls agree to their noise (50 permutations)
    ratio = ours.S_pMSE.iloc[0] / ref["S_pMSE"][0]
    assert 0.8 < ratio < 1.25, ratio


def test_pairs_null_gives_the_first_dataset_of_a_pair_the_synthetic_role():
    """Was: with datasets of different sizes the pair's pMSE depends on which one is in the
    synthetic role; idrisk took the second, synthpop the first (S_pMSE off by 8e-4)."""
    rng = np.random.default_rng(1064)
    base = _mixed(rng, 600)
    syns = [base.sample(n, replace=True, random_state=k).reset_index(drop=True)
            .assign(x=lambda d, k=k: np.round(d["x"] + rng.normal(0, 0.3 * k, len(d)), 3))
            for k, n in enumerate([600, 540, 450], start=1)]
    ref = _utility_gen(base, syns, 'method = "cart", resamp.method = "pairs"')
    ours = pmse(base, syns, resamp_method="pairs")
    np.testing.assert_allclose(ours.pMSE.to_numpy(), ref["pMSE"], rtol=1e-12)
    np.testing.assert_allclose(ours.S_pMSE.to_numpy(), ref["S_pMSE"], rtol=1e-12)


def test_missing_value_indicators_come_after_the_variables_as_synthpop():
    """Was: the indicator ``v0_NA`` sat next to ``v0``; synthpop appends the indicators after
    all variables and rpart breaks ties between equal splits by column order, so a CART
    pMSE differed (0.04273 against synthpop's 0.04380)."""
    rng = np.random.default_rng(43)
    n = 200
    v0 = rng.integers(0, 3, n).astype(float)
    v0[rng.random(n) < 0.08] = np.nan
    orig = pd.DataFrame({"v0": v0, "v1": rng.integers(0, 100, n).astype(float)})
    syns = [orig.iloc[rng.integers(0, n, size)].reset_index(drop=True)
            for size in (200, 214, 190, 230)]
    for s in syns:
        s["v0"] = orig["v0"].iloc[rng.integers(0, n, len(s))].to_numpy()
    ref = _utility_gen(orig, syns, 'method = "cart", resamp.method = "none"')
    ours = pmse(orig, syns, resamp_method="none")
    np.testing.assert_allclose(ours.pMSE.to_numpy(), ref["pMSE"], rtol=1e-12)
    np.testing.assert_allclose(ours.SPECKS.to_numpy(), ref["SPECKS"], atol=1e-12)


def test_separated_logit_stops_where_glm_stops():
    """Was: a saturated (perfectly separating) logit model gave pMSE 0.13-0.18 with
    statsmodels; R's glm reaches the separation, pMSE 0.25. Also: glm's stopping rule gave
    relative differences of 1e-6 to 5e-6 on ordinary models; now 1e-9."""
    rng = np.random.default_rng(1012)
    n = 60
    orig = pd.DataFrame({
        "a": pd.Categorical(rng.choice(list("abcde"), n)),
        "b": pd.Categorical(rng.choice(list("pqrstu"), n)),
        "x": np.round(rng.normal(size=n), 2), "k": rng.integers(0, 5, n).astype(float)})
    syn = orig.sample(n, replace=True, random_state=3).reset_index(drop=True)
    syn["x"] = np.round(rng.normal(size=n), 2)
    ref = _utility_gen(orig, [syn], 'method = "logit", maxorder = 2, resamp.method = "none"')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        ours = pmse(orig, syn, method="logit", maxorder=2, resamp_method="none",
                    max_params=None)
    np.testing.assert_allclose(ours.pMSE.to_numpy(), ref["pMSE"], rtol=1e-9)
    assert ref["pMSE"][0] == pytest.approx(0.25)
    ordinary = _mixed(np.random.default_rng(4), 400)
    other = _mixed(np.random.default_rng(5), 380)
    ref = _utility_gen(ordinary, [other], 'method = "logit", resamp.method = NULL')
    ours = pmse(ordinary, other, method="logit")
    np.testing.assert_allclose(ours.pMSE.to_numpy(), ref["pMSE"], rtol=1e-9)
    np.testing.assert_allclose(ours.S_pMSE.to_numpy(), ref["S_pMSE"], rtol=1e-9)


def test_maxorder_not_below_the_number_of_variables_is_refused_as_synthpop():
    """Was: idrisk returned numbers where synthpop stops ("maxorder cannot be greater or
    equal to the number of variables"); a numeric column's missing-value indicator counts."""
    rng = np.random.default_rng(2)
    orig = _mixed(rng, 100)[["x", "k"]]
    syn = _mixed(rng, 100)[["x", "k"]]
    ro = _r()
    from idrisk.rcompat.convert import dataframe_to_r

    ro.globalenv["o"], ro.globalenv["s"] = dataframe_to_r(orig), dataframe_to_r(syn)
    with pytest.raises(Exception, match="maxorder cannot be greater"):
        ro.r('utility.gen(s, o, method = "logit", maxorder = 2, print.flag = FALSE)')
    with pytest.raises(ValueError, match=r"maxorder=2 must be less than the number of model "
                                         r"variables \(2: \['x', 'k'\]"):
        pmse(orig, syn, method="logit", maxorder=2)
    # with x missing somewhere, x_NA is a third variable: allowed, as in synthpop
    orig.loc[:9, "x"] = np.nan
    ref = _utility_gen(orig, [syn], 'method = "logit", maxorder = 2, resamp.method = "none"')
    ours = pmse(orig, syn, method="logit", maxorder=2, resamp_method="none")
    np.testing.assert_allclose(ours.pMSE.to_numpy(), ref["pMSE"], rtol=1e-9)


def test_max_params_counts_the_levels_synthpop_counts():
    """Was: idrisk counted every level of the union of the datasets (empty levels, levels
    only a synthetic dataset has, a missing level only a synthetic dataset has) and refused a
    model synthpop fits (407 parameters against synthpop's 298 in a random case)."""
    import re

    from idrisk.utility.propensity import logit_n_params

    rng = np.random.default_rng(1236)
    n = 150
    cats = ["L0", "L1", "L2", "L3", "L4", "Lempty"]

    def frame(na_g: float, na_x: float, levels: list[str]) -> pd.DataFrame:
        g = rng.choice(levels, n).astype(object)
        g[rng.random(n) < na_g] = None
        x = np.round(rng.normal(size=n), 2)
        x[rng.random(n) < na_x] = np.nan
        return pd.DataFrame({"g": pd.Categorical(g, categories=cats), "x": x,
                             "h": pd.Categorical(rng.choice(list("abcd"), n)),
                             "z": rng.integers(0, 9, n).astype(float)})

    ro = _r()
    from idrisk.rcompat.convert import dataframe_to_r, dataframes_to_r

    cases = [(frame(0, 0.1, cats[:3]), [frame(0.2, 0, cats[:5])]),     # g: L3, L4, NA in syn
             (frame(0.1, 0.1, cats[:4]), [frame(0.1, 0, cats[:4]), frame(0.1, 0.1, cats[:2])])]
    for orig, syns in cases:
        ro.globalenv["o"] = dataframe_to_r(orig)
        ro.globalenv["s"] = dataframes_to_r(syns) if len(syns) > 1 else dataframe_to_r(syns[0])
        for maxorder in (1, 2):
            with pytest.raises(Exception, match="large model") as info:
                ro.r(f'utility.gen(s, o, method = "logit", maxorder = {maxorder}, '
                     'max.params = 1, print.flag = FALSE)')
            theirs = int(re.search(r"with (\d+) parameters", str(info.value)).group(1))
            assert logit_n_params(orig, syns, maxorder=maxorder) == theirs
            with pytest.raises(ValueError, match=f"large model with {theirs} parameters"):
                pmse(orig, syns, method="logit", maxorder=maxorder, max_params=theirs - 1)
            pmse(orig, syns, method="logit", maxorder=maxorder, max_params=theirs,
                 resamp_method="none")
