"""Every wrong-looking input is named (issue 29): fully synthetic data, disjoint labels, and
hints that work -- applied, each hint removes its warning. In Python and in the CLI."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from idrisk import identification_risk
from idrisk.cli import main
from idrisk.exceptions import RiskInputWarning
from idrisk.risk._diagnostics import MIN_SHARED, shared_values


def _data(n: int = 400, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"sex": rng.choice(["Male", "Female"], n),
                         "age": rng.integers(18, 80, n).astype(float),
                         "income": np.round(rng.lognormal(8, 0.5, n))})


def _partial(conf: pd.DataFrame, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return conf.assign(income=np.round(conf["income"] * rng.uniform(0.9, 1.1, len(conf))))


def _messages(conf, syn, **kw) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        identification_risk(conf, syn, known=["sex", "age"], syn=["income"], r=0.1, **kw)
    return [str(w.message) for w in caught if issubclass(w.category, RiskInputWarning)]


def test_partially_synthetic_data_are_quiet():
    conf = _data()
    assert _messages(conf, [_partial(conf, 2), _partial(conf, 3)]) == []


def test_fully_synthetic_data_are_named_and_pointed_to_disclosure_measures():
    conf = _data()
    full = [_data(seed=5), _data(seed=6)]
    msgs = _messages(conf, full)
    text = [m for m in msgs if "partially synthetic" in m]
    assert len(text) == 1, msgs
    assert "all 2 synthetic datasets" in text[0] and "sex, age" in text[0]
    assert "fully synthetic" in text[0] and "disclosure" in text[0]
    # rows in another order: the same warning; restoring the order removes it
    shuffled = _partial(conf, 2).sample(frac=1.0, random_state=1).reset_index(drop=True)
    assert any("partially synthetic" in m for m in _messages(conf, [shuffled]))


def test_warning_points_at_the_callers_line():
    conf = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        identification_risk(conf, [_data(seed=5)], known=["sex", "age"], syn=["income"], r=0.1)
    files = {w.filename for w in caught if "partially synthetic" in str(w.message)}
    assert files == {__file__}


@pytest.mark.parametrize(
    ("change", "how", "syn_example"),
    [
        (lambda s: s.str.lower(), "upper/lower case", "'male'"),
        (lambda s: " " + s, "upper/lower case or spaces", "' Male'"),
        (lambda s: s.map({"Male": "1", "Female": "2"}), "codes", "'1'"),
    ],
)
def test_disjoint_labels_named_with_examples_of_both(change, how, syn_example):
    conf = _data()
    syn = _partial(conf, 2)
    syn["sex"] = change(syn["sex"])
    msgs = [m for m in _messages(conf, [syn]) if "labels that" in m]
    assert len(msgs) == 1, msgs
    assert "'sex'" in msgs[0] and how in msgs[0]
    assert syn_example in msgs[0] and ("'Male'" in msgs[0] or "'Female'" in msgs[0])
    # fixed labels: quiet
    assert not [m for m in _messages(conf, [_partial(conf, 2)]) if "labels that" in m]


def _never(conf: pd.DataFrame, **kw) -> list[str]:
    syn = [_partial(conf, 2)]
    return [m for m in _messages(conf, syn, **kw) if "never be matched" in m]


def test_each_never_match_hint_applied_removes_its_warning():
    conf = _data()
    # negative codes: the hints are na codes -> NaN, abs_radius, percentage=False
    neg = conf.assign(income=conf["income"].where(np.arange(len(conf)) % 4 != 0, -8.0))
    msgs = _never(neg)
    assert len(msgs) == 1 and "abs_radius=True" in msgs[0] and "-8" in msgs[0]
    assert "closed" not in msgs[0]  # no value 0: closed would not help
    assert _never(neg, abs_radius=True) == []
    assert _never(neg, percentage=False) == []
    assert _never(neg.replace(-8.0, np.nan)) == []
    # zeros: abs_radius would not help (r x |0| = 0) and is not advised; closed is
    zero = conf.assign(income=conf["income"].where(np.arange(len(conf)) % 4 != 0, 0.0))
    msgs = _never(zero)
    assert len(msgs) == 1 and "abs_radius" not in msgs[0] and "closed=True" in msgs[0]
    assert _never(zero, abs_radius=True) != []
    assert _never(zero, closed=True) == []
    assert _never(zero, percentage=False) == []


def test_never_matched_values_unique_to_a_record_are_not_shown():
    conf = _data()
    income = conf["income"].to_numpy().copy()
    income[::4] = 0.0
    income[1] = -25426.0  # one record's value
    income[2] = -24548.0
    msgs = _never(conf.assign(income=income))
    assert len(msgs) == 1
    assert "25426" not in msgs[0] and "24548" not in msgs[0]
    assert "most frequent: income: 0" in msgs[0]
    assert shared_values({1: MIN_SHARED - 1, 2: MIN_SHARED}) == [2]


def test_cli_names_fully_synthetic_data_and_disjoint_labels(tmp_path, capsys):
    conf = _data()
    syn = _data(seed=5)
    syn["sex"] = syn["sex"].str.upper()
    conf.to_csv(tmp_path / "conf.csv", index=False)
    syn.to_csv(tmp_path / "syn.csv", index=False)
    main([
        "risk", str(tmp_path / "conf.csv"), str(tmp_path / "syn.csv"), "--known", "sex", "age",
        "--syn", "income", "-r", "0.1", "--out-dir", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert "partially synthetic" in err and "idrisk disclosure" in err
    assert "column 'sex'" in err and "'MALE'" in err and "upper/lower case" in err


def test_every_input_warning_points_at_the_callers_line():
    """Warnings raised while the inputs are prepared (exact matching of numbers, never-matched
    values, NA, partial synthesis) name this file, not idrisk's source."""
    conf = _data()
    conf.loc[::3, "income"] = -8.0
    conf.loc[1::7, "income"] = np.nan
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        identification_risk(conf, [_data(seed=5)], known=["sex", "age"], syn=["income"])
        identification_risk(conf, [_partial(conf, 2)], known=["sex", "age"], syn=["income"],
                            r=0.1)
    kinds = {w.category.__name__ for w in caught}
    assert {"ExactMatchWarning", "RiskInputWarning"} <= kinds, kinds
    assert {w.filename for w in caught} == {__file__}, [(w.category, w.filename) for w in caught]


