"""One synthesizer protocol, checked on all six synthesizers (as scikit-learn's
``check_estimator`` does for estimators).

Each synthesizer runs on a small dataset (the Stan-based ones with tiny chains, marked
``stan``): explicit ``__init__`` signature, parameters stored unchanged, ``fit`` returns
self and keeps what it learns in ``*_`` attributes, ``synthesize(m, seed)`` returns a
:class:`~idrisk.SyntheticData` with the input's columns and dtypes, the same seed gives the
same datasets and another seed other ones, and ``synthesize`` before ``fit`` says to fit.
"""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pytest

from idrisk import SyntheticData
from idrisk._synthetic import Synthesizer
from idrisk.categorical import DPMPM, DPAreal
from idrisk.exceptions import NotFittedError
from idrisk.survey import FBP, FBS
from idrisk.synthesis import CARTSynthesizer
from idrisk.weighted import RiskWeightedSynthesizer

STAN = {"chains": 1, "warmup": 150, "draws": 150, "progress": False}


def _mixed(n: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "x": rng.normal(size=n).round(2),
        "c": pd.Categorical(rng.choice(["a", "b", "c"], n)),
        "flag": rng.random(n) < 0.4,
        "k": rng.integers(0, 5, n),
    })


def _labels(n: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    a = rng.integers(0, 2, n)
    return pd.DataFrame({"a": pd.Categorical(a), "b": rng.choice(["u", "v"], n),
                         "lab": pd.Categorical((a + rng.integers(0, 4, n)) % 4)})


def _counts(n: int = 150) -> pd.DataFrame:
    rng = np.random.default_rng(2)
    return pd.DataFrame({"y": rng.negative_binomial(5, 0.2, n), "grp": rng.choice(["a", "b"], n)})


def _survey(n: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    cell = rng.choice(["a", "b"], n)
    return pd.DataFrame({"cell": cell,
                         "y": np.exp(10 + 0.3 * (cell == "b") + 0.3 * rng.standard_normal(n)),
                         "w": np.exp(3 + 0.3 * rng.standard_normal(n))})


@dataclass
class Case:
    make: Any
    params: dict
    data: Any
    marks: tuple = ()


CASES = {
    "CARTSynthesizer": Case(CARTSynthesizer, {"syn": ["x", "c", "flag"], "minbucket": 3},
                            _mixed),
    "DPMPM": Case(DPMPM, {"syn": "lab", "variables": ["a", "b", "lab"], "K": 5, "n_iter": 60,
                          "burn": 20, "keep": 5, "seed": 4, "progress": False}, _labels),
    "DPAreal": Case(DPAreal, {"syn": "lab", "known": ["a", "b"], "K": 3, "n_iter": 60,
                              "burn": 20, "keep": 5, "seed": 4, "progress": False}, _labels),
    "RiskWeightedSynthesizer": Case(
        RiskWeightedSynthesizer, {"syn": "y", "known": ["grp"], "predictors": ["grp"],
                                  "model": "negbin", "weighting": "marginal", "r": 0.2,
                                  "seed": 5, **STAN},
        _counts, (pytest.mark.stan,)),
    "FBS": Case(FBS, {"syn": "y", "weight": "w", "known": ["cell"], "refits": 0, "seed": 6,
                      **STAN}, _survey, (pytest.mark.stan,)),
    "FBP": Case(FBP, {"syn": "y", "weight": "w", "known": ["cell"], "refits": 0, "seed": 7,
                      **STAN}, _survey, (pytest.mark.stan,)),
}


def _fitted(name: str, **params):
    case = CASES[name]
    data = case.data()
    data.index = data.index + 1000  # the output keeps the data's index, whatever it is
    est = case.make(**{**case.params, **params})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = est.fit(data)
    return est, out, data


PARAMS = [pytest.param(name, marks=list(case.marks), id=name) for name, case in CASES.items()]
CHEAP = list(CASES)


@pytest.mark.parametrize("name", CHEAP)
def test_signatures_are_explicit(name):
    cls = CASES[name].make
    assert issubclass(cls, Synthesizer)
    init = inspect.signature(cls.__init__).parameters.values()
    assert all(p.kind is p.KEYWORD_ONLY for p in init if p.name != "self"), name
    assert list(inspect.signature(cls.fit).parameters) == ["self", "data"], name
    for method in ("__init__", "fit", "synthesize"):
        params = inspect.signature(getattr(cls, method)).parameters.values()
        kinds = {p.kind for p in params}
        assert inspect.Parameter.VAR_POSITIONAL not in kinds, (name, method)
        assert inspect.Parameter.VAR_KEYWORD not in kinds, (name, method)
    synth = list(inspect.signature(cls.synthesize).parameters)
    assert synth[:3] == ["self", "m", "seed"], synth
    assert inspect.signature(cls.synthesize).parameters["seed"].default is None
    assert inspect.signature(cls.synthesize).parameters["m"].default == 5


@pytest.mark.parametrize("name", CHEAP)
def test_init_stores_parameters_unchanged(name):
    case = CASES[name]
    est = case.make(**case.params)
    signature = inspect.signature(case.make.__init__).parameters
    params = est.get_params()
    assert list(params) == [p for p in signature if p != "self"]
    for key, value in params.items():
        if key in case.params:
            assert value is case.params[key], key
        else:
            default = signature[key].default
            assert value is default or value == default, key
    # nothing but the parameters is set by __init__ (no fitted state such as a seed_)
    assert set(vars(est)) == set(params)
    assert est.set_params(progress=False) is est and est.progress is False


@pytest.mark.parametrize("name", CHEAP)
def test_synthesize_before_fit_says_to_fit(name):
    case = CASES[name]
    with pytest.raises(NotFittedError, match=r"not fitted: call fit"):
        case.make(**case.params).synthesize(1)


@pytest.mark.parametrize("name", PARAMS)
def test_protocol(name):
    case = CASES[name]
    est, out, data = _fitted(name)
    assert out is est
    # parameters untouched by fit; learned state in *_ attributes
    for key, value in case.params.items():
        assert getattr(est, key) is value, key
    learned = set(vars(est)) - set(est.get_params())
    public = {a for a in learned if not a.startswith("_")}
    assert public and all(a.endswith("_") for a in public), sorted(public)
    # same seed, same frames; another seed, other frames
    first = est.synthesize(2, seed=11)
    again = est.synthesize(2, seed=11)
    other = est.synthesize(2, seed=12)
    assert isinstance(first, SyntheticData) and first.m == 2 and len(first) == 2
    assert first.seed == 11 and first.method == est._method and first.method
    assert isinstance(first.settings, dict) and isinstance(first.diagnostics, pd.DataFrame)
    for a, b in zip(first, again, strict=True):
        pd.testing.assert_frame_equal(a, b)
    assert any(not a.equals(b) for a, b in zip(first, other, strict=True))
    # columns and dtypes of the input
    for frame in first:
        assert list(frame.columns) == list(data.columns)
        pd.testing.assert_series_equal(frame.dtypes, data.dtypes)
        pd.testing.assert_index_equal(frame.index, data.index)
    # the result is accepted wherever a list of frames is
    assert [f.shape for f in first[:1]] == [first[0].shape]
    assert first.to_frame()["dataset"].max() == 2


def test_synthetic_data_is_accepted_wherever_a_list_of_frames_is():
    """identification_risk, the utility measures and the bounds take a SyntheticData as is,
    with the same answer as for the list of its frames."""
    from idrisk import identification_risk
    from idrisk.risk import attribute_risk, label_risk
    from idrisk.utility import pmse, table_deviations

    data = _mixed()
    out = CARTSynthesizer(syn=["k", "c"]).fit(data).synthesize(3, seed=2)
    frames = list(out)
    a = identification_risk(data, out, known=["flag"], syn=["c", "k"])
    b = identification_risk(data, frames, known=["flag"], syn=["c", "k"])
    np.testing.assert_array_equal(np.asarray(a.exp_risk), np.asarray(b.exp_risk))
    pd.testing.assert_series_equal(pmse(data, out, method="logit", resamp_method="theory").pMSE,
                                   pmse(data, frames, method="logit", resamp_method="theory").pMSE)
    pd.testing.assert_frame_equal(attribute_risk(data, out, "c").A,
                                  attribute_risk(data, frames, "c").A)
    pd.testing.assert_frame_equal(label_risk(data, out, "c", "flag"),
                                  label_risk(data, frames, "c", "flag"))
    pd.testing.assert_frame_equal(table_deviations(data, out, "c", ["flag"], ways=(1, 2)).cells,
                                  table_deviations(data, frames, "c", ["flag"],
                                                   ways=(1, 2)).cells)
