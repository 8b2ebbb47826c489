"""The synthesizer contract, checked on all six synthesizers (scikit-learn's
``check_estimator``, extended to synthesis; the cases are those of ``test_protocol.py``).

For CARTSynthesizer, DPMPM, DPAreal, RiskWeightedSynthesizer, FBS and FBP:

* the column roles are keyword-only constructor parameters with the shared names (``syn``,
  ``known``, ``predictors``; ``weight`` and ``strata`` for the survey synthesizers) and
  ``fit`` takes the data only; none of the old role names is left;
* ``synthesize(m=5, seed=None)``: one default for m, and ``seed=None`` is fresh entropy
  (two calls differ), an integer seed repeats;
* ``synthesize`` before ``fit`` raises ``NotFittedError``, a ``ValueError`` and an
  ``AttributeError``;
* ``SyntheticData.settings`` equals ``get_params()``; resolved settings are ``*_``
  attributes;
* ``fit`` does not change any parameter (equal and identical before and after);
* a clone (``type(s)(**s.get_params())``) of a fitted synthesizer is unfitted and equal;
* a pickled fitted synthesizer synthesizes the same data as the original;
* ``m_experiment`` and the report take any synthesizer's output.

The Stan-based synthesizers (marker ``stan``) run tiny fits on each backend (PyStan and
CmdStan, the latter skipped where CmdStan is not installed, as the other Stan tests).
"""

from __future__ import annotations

import copy
import functools
import inspect
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from _shared import require_stan_backend
from test_protocol import CASES, _fitted

from idrisk import SyntheticData
from idrisk.exceptions import NotFittedError

STAN_CASES = {"RiskWeightedSynthesizer", "FBS", "FBP"}
BACKENDS = ["pystan", "cmdstanpy"]
OLD_ROLE_NAMES = {"target", "targets", "label", "y", "visit_sequence", "kept", "pattern",
                  "design", "keys", "weights"}
ROLES = {"CARTSynthesizer": ["syn"], "DPMPM": ["syn", "variables"], "DPAreal": ["syn", "known"],
         "RiskWeightedSynthesizer": ["syn", "known", "predictors", "categorical"],
         "FBS": ["syn", "weight", "known", "strata"], "FBP": ["syn", "weight", "known",
                                                              "strata"]}




FITTED = [pytest.param(name, None, id=name) for name in CASES if name not in STAN_CASES] + [
    pytest.param(name, backend, marks=pytest.mark.stan, id=f"{name}-{backend}")
    for name in CASES if name in STAN_CASES for backend in BACKENDS]


@functools.cache
def _fit(name: str, backend: str | None):
    """One fitted synthesizer per case and backend for the whole module (Stan fits are slow)."""
    if backend is not None:
        require_stan_backend(backend)
    est, _, data = _fitted(name, **({} if backend is None else {"backend": backend}))
    return est, data


def same(a, b) -> bool:
    """Deep equality of parameter values (frames, arrays, mappings, sequences)."""
    if isinstance(a, (pd.DataFrame, pd.Series)):
        return type(a) is type(b) and a.equals(b)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(same(x, y) for x, y in zip(a, b, strict=True)))
    return bool(a == b)


def same_params(p: dict, q: dict) -> bool:
    return p.keys() == q.keys() and all(same(p[k], q[k]) for k in p)


# ------------------------------------------------------------------ signatures (cheap)
@pytest.mark.parametrize("name", list(CASES))
def test_roles_are_keyword_only_parameters_with_the_shared_names(name):
    cls = CASES[name].make
    init = inspect.signature(cls.__init__).parameters
    params = [p for p in init.values() if p.name != "self"]
    assert all(p.kind is p.KEYWORD_ONLY for p in params), name
    names = [p.name for p in params]
    assert names[:len(ROLES[name])] == ROLES[name], names  # the roles come first
    assert not OLD_ROLE_NAMES & set(names), sorted(OLD_ROLE_NAMES & set(names))
    assert list(inspect.signature(cls.fit).parameters) == ["self", "data"]
    synth = inspect.signature(cls.synthesize).parameters
    assert list(synth) == ["self", "m", "seed"]
    assert synth["m"].default == 5 and synth["seed"].default is None
    if "seed" in init:
        assert init["seed"].default is None, "seed=None (fresh entropy) is every default"
    with pytest.raises(TypeError):
        cls("x")  # no positional parameters


def test_the_function_shapes_share_the_default_m():
    from idrisk.categorical import dp_areal_synthesize, dpmpm_synthesize
    from idrisk.synthesis import syn

    for fn in (syn, dpmpm_synthesize, dp_areal_synthesize):
        params = inspect.signature(fn).parameters
        assert params["m"].default == 5, fn
        assert params["seed"].default is None, fn
        assert "syn" in params and not OLD_ROLE_NAMES & set(params), fn


