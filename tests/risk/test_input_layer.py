"""The one input layer (issue "one input layer"): metamorphic properties, the one categorical
rule, the one option object, and the warnings a new user's data needs."""

from __future__ import annotations

import ast
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import risk_problems

from idrisk import ExactMatchWarning, RiskInputWarning, RiskOptions, identification_risk
from idrisk._schema import is_categorical
from idrisk.r import IdentificationRisk

PKG = Path(__file__).resolve().parents[2] / "idrisk"
ENGINES = ["single", "dask"]


def _run(engine, orig, syns, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if engine == "single":
            return identification_risk(orig, syns, **call)
        from idrisk.risk.dask_engine import identification_risk_dask

        return identification_risk_dask(orig, syns, RiskOptions(**call), npartitions=2,
                                        scheduler="synchronous")


def _same(a, b):
    for name in ("c", "T", "risk"):
        np.testing.assert_array_equal(getattr(a, name).to_numpy(), getattr(b, name).to_numpy())
    np.testing.assert_array_equal(a.exp_risk.to_numpy(), b.exp_risk.to_numpy())


def _radius_by_name(orig, call):
    """A vector radius as {column: radius} (its data-frame-order meaning), so that the column
    order of the frames can change."""
    r = call["r"]
    if r is None or np.ndim(r) == 0:
        return call
    used = set(call["known"]) | set(call["syn"])
    cont = [c for c in orig.columns if c in used and not is_categorical(orig[c])]
    return {**call, "r": dict(zip(cont, r))}


PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("engine", ENGINES)
@PROPERTY
@given(problem=risk_problems(), data=st.data())
def test_reordering_categories_changes_nothing(engine, problem, data):
    """Same labels, categories in another order (per frame): the same result. (The level-code
    memo once keyed on the dtype, which pandas compares as a set: reordered categories were
    read as the first frame's codes and the risk was 0.)"""
    orig, syns, call = problem
    want = _run(engine, orig, syns, call)

    def shuffle(frame):
        out = frame.copy()
        for c in frame.columns:
            if c.startswith("k"):
                labels = sorted({v for f in [orig, *syns] for v in f[c].dropna()} | {"a", "b"})
                order = data.draw(st.permutations(labels))
                out[c] = pd.Categorical(frame[c].astype(object), categories=order)
        return out

    got = _run(engine, shuffle(orig), [shuffle(s) for s in syns], call)
    _same(got, want)


@pytest.mark.parametrize("engine", ENGINES)
@PROPERTY
@given(problem=risk_problems(), data=st.data())
def test_reordering_columns_changes_nothing(engine, problem, data):
    orig, syns, call = problem
    call = _radius_by_name(orig, call)
    want = _run(engine, orig, syns, call)

    def shuffle(frame):
        return frame[list(data.draw(st.permutations(list(frame.columns))))]

    got = _run(engine, shuffle(orig), [shuffle(s) for s in syns], call)
    _same(got, want)


@pytest.mark.parametrize("engine", ENGINES)
@PROPERTY
@given(problem=risk_problems(), data=st.data())
def test_relabelled_and_shuffled_index_under_align_index(engine, problem, data):
    orig, syns, call = problem
    want = _run(engine, orig, syns, call)
    labels = [f"id{i}" for i in data.draw(st.permutations(range(len(orig))))]
    orig2 = orig.set_axis(labels)
    syns2 = []
    for s in syns:
        order = data.draw(st.permutations(range(len(orig))))
        syns2.append(s.set_axis(labels).iloc[order])
    got = _run(engine, orig2, syns2, {**call, "align": "index"})
    _same(got, want)
    assert list(got.c.index) == labels


def test_reordered_categories_regression_case():
    """The reported case: Sex with ["F", "M"] against ["M", "F"] gave expected risk 0."""
    rng = np.random.default_rng(1)
    n = 200
    orig = pd.DataFrame({"Sex": pd.Categorical(rng.choice(["F", "M"], n), categories=["F", "M"]),
                         "Income": rng.lognormal(10, 1, n)})
    syn = orig.assign(Income=orig.Income * rng.lognormal(0, 0.05, n))
    syn["Sex"] = syn["Sex"].cat.reorder_categories(["M", "F"])
    res = identification_risk(orig, [syn], "Sex", "Income", r=0.1)
    plain = identification_risk(orig, [syn.assign(Sex=syn.Sex.astype(str))], "Sex", "Income",
                                r=0.1)
    assert res.exp_risk[1] > 0
    _same(res, plain)


# --------------------------------------------------------------------------- one rule


def test_booleans_are_categorical_in_risk_and_numbers_in_idrisk_r():
    """The package's rule: a boolean column is matched by equality even with a radius;
    idrisk.r follows R's data.matrix (TRUE = 1, FALSE = 0 under a percentage radius, which
    never matches)."""
    orig = pd.DataFrame({"B": [True, False, True, False], "X": [1.0, 2.0, 3.0, 4.0]})
    syn = orig.copy()
    res = identification_risk(orig, [syn], "B", "X", r=0.1)
    assert list(res.categorical) == ["B"] and list(res.continuous) == ["X"]
    assert res.c[1].tolist() == [1, 1, 1, 1]
    out = IdentificationRisk(orig, [syn], "B", "X", r=0.1)
    assert out["c_vector"][:, 0].tolist() == [1, 0, 1, 0]  # FALSE = 0: empty interval


def _functions(tree):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def test_one_categorical_rule_in_the_package():
    """No module but ``_schema`` decides "categorical or not" from a dtype: no function tests
    both bool and numeric dtypes (the rule's signature) outside ``idrisk/_schema.py``."""
    offenders = []
    for path in sorted(PKG.rglob("*.py")):
        # _schema: the rule itself; rcompat/convert, rcompat/rpart: conversion to R's own
        # types (logical, double, factor), not the categorical rule
        if path.name == "_schema.py" or path.parent.name == "rcompat":
            continue
        for fn in _functions(ast.parse(path.read_text())):
            names = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", None)
                     for n in ast.walk(fn)}
            if {"is_bool_dtype", "is_numeric_dtype"} <= names:
                offenders.append(f"{path.relative_to(PKG.parent)}:{fn.lineno} {fn.name}")
    assert not offenders, "second copies of the categorical rule:\n" + "\n".join(offenders)