def test_row_equality_of_the_partial_synthesis_check_is_elementwise_equality():
    """``_equal_rows`` (hash-based for text) equals a plain loop: ``==`` per row, a missing
    value equal to a missing value, numbers and text never equal to each other."""
    from idrisk.risk._diagnostics import _equal_rows

    values = ["a", "b", "Male", " a", 1, 1.0, 2, "1", None, np.nan, True]
    rng = np.random.default_rng(5)
    x = pd.Series([values[i] for i in rng.integers(0, len(values), 300)], dtype=object)
    y = pd.Series([values[i] for i in rng.integers(0, len(values), 300)], dtype=object)

    def same(u, v):
        if pd.isna(u) or pd.isna(v):
            return bool(pd.isna(u) and pd.isna(v))
        return bool(u == v)

    want = np.array([same(u, v) for u, v in zip(x, y)])
    np.testing.assert_array_equal(_equal_rows(x, y), want)
    cats = pd.Series(pd.Categorical(["F", "M", None, "M"]))
    np.testing.assert_array_equal(_equal_rows(cats, pd.Series(["F", "F", None, "M"])),
                                  [True, False, True, True])
    nums = pd.Series([1.0, np.nan, 3.0, np.nan])
    np.testing.assert_array_equal(_equal_rows(nums, pd.Series([1, 2, 4, 5])),
                                  [True, False, False, False])
    np.testing.assert_array_equal(_equal_rows(nums, pd.Series([1.0, np.nan, 4.0, 5.0])),
                                  [True, True, False, False])


def test_text_known_variables_out_of_row_order_are_named():
    conf = _data()
    moved = _partial(conf, 2).assign(sex=conf["sex"].sample(frac=1, random_state=3).to_numpy(),
                                     age=conf["age"].sample(frac=1, random_state=4).to_numpy())
    messages = _messages(conf, [moved, moved])
    assert any("partially synthetic" in m and "sex, age" in m for m in messages), messages
