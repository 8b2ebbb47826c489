"""fit_ordered_logit against live MASS::polr (rpy2): a case a randomized differential run found."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from idrisk.exceptions import UtilityWarning
from idrisk.utility import fit_ordered_logit

pytestmark = pytest.mark.needs_r


def _polr(data: pd.DataFrame, formula: str) -> tuple[pd.Series, np.ndarray, np.ndarray]:
    """``polr(formula, data, Hess = TRUE)``: coefficients, cut points, standard errors."""
    from idrisk.rcompat import RNotAvailableError, require_r_package
    from idrisk.rcompat._session import robjects
    from idrisk.rcompat.convert import dataframe_to_r

    try:
        require_r_package("MASS")
    except RNotAvailableError as exc:
        pytest.skip(f"needs the R package MASS: {exc}")
    ro = robjects()
    ro.globalenv["d"] = dataframe_to_r(data)
    ro.r(f"fit <- suppressWarnings(MASS::polr({formula}, data = d, Hess = TRUE, "
         "control = list(reltol = 1e-14, maxit = 10000)))")
    coef = pd.Series(np.asarray(ro.r("fit$coefficients"), dtype=float),
                     index=list(ro.r("names(fit$coefficients)")))
    return (coef, np.asarray(ro.r("fit$zeta"), dtype=float),
            np.sqrt(np.asarray(ro.r("diag(vcov(fit))"), dtype=float)))


def test_absent_reference_level_drops_the_last_dummy_as_polr():
    """Was: with the reference level absent idrisk dropped the first present level's dummy,
    polr (its rank check) drops the last one, so every factor coefficient had another
    reference than polr's (1 of 38 random cases; e.g. f0L2 -0.097 against polr's -2.984)."""
    rng = np.random.default_rng(7)
    n = 300
    g = rng.choice(["b", "c", "d", "e"], n, p=[0.4, 0.3, 0.2, 0.1])
    x = np.round(rng.normal(size=n), 2)
    lat = 0.7 * x + 0.8 * (g == "c") + rng.logistic(size=n)
    d = pd.DataFrame({"y": pd.Categorical(np.searchsorted([-1.0, 0.0, 1.2], lat) + 1,
                                          categories=[1, 2, 3, 4], ordered=True),
                      "g": pd.Categorical(g, categories=list("abcde")), "x": x})
    coef, zeta, se = _polr(d, "y ~ g + x")
    assert list(coef.index) == ["gb", "gc", "gd", "x"]          # ge aliased: reference e
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = fit_ordered_logit(d, "y", ["g", "x"])
    assert any(issubclass(w.category, UtilityWarning) and "['ge']" in str(w.message)
               for w in caught)
    assert np.isnan(f.coef["ge"])
    np.testing.assert_allclose(f.coef[coef.index].to_numpy(), coef.to_numpy(), atol=1e-5)
    np.testing.assert_allclose(f.zeta.to_numpy(), zeta, atol=1e-5)
    ours_se = np.concatenate([f.coef_se[coef.index].to_numpy(), f.zeta_se.to_numpy()])
    np.testing.assert_allclose(ours_se, se, rtol=1e-3)