#: the options of a risk call; a function with several of them repeats the signature
OPTION_NAMES = {"percentage", "euclidean_dist", "closed", "abs_radius", "ellipsoid",
                "na_matches", "categorical", "continuous", "align"}
#: the description of one ball (issue 28.2), shared by design with the risk weights
BALL_NAMES = {"percentage", "closed", "abs_radius"}


def test_one_risk_signature_in_the_package():
    """Only ``identification_risk`` and the public functions that pass the options on (issue
    28: explicit keywords or ``options=``; ``tests/test_glossary.py`` holds their names and
    defaults to :class:`RiskOptions`') spell out the options; every engine and layer takes a
    :class:`RiskOptions`. The ball's own description (``percentage``, ``closed``,
    ``abs_radius``) is shared with the risk weights and the risk-weighted synthesizer, so only
    the other matching options count as a copy."""
    public = {"identification_risk", "report", "compute_report", "radius_sweep",
              "risk_utility", "m_experiment"}
    offenders = []
    for path in sorted(PKG.rglob("*.py")):
        for fn in _functions(ast.parse(path.read_text())):
            args = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
            if len(args & (OPTION_NAMES - BALL_NAMES)) >= 3 and fn.name not in public:
                offenders.append(f"{path.relative_to(PKG.parent)}:{fn.lineno} {fn.name}")
    assert not offenders, "copies of identification_risk's signature:\n" + "\n".join(offenders)
    fields = set(RiskOptions.__dataclass_fields__) - {"rules"}
    import inspect

    params = set(inspect.signature(identification_risk).parameters)
    assert fields <= params and params - fields == {"confidential", "synthetic", "progress",
                                                    "n_jobs"}


# --------------------------------------------------------------------------- new user's data


