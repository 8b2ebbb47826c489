"""coefficient_ci_overlap against R's lm (rpy2): cases a randomized differential run found.

The run (/tmp/util2/diff_comb.py, 60 random data sets, y ~ factors + numeric, m = 1-3
synthpop syntheses) matched R in all 32 full-rank cases; the cases below differed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from idrisk.utility import coefficient_ci_overlap

pytestmark = pytest.mark.needs_r


def _r():
    from idrisk.rcompat import RNotAvailableError
    from idrisk.rcompat._session import robjects

    try:
        return robjects()
    except RNotAvailableError as exc:
        pytest.skip(f"needs R: {exc}")


def _r_lm(data: pd.DataFrame, formula: str) -> pd.DataFrame:
    """R's ``coef(lm(formula, data))`` and ``confint`` (NA for an aliased column)."""
    from idrisk.rcompat.convert import dataframe_to_r

    ro = _r()
    ro.globalenv["d"] = dataframe_to_r(data)
    ro.r(f"fit <- lm({formula}, data = d); ci <- confint(fit)")
    return pd.DataFrame({"coef": np.asarray(ro.r("unname(coef(fit))"), dtype=float),
                         "low": np.asarray(ro.r("unname(ci[, 1])"), dtype=float),
                         "high": np.asarray(ro.r("unname(ci[, 2])"), dtype=float)},
                        index=list(ro.r("names(coef(fit))")))


def _with_empty_reference(seed: int, n: int = 200) -> pd.DataFrame:
    """g declares level "a" (the reference) but no record has it."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["b", "c", "d"], n)
    x = np.round(rng.normal(size=n), 2)
    y = np.round(x + (g == "c") + rng.normal(size=n), 3)
    return pd.DataFrame({"g": pd.Categorical(g, categories=list("abcd")), "x": x, "y": y})


def test_an_unused_level_is_dropped_as_in_r():
    """Was: statsmodels kept the unused reference level, so the dummies added up to the
    intercept and the rank-deficient design was solved by pseudo-inverse; R's lm drops unused
    levels (the first present level is the reference). Every factor coefficient and interval
    differed (random case: 0.087 [-0.08, 0.25] against R's -0.236 [-0.52, 0.05]; 27 of 59
    random cases had such a design, all 32 full-rank ones were equal)."""
    orig, syn = _with_empty_reference(1), _with_empty_reference(2)
    ro_, rs_ = _r_lm(orig, "y ~ g + x"), _r_lm(syn, "y ~ g + x")
    assert list(ro_.index) == ["(Intercept)", "gc", "gd", "x"]   # reference b
    for term, rname in (("g[T.c]", "gc"), ("g[T.d]", "gd"), ("x", "x")):
        res = coefficient_ci_overlap(orig, syn, "y ~ g + x", term)
        np.testing.assert_allclose(
            res[["estimate_orig", "ci_low_orig", "ci_high_orig"]].to_numpy(dtype=float),
            ro_.loc[rname].to_numpy(), rtol=1e-9)
        np.testing.assert_allclose(
            res[["estimate_syn", "ci_low_syn", "ci_high_syn"]].to_numpy(dtype=float),
            rs_.loc[rname].to_numpy(), rtol=1e-9)
    # two synthetic datasets: q_bar is the mean of R's two estimates
    third = _with_empty_reference(3)
    res = coefficient_ci_overlap(orig, [syn, third], "y ~ g + x", "g[T.c]")
    r3 = _r_lm(third, "y ~ g + x")
    assert res["estimate_syn"] == pytest.approx((rs_.loc["gc", "coef"] + r3.loc["gc", "coef"])
                                                / 2, rel=1e-9)


def test_aliased_or_missing_terms_are_refused_naming_term_and_dataset():
    """R's lm gives NA for an aliased coefficient (and none for a missing level); idrisk gave
    a pseudo-inverse number."""
    orig = _with_empty_reference(1).assign(z=lambda d: 2 * d["x"])
    assert np.isnan(_r_lm(orig, "y ~ g + x + z").loc["z", "coef"])
    with pytest.raises(ValueError, match=r"'z' is aliased in the confidential data"):
        coefficient_ci_overlap(orig, orig, "y ~ g + x + z", "z")
    syn = orig[orig["g"] != "d"]
    with pytest.raises(ValueError, match=r"g\[T\.d\].*synthetic dataset 2"):
        coefficient_ci_overlap(orig, [orig, syn], "y ~ g + x", "g[T.d]")
