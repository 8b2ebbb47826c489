"""One result convention: every result class of the package has the same four faces.

The package is walked (every subpackage imported) and every subclass of
:class:`idrisk._result.Result` found; each must be a frozen dataclass and have a small
instance in ``EXAMPLES`` below, on which the four faces are checked: a readable ``repr``
(header line naming the class, then the summary), ``_repr_html_``, ``summary()`` returning a
DataFrame and ``to_frame()`` returning a flat (tidy) DataFrame. Result-like dataclasses that
are not yet :class:`Result` subclasses are listed in ``NOT_YET`` with their owner, so that a
new one cannot appear unnoticed.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re

import numpy as np
import pandas as pd
import pytest

import idrisk
from idrisk._result import Result

#: class names that mark a result (a dataclass whose name matches must be a Result)
RESULT_NAME = re.compile(r"(Result|Fit|Table|Estimate|Bounds|Risk|Deviations|Utility|"
                         r"Synthesis|SyntheticData|Data|Mole|Synds)$")

#: result-like dataclasses owned by other parts of the package, not yet converted
NOT_YET: set[str] = set()

SKIP_MODULES = ("idrisk._moved",)


def _modules():
    mods = []
    for info in pkgutil.walk_packages(idrisk.__path__, "idrisk."):
        if info.name.startswith(SKIP_MODULES):
            continue
        try:
            mods.append(importlib.import_module(info.name))
        except ImportError:  # an optional dependency (rpy2, dask) is missing
            continue
    return mods


def _classes():
    out = {}
    for mod in _modules():
        for _, cls in inspect.getmembers(mod, inspect.isclass):
            if cls.__module__ == mod.__name__:
                out[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return out


CLASSES = _classes()


# ----------------------------------------------------------------------------- examples
def _frames(m=2, n=40, seed=0):
    rng = np.random.default_rng(seed)
    return [pd.DataFrame({"g": rng.choice(["a", "b"], n), "lab": rng.integers(0, 4, n),
                          "y": rng.normal(size=n)}) for _ in range(m)]


def _synthetic_data():
    return idrisk.SyntheticData(_frames(), method="example", seed=1)


def _synds():
    from idrisk.synthesis import syn_r

    return syn_r(pd.DataFrame({"a": [float(i % 5) for i in range(30)],
                               "b": [float(i) for i in range(30)]}), m=2, seed=1)


def _survey_synthesis():
    from idrisk.survey import SurveySynthesis

    rng = np.random.default_rng(1)
    frames = [pd.DataFrame({"h": np.repeat(["p", "q"], 10), "y": rng.uniform(1, 2, 20),
                            "w": rng.uniform(1, 3, 20)}) for _ in range(2)]
    return SurveySynthesis(frames, method="fbs", seed=3, delta_alpha=0.5, epsilon=2.0,
                           records=pd.DataFrame({"delta": [1.0], "alpha": [0.5],
                                                 "delta_alpha": [0.5]}),
                           syn="y", weight="w", known=("h",), strata="h", c=1.0, g=0.0)


def _survey_table():
    from idrisk.survey import design_table

    d = _frames(1)[0].assign(w=2.0)
    return design_table(d, "y", "w", strata="g", by=["g"])


def _areal():
    from idrisk.categorical import areal_data

    return areal_data(_frames(1)[0], "lab", "g")


def _attribute():
    from idrisk.risk import attribute_risk

    f = _frames(3)
    return attribute_risk(f[0], f[1:], "lab")


def _bounds():
    from idrisk.risk import inherent_bounds

    return inherent_bounds(_frames(1)[0], "lab", "g", n_repeats=3, seed=1)


def _synthetic_risk():
    from idrisk.weighted import synthetic_marginal_risk

    return synthetic_marginal_risk([10.0, 11.0, 30.0], [1, 1, 1], [[10.5, 20.0, 29.0]], 0.1)


def _whack():
    from idrisk.weighted import whack_a_mole

    return whack_a_mole(pd.Series([0.1, 0.2, 0.3]), pd.Series([0.1, 0.6, 0.3]))


def _pmse():
    from idrisk.utility import pmse

    f = _frames(3)
    return pmse(f[0], f[1:], method="logit", resamp_method="theory")


def _combined():
    from idrisk.utility import combine_partial

    return combine_partial([1.0, 2.0, 3.0], [0.5, 0.5, 0.5])


def _deviations():
    from idrisk.utility import table_deviations

    f = _frames(3)
    return table_deviations(f[0], f[1:], "lab", "g", ways=(1, 2))


def _ordered(data=None):
    rng = np.random.default_rng(2)
    d = pd.DataFrame({"x": rng.choice(["a", "b"], 300)})
    d["y"] = pd.cut(rng.logistic(size=300) + (d["x"] == "b"), [-np.inf, -1, 0, 1, np.inf],
                    labels=[1, 2, 3, 4])
    return d


def _ordered_fit():
    from idrisk.utility import fit_ordered_logit

    return fit_ordered_logit(_ordered(), "y", ["x"])


def _ordered_utility():
    from idrisk.utility import ordered_logit_utility

    d = _ordered()
    rng = np.random.default_rng(3)
    syns = [d.assign(x=rng.permutation(d["x"].to_numpy())) for _ in range(2)]
    return ordered_logit_utility(d, syns, "y", ["x"], train=250, seed=1)


def _identification():
    from idrisk import identification_risk

    f = _frames(3)
    return identification_risk(f[0], f[1:], known=["g"], syn=["y"], r=0.1)


def _synthpop_result():
    from idrisk.rcompat.synthpop import SynthpopResult

    return SynthpopResult(syn=_frames(), settings={"seed": 1, "method": {"y": "cart"},
                                                   "visit.sequence": {"y": 3}})


def _cross_check():
    from idrisk.rcompat.crosscheck import compare_results

    res = _identification()
    return compare_results(res, res.to_r_dict(), label="same")


def _rpart_fit():
    from idrisk.rcompat.rpart import RpartFit

    frame = pd.DataFrame({"node": [1, 2, 3], "var": ["y", "<leaf>", "<leaf>"],
                          "n": [4, 2, 2], "dev": [1.0, 0.2, 0.3]})
    return RpartFit(where=pd.Series([2, 2, 3, 3]), frame=frame)


def _risk_report():
    import warnings

    from idrisk.reporting import compute_report

    f = _frames(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compute_report(f[0], f[1:], ["g"], ["y"], r=0.1, radii=[0.05, 0.1],
                              utility=False)


def _stan_fit():
    from idrisk.stan.backend import StanFit, convergence_table

    rng = np.random.default_rng(0)
    draws = {"mu": rng.normal(size=(2, 50)), "beta": rng.normal(size=(2, 50, 2))}
    return StanFit(draws=draws, sampler={"lp__": rng.normal(size=(2, 50))}, backend="fake",
                   program="p", seed=1, chains=2, warmup=10, iter_sampling=50,
                   diagnostics=convergence_table(draws))


def _disclosure():
    from idrisk import disclosure

    f = _frames(3)
    return disclosure(f[0], f[1:], known=["g"], syn="lab")


def _disclosure_summary():
    from idrisk import disclosure_summary

    f = _frames(3)
    return disclosure_summary(f[0], f[1:], known=["g"], syn=["lab"])


def _what_if():
    from idrisk.risk.whatif import what_if

    f = _frames(3)
    return what_if(f[0], f[1:], known=["g"], syn=["lab"])


def _written_risk():
    import tempfile
    from pathlib import Path

    from idrisk import RiskOptions, identification_risk_dask

    f = _frames(3)
    out = Path(tempfile.mkdtemp()) / "records"
    return identification_risk_dask(f[0], f[1:], RiskOptions(known=["g"], syn=["y"], r=0.5),
                                    scheduler="synchronous", out_dir=out)


EXAMPLES = {
    "idrisk.risk.disclosure_measures.DisclosureResult": _disclosure,
    "idrisk.risk.disclosure_measures.DisclosureSummary": _disclosure_summary,
    "idrisk.stan._fit.StanFit": _stan_fit,
    "idrisk.reporting._compute.RiskReport": _risk_report,
    "idrisk.rcompat.crosscheck.CrossCheckReport": _cross_check,
    "idrisk.rcompat.rpart.RpartFit": _rpart_fit,
    "idrisk._synthetic.SyntheticData": _synthetic_data,
    "idrisk.synthesis.cart_synthesis.Synds": _synds,
    "idrisk.survey.synthesizers.SurveySynthesis": _survey_synthesis,
    "idrisk.survey.design.SurveyTable": _survey_table,
    "idrisk.categorical.dp_areal.ArealData": _areal,
    "idrisk.risk.attribute.AttributeRiskResult": _attribute,
    "idrisk.risk.bounds.InherentBounds": _bounds,
    "idrisk.weighted.weights.SyntheticRisk": _synthetic_risk,
    "idrisk.weighted.diagnostics.WhackAMole": _whack,
    "idrisk.utility.propensity.PMSEResult": _pmse,
    "idrisk.utility.combining.CombinedEstimate": _combined,
    "idrisk.utility.tables.TableDeviations": _deviations,
    "idrisk.utility.ordered_logit.OrderedLogitFit": _ordered_fit,
    "idrisk.utility.ordered_logit.OrderedLogitUtility": _ordered_utility,
    "idrisk.rcompat.synthpop.SynthpopResult": _synthpop_result,
    "idrisk.risk.result.IdentificationRiskResult": _identification,
    "idrisk.risk.whatif.WhatIfResult": _what_if,
    "idrisk.risk._dask_records.WrittenRiskResult": _written_risk,
}

RESULTS = sorted(name for name, cls in CLASSES.items()
                 if issubclass(cls, Result) and cls is not Result)


# ------------------------------------------------------------------------------- tests
def test_every_result_class_is_registered_and_every_result_like_class_is_a_result():
    assert set(RESULTS) <= set(EXAMPLES), sorted(set(RESULTS) - set(EXAMPLES))
    assert len(RESULTS) >= 14
    named = {name for name, cls in CLASSES.items()
             if dataclasses.is_dataclass(cls) and RESULT_NAME.search(cls.__name__)
             and not cls.__name__.startswith("_")}
    not_results = {name for name in named if not issubclass(CLASSES[name], Result)}
    # the classes owned elsewhere are listed; any other result-like class must be a Result
    assert not_results <= NOT_YET, sorted(not_results - NOT_YET)


@pytest.mark.parametrize("name", RESULTS)
def test_result_classes_are_frozen_dataclasses(name):
    cls = CLASSES[name]
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, name


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_four_faces(name):
    obj = EXAMPLES[name]()
    cls = type(obj)
    assert f"{cls.__module__}.{cls.__qualname__}" == name
    # frozen: attributes cannot be rebound
    first = dataclasses.fields(obj)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(obj, first, None)
    summary = obj.summary()
    assert isinstance(summary, pd.DataFrame) and not summary.empty
    frame = obj.to_frame()
    assert isinstance(frame, pd.DataFrame) and not frame.empty
    assert not isinstance(frame.columns, pd.MultiIndex)  # tidy: flat columns
    text = repr(obj)
    assert text.splitlines()[0].startswith(cls.__name__ + "(")
    assert len(text.splitlines()) >= 2  # the summary table under the header
    page = obj._repr_html_()
    assert "<table" in page and cls.__name__ in page


def _arrays(value, path, out, seen):
    """(path, mutator) for every numeric array reachable from an attribute value."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        if value.size and value.dtype.kind in "biufcM":
            out.append((path, lambda v=value: v.__setitem__((0,) * v.ndim, v.flat[0])))
    elif isinstance(value, pd.DataFrame):
        for j in range(value.shape[1]):
            col = value.iloc[:, j]
            if len(col) and col.dtype.kind in "biuf":
                out.append((f"{path}.iloc[:, {j}]",
                            lambda v=value, j=j: v.iloc.__setitem__((0, j), v.iat[0, j])))
    elif isinstance(value, pd.Series):
        if len(value) and value.dtype.kind in "biuf":
            out.append((f"{path}.iloc[0]",
                        lambda v=value: v.iloc.__setitem__(0, v.iat[0])))
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if f.metadata.get("freeze", True):
                _arrays(getattr(value, f.name), f"{path}.{f.name}", out, seen)
    elif isinstance(value, dict):
        for k, item in value.items():
            _arrays(item, f"{path}[{k!r}]", out, seen)
    elif isinstance(value, (list, tuple)):
        for k, item in enumerate(value):
            _arrays(item, f"{path}[{k}]", out, seen)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_mutating_a_result_array_raises(name):
    """Frozen for real (issue 28.6): every numeric array behind a result is read-only, so
    ``res.table.iloc[0, 0] = value`` raises instead of changing one attribute under another."""
    obj = EXAMPLES[name]()
    found: list = []
    for f in dataclasses.fields(obj):
        if f.metadata.get("freeze", True):  # False: the caller's own frame, by reference
            _arrays(getattr(obj, f.name), f.name, found, set())
    mutable = []
    for path, mutate in found:
        try:
            mutate()
        except (ValueError, TypeError):
            continue
        mutable.append(path)
    assert not mutable, f"{name}: writable arrays {mutable}"


def test_the_mutation_walker_sees_a_writable_frame():
    @dataclasses.dataclass
    class Plain:
        table: pd.DataFrame

    found: list = []
    _arrays(Plain(pd.DataFrame({"x": [1.0]})).table, "table", found, set())
    found[0][1]()  # a plain frame is writable: no error
    assert found[0][0] == "table.iloc[:, 0]"