def test_numbers_matched_exactly_without_a_radius_warn_naming_them():
    orig = pd.DataFrame({"Sex": ["F", "M"] * 5, "Age": range(30, 40),
                         "Income": np.linspace(1e4, 5e4, 10)})
    with pytest.warns(ExactMatchWarning, match=r"Age \(10 distinct values\), Income \(10 "):
        identification_risk(orig, [orig], ["Sex", "Age"], ["Income"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ExactMatchWarning)
        identification_risk(orig, [orig], ["Sex", "Age"], ["Income"], categorical=["Age",
                                                                                  "Income"])


def test_never_matched_warning_names_missing_value_codes():
    n = 100
    income = np.r_[np.full(10, -8.0), np.linspace(1e3, 1e5, n - 10)]
    orig = pd.DataFrame({"Sex": ["F", "M"] * (n // 2), "Income": income})
    # in Python the advice is to replace the code by NaN (na_values is a CLI/reader option)
    with pytest.warns(RiskInputWarning, match=r"-8 are often missing-value codes: declare them "
                      r"missing \(e.g. replace them by NaN\).*most frequent: Income: -8\)"):
        identification_risk(orig, [orig] * 3, "Sex", "Income", r=0.1)


def test_c_zero_warning_summarises_every_dataset():
    rng = np.random.default_rng(3)
    n = 300
    orig = pd.DataFrame({"K": rng.choice(list("ab"), n), "X": rng.uniform(1, 100, n)})
    syns = [orig.assign(X=rng.uniform(1, 100, n)) for _ in range(4)]
    with pytest.warns(RiskInputWarning) as caught:
        res = identification_risk(orig, syns, "K", "X", r=0.01)
    text = [str(w.message) for w in caught if "no matching" in str(w.message)][0]
    lo, hi = int(res.checks.c_zero.min()), int(res.checks.c_zero.max())
    assert text.startswith("all 4 synthetic datasets:") and f"{lo}–{hi} of {n}" in text


def test_zero_radius_warning_says_so():
    orig = pd.DataFrame({"K": ["a", "b"] * 50, "X": np.arange(100.0) + 1})
    with pytest.warns(RiskInputWarning, match=r"radius of \['X'\] is 0 and R's intervals are "
                      r"open"):
        identification_risk(orig, [orig], "K", "X", r=0.0, percentage=False)


def test_euclidean_widths_are_r_pow_in_r_order():
    """Closed form: d_K = pow(0 + sum_known d^2, 0.5), d_S = pow(d_K + sum_syn d^2, 0.5), each
    square added in column order, the root by C's pow (math.pow), for values where pow and sqrt
    differ by an ulp."""
    import math

    from idrisk.risk.matching import half_widths

    rng = np.random.default_rng(0)
    found = []
    while len(found) < 5:  # squares sums whose pow(., 0.5) is not sqrt(.)
        a, b = rng.uniform(0.1, 9, 2).round(1)
        if math.pow(a * a + b * b, 0.5) != math.sqrt(a * a + b * b):
            found.append((a, b))
    radii = np.array([1.0, 1.0, 0.3])
    x = np.array([[a, b, 5.0] for a, b in found])
    d = half_widths(x, radii, percentage=True, euclidean_dist=True,
                    known=np.array([True, True, False]))
    for i, (a, b) in enumerate(found):
        d_k = math.pow(0.0 + a * a + b * b, 0.5)
        d_s = math.pow(d_k + 1.5 * 1.5, 0.5)
        assert d[i, 0] == d[i, 1] == d_k != math.sqrt(a * a + b * b)
        assert d[i, 2] == d_s


def test_stacking_on_threads_raises_the_first_datasets_error(monkeypatch):
    """The synthetic float columns are stacked by ``share`` (threads in a Prepared): whatever
    order the datasets finish in, the error raised is the first failing dataset's, as one
    after the other; and the stacks are the same."""
    from idrisk.risk import _prepare

    orig = pd.DataFrame({"A": pd.Categorical(list("xyxy")), "B": [1.0, 2.0, 3.0, 4.0]})
    syns = [orig.assign(B=orig["B"] + j) for j in range(6)]
    checked = _prepare.check_inputs(orig, syns, RiskOptions(known=["A"], syn=["B"], r=0.1))

    def backwards(task, items):  # the datasets finishing last first
        for j in reversed(items):
            task(j)

    one = _prepare.encode_inputs(checked, False)
    shared = _prepare.encode_inputs(checked, False, backwards)
    for a, b in zip(one.cont_syn, shared.cont_syn):
        np.testing.assert_array_equal(a, b)
    real = _prepare.as_float

    def failing(series, column, where, parse=False):
        if where in (checked.names[2], checked.names[4]):
            raise TypeError(f"bad {where}")
        return real(series, column, where, parse)

    monkeypatch.setattr(_prepare, "as_float", failing)
    for share in (None, backwards):
        with pytest.raises(TypeError, match=re.escape(f"bad {checked.names[2]}") + "$"):
            _prepare.encode_inputs(checked, False, share)


def test_known_codes_share_the_confidential_array_until_a_column_differs():
    """A synthetic dataset whose categorical codes are the confidential ones (known variables)
    shares ``cat_orig``; one that differs in a later column gets its own array, equal to the
    codes of its frame column by column."""
    from idrisk.risk import _prepare

    orig = pd.DataFrame({"A": pd.Categorical(list("xyxyz")), "B": pd.Categorical(list("ppqqp")),
                         "I": [1.0, 2.0, 3.0, 4.0, 5.0]})  # fmt: skip
    other = orig.assign(B=pd.Categorical(list("qpqqp")))
    options = RiskOptions(known=["A", "B"], syn=["I"], r=0.1)
    checked = _prepare.check_inputs(orig, [orig, other, orig.copy()], options)
    prep = _prepare.encode_inputs(checked, False)
    assert prep.cat_syn[0] is prep.cat_orig and prep.cat_syn[2] is prep.cat_orig
    assert prep.cat_syn[1] is not prep.cat_orig
    alone = _prepare.encode_inputs(_prepare.check_inputs(other, [other], options), False)
    np.testing.assert_array_equal(prep.cat_syn[1], alone.cat_orig)


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_synthetic_codes_are_the_labels_positions_in_the_levels(data):
    """Each synthetic dataset's level codes are its labels' positions in the column's levels
    (-1 for NA), whether its categorical shares the confidential one's categories and codes,
    has equal categories (another object), the same categories in another order (its labels,
    or its codes: other labels), or other codes: a brute force, label by label."""
    from idrisk.risk import _prepare

    n = data.draw(st.integers(1, 30), label="n")
    labels = list("abcd")
    draw_labels = st.lists(st.sampled_from(labels + [None]), min_size=n, max_size=n)
    base = pd.Categorical(data.draw(draw_labels, label="A"), categories=labels)
    orig = pd.DataFrame({"A": base, "I": np.arange(n, dtype=float)})
    syns = []
    for j in range(data.draw(st.integers(1, 4), label="m")):
        kinds = ["shared", "equal", "reordered", "recoded", "other"]
        kind = data.draw(st.sampled_from(kinds), label="kind")
        if kind == "shared":
            column = orig["A"]
        elif kind == "equal":
            column = pd.Categorical(list(base), categories=list(labels))
        elif kind == "reordered":
            column = pd.Categorical(list(base), categories=labels[::-1])
        elif kind == "recoded":
            column = pd.Categorical.from_codes(base.codes, categories=labels[::-1])
        else:
            column = pd.Categorical(data.draw(draw_labels, label=f"A{j}"), categories=labels)
        syns.append(orig.assign(A=column))
    options = RiskOptions(known=["A"], syn=["I"], r=0.1)
    prep = _prepare.encode_inputs(_prepare.check_inputs(orig, syns, options), False)
    levels = prep.levels["A"]
    for j, frame in enumerate(syns):
        want = [-1 if pd.isna(x) else levels.index(x) for x in frame["A"]]
        np.testing.assert_array_equal(prep.cat_syn[j][:, 0], want, err_msg=f"dataset {j}")
