"""Invalid inputs of the survey tables, the mechanism and the synthesizers: errors that name
the argument, raised before any work (no Stan fit)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from idrisk.survey import FBP, FBS, design_table, epsilon, half_sample_replicates, laplace_table

DF = pd.DataFrame({"h": ["a", "a", "b", "b"], "g": ["x", "y", "x", "y"],
                   "y": [1.0, 2.0, 3.0, 4.0], "w": [1.0, 2.0, 3.0, 4.0]})
W = np.ones((4, 3))


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"scale": -1.0}, "scale must be a positive number"),
    ({"scale": float("nan")}, "scale must be a positive number"),
    ({"rscales": [-1.0, 1.0, 1.0]}, "rscales must be finite and non-negative"),
    ({"rscales": [np.nan, 1.0, 1.0]}, "rscales must be finite and non-negative"),
])
def test_replicate_scales_are_checked(kwargs, match):
    with pytest.raises(ValueError, match=match):
        design_table(DF, "y", "w", "h", variance="replicate", replicate_weights=W, **kwargs)


def test_rscales_with_taylor_is_an_error():
    with pytest.raises(ValueError, match="rscales given but variance='taylor'"):
        design_table(DF, "y", "w", "h", rscales=[1.0, 1.0, 1.0])


def test_half_samples_refuse_negative_weights():
    with pytest.raises(ValueError, match="weight column 'w' has negative values"):
        half_sample_replicates(DF.assign(w=[-1.0, 1.0, 1.0, 1.0]), "h", "w")


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"epsilon": "1"}, "epsilon must be a positive number"),
    ({"epsilon": True}, "epsilon must be a positive number"),
    ({"epsilon": 1.0, "replicates": 1}, "replicates must be an integer >= 2"),
])
def test_laplace_arguments_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        laplace_table(DF, "y", "w", "h", "g", **kwargs)


@pytest.mark.parametrize("value", [-1.0, float("nan"), float("inf")])
def test_epsilon_refuses_a_bad_delta_alpha(value):
    with pytest.raises(ValueError, match="delta_alpha must be a finite non-negative number"):
        epsilon(value, 3)


@pytest.mark.parametrize("cls", [FBS, FBP])
def test_synthesizers_name_a_missing_known_column(cls):
    with pytest.raises(KeyError, match="known='zz' is not a column"):
        cls(syn="y", weight="w", known=["zz"]).fit(DF)


@pytest.mark.parametrize("cls", [FBS, FBP])
@pytest.mark.parametrize("target", [-1.0, 0.0, float("nan"), "1.8"])
def test_synthesizers_check_target_delta_before_fitting(cls, target, monkeypatch):
    def no_stan(*args, **kwargs):
        raise AssertionError("Stan was called before target_delta was checked")

    monkeypatch.setattr(cls, "_sample", no_stan)
    with pytest.raises(ValueError, match="target_delta must be a positive number"):
        cls(syn="y", weight="w", known=["h"], target_delta=target).fit(DF)



def test_laplace_warning_points_at_the_users_line():
    from idrisk.exceptions import SensitivityWarning

    df = pd.DataFrame({"h": ["a"] * 4 + ["b"] * 4, "g": ["x"] * 7 + ["y"],
                       "y": np.arange(1.0, 9.0), "w": np.full(8, 2.0)})
    with pytest.warns(SensitivityWarning) as record:
        laplace_table(df, "y", "w", "h", "g", epsilon=5.0, seed=1)
    assert {r.filename for r in record if r.category is SensitivityWarning} == {__file__}