@pytest.mark.parametrize("name", list(CASES))
def test_not_fitted_error_is_value_and_attribute_error(name):
    case = CASES[name]
    est = case.make(**case.params)
    with pytest.raises(NotFittedError, match=r"not fitted: call fit\(data\)") as info:
        est.synthesize()
    assert isinstance(info.value, ValueError) and isinstance(info.value, AttributeError)
    assert not est.is_fitted


@pytest.mark.parametrize("name", list(CASES))
def test_clone_of_an_unfitted_synthesizer_is_equal(name):
    case = CASES[name]
    est = case.make(**case.params)
    clone = type(est)(**est.get_params())
    assert type(clone) is type(est) and same_params(clone.get_params(), est.get_params())
    assert repr(clone) == repr(est)


# ------------------------------------------------------------------ fitted
@pytest.mark.parametrize(("name", "backend"), FITTED)
def test_fit_does_not_mutate_parameters(name, backend):
    case = CASES[name]
    params = {**case.params, **({} if backend is None else {"backend": backend})}
    frozen = copy.deepcopy(params)
    est, _ = _fit(name, backend)
    after = est.get_params()
    for key, value in params.items():
        assert after[key] is value, f"{key} was replaced by fit"
        assert same(after[key], frozen[key]), f"{key} was changed in place by fit"


@pytest.mark.parametrize(("name", "backend"), FITTED)
def test_settings_equal_get_params(name, backend):
    est, data = _fit(name, backend)
    out = est.synthesize(2, seed=1)
    assert isinstance(out, SyntheticData) and out.m == 2
    assert same_params(dict(out.settings), est.get_params())
    assert est.syn_ is not None  # the resolved role: a fitted attribute
    # the default m is 5 for every synthesizer
    assert est.synthesize(seed=1).m == 5


@pytest.mark.parametrize(("name", "backend"), FITTED)
def test_seed_none_is_fresh_entropy_and_an_integer_repeats(name, backend):
    est, _ = _fit(name, backend)
    a, b = est.synthesize(2), est.synthesize(2)
    assert a.seed is None and b.seed is None
    assert any(not x.equals(y) for x, y in zip(a, b, strict=True)), "seed=None repeated itself"
    for x, y in zip(est.synthesize(2, seed=7), est.synthesize(2, seed=7), strict=True):
        pd.testing.assert_frame_equal(x, y)
    if "seed" in est.get_params():  # a sampler seed of None is drawn and kept in seed_
        assert isinstance(est.seed_, int)


@pytest.mark.parametrize(("name", "backend"), FITTED)
def test_clone_of_a_fitted_synthesizer_is_unfitted_and_equal(name, backend):
    est, _ = _fit(name, backend)
    clone = type(est)(**est.get_params())
    assert est.is_fitted and not clone.is_fitted
    assert same_params(clone.get_params(), est.get_params())
    with pytest.raises(NotFittedError):
        clone.synthesize(1)


@pytest.mark.parametrize(("name", "backend"), FITTED)
def test_a_pickled_fitted_synthesizer_synthesizes_the_same(name, backend):
    est, _ = _fit(name, backend)
    back = pickle.loads(pickle.dumps(est))
    assert type(back) is type(est) and back.is_fitted
    assert same_params(back.get_params(), est.get_params())
    for x, y in zip(est.synthesize(2, seed=3), back.synthesize(2, seed=3), strict=True):
        pd.testing.assert_frame_equal(x, y)


def test_a_seedless_sampler_draws_and_keeps_its_seed():
    """seed=None in the constructor: each fit draws fresh entropy, kept in ``seed_``."""
    for name in ("DPMPM", "DPAreal"):
        case = CASES[name]
        params = {**case.params, "seed": None}
        fits = [case.make(**params).fit(case.data()) for _ in range(2)]
        assert fits[0].seed_ != fits[1].seed_, name
        again = case.make(**{**params, "seed": fits[0].seed_}).fit(case.data())
        for x, y in zip(fits[0].synthesize(2, seed=1), again.synthesize(2, seed=1),
                        strict=True):
            pd.testing.assert_frame_equal(x, y)


# ------------------------------------------------------------------ generic code
@pytest.mark.parametrize("name", ["CARTSynthesizer", "DPMPM", "DPAreal"])
def test_m_experiment_and_the_report_take_any_synthesizer(name):
    from idrisk.analysis import m_experiment
    from idrisk.reporting import compute_report

    case = CASES[name]
    data = case.data()
    est = case.make(**case.params)
    syn = [c for c in data.columns if c in np.atleast_1d(case.params["syn"])]
    known = [c for c in data.columns if c not in syn]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = m_experiment(data, syn, known, 0.1, m_values=[1, 2], n_repeats=1, seed=3,
                           synthesizer=est, maxorder=0, progress=False)
        assert out["m"].tolist() == [1, 2] and out["exp_risk"].notna().all()
        rep = compute_report(data, est.synthesize(2, seed=1), known, syn, r=0.1, radii=None,
                             utility=False)
    assert rep is not None
