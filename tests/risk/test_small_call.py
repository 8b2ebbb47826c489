"""The small call's shortcuts (issue 30) give what the long way gives: level codes through a
dict and the codes themselves equal a label lookup per value; the checks table equals the one
built column by column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idrisk._schema import label
from idrisk.risk._prepare import level_codes
from idrisk.risk.result import IdentificationRiskResult

LABELS = ["a", "b", "c", "d", 1, 2, 2.0, 3.5, True]


def _by_label(values: pd.Series, levels: list[str]) -> np.ndarray:
    """The code of each value: the position of its label among ``levels``; -1 for NA or a
    label not there."""
    out = []
    for v in values.astype(object):
        out.append(-1 if pd.isna(v) or label(v) not in levels else levels.index(label(v)))
    return np.array(out)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_level_codes_equal_a_lookup_of_each_label(data):
    kind = data.draw(st.sampled_from(["text", "numbers"]))
    pool = ["a", "b", "c", "d"] if kind == "text" else [1, 2, 3, 5]
    cats = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True))
    n = data.draw(st.integers(1, 30))
    values = data.draw(st.lists(st.sampled_from([*cats, None]), min_size=n, max_size=n))
    # levels: the categories first in their order (the identity), in another order, or with
    # labels missing and extra ones
    levels = [label(v) for v in cats]
    how = data.draw(st.sampled_from(["same", "permuted", "partial", "extra"]))
    if how == "permuted":
        levels = data.draw(st.permutations(levels))
    elif how == "partial":
        levels = levels[1:]
    elif how == "extra":
        levels = [*levels, "z"] if data.draw(st.booleans()) else ["z", *levels]
    memo: dict = {}
    for series in (pd.Series(pd.Categorical(values, categories=cats)),
                   pd.Series(values, dtype=object)):
        want = _by_label(series, list(levels))
        np.testing.assert_array_equal(level_codes(series, levels, memo), want)
        np.testing.assert_array_equal(level_codes(series, levels, memo), want)  # memo hit
        np.testing.assert_array_equal(level_codes(series, pd.Index(levels)), want)


def test_checks_table_equals_the_table_built_column_by_column():
    rng = np.random.default_rng(3)
    c = rng.integers(0, 4, (50, 3)).astype(np.int32)
    own = rng.random((50, 3)) < 0.5
    checks = {"na_confidential": 2, "na_synthetic": np.array([0, 5, 1]), "never_match": 7}
    table = IdentificationRiskResult.from_counts(c, own, checks=checks).checks
    want = pd.DataFrame(
        {"na_confidential": [2] * 3, "na_synthetic": [0, 5, 1], "never_match": [7] * 3,
         "c_zero": (c == 0).sum(axis=0)},
        index=pd.RangeIndex(1, 4, name="dataset"),
    ).astype(np.int64)
    pd.testing.assert_frame_equal(table, want)
    none = IdentificationRiskResult.from_counts(c, own).checks
    assert none["na_confidential"].isna().all() and none["c_zero"].dtype == np.int64
    assert none["c_zero"].tolist() == want["c_zero"].tolist()


def test_a_prepared_call_takes_options_that_differ_only_in_unused_declarations():
    from idrisk import RiskOptions, identification_risk
    from idrisk.risk.prepared import prepare

    rng = np.random.default_rng(4)
    conf = pd.DataFrame({"Sex": rng.choice(["F", "M"], 60), "Code": rng.integers(1, 4, 60),
                         "Income": rng.lognormal(3, 1, 60)})
    syns = [conf.assign(Income=conf.Income * rng.lognormal(0, 0.05, 60)) for _ in range(3)]
    base = RiskOptions(known="Sex", syn="Income", r=0.1, categorical=("Code",))
    prepared = prepare(conf, syns, base)
    other = base.replace(categorical=(), r=0.2)
    assert prepared.changed(other) == []
    got = prepared.count(options=other)
    want = identification_risk(conf, syns, "Sex", "Income", r=0.2)
    np.testing.assert_array_equal(got.array("c"), want.array("c"))
    used = base.replace(categorical=("Code",), known=("Sex", "Code"))
    assert prepared.changed(used) == ["known"]
    with pytest.raises(ValueError, match="categorical"):
        prepared.count(options=base.replace(continuous=("Income",)).replace(
            categorical=("Income",), continuous=()))


@pytest.mark.filterwarnings("ignore::idrisk.exceptions.RiskInputWarning")
def test_a_shared_preparation_block_reads_the_same_frames_once(monkeypatch):
    from idrisk import identification_risk
    from idrisk.analysis import radius_sweep
    from idrisk.risk import prepared as module

    rng = np.random.default_rng(6)
    n = 60
    conf = pd.DataFrame({"Sex": rng.choice(["F", "M"], n), "Age": rng.integers(20, 70, n) * 1.0,
                         "Income": rng.lognormal(3, 1, n)})
    syns = [conf.assign(Income=conf.Income * rng.lognormal(0, 0.05, n)) for _ in range(3)]
    calls = []
    real = module.check_inputs
    monkeypatch.setattr(module, "check_inputs", lambda *a, **k: calls.append(1) or real(*a, **k))

    def risks():
        a = identification_risk(conf, syns, ["Sex", "Age"], "Income", r=0.1)
        b = identification_risk(conf, syns, ["Sex", "Age"], "Income", r=0.2, closed=True)
        sweep = radius_sweep(conf, syns, ["Sex", "Age"], "Income", radii=[0.1], progress=False)
        other = identification_risk(conf, syns, ["Sex"], "Income", r=0.1)  # other known
        copy = identification_risk(conf.copy(), syns, ["Sex", "Age"], "Income", r=0.1)
        return a, b, sweep, other, copy

    alone = risks()
    assert len(calls) == 5
    calls.clear()
    with module.shared_preparation():
        shared = risks()
        again = identification_risk(conf.copy(), syns, ["Sex", "Age"], "Income", r=0.1)
    # once for conf with known Sex, Age; once for known Sex; the copies are not kept
    assert len(calls) == 4
    for x, y in zip(alone, shared):
        if isinstance(x, pd.DataFrame):
            pd.testing.assert_frame_equal(x, y)
        else:
            for name in ("c", "T", "K", "F"):
                np.testing.assert_array_equal(x.array(name), y.array(name))
            pd.testing.assert_frame_equal(x.checks, y.checks)
    np.testing.assert_array_equal(again.array("c"), alone[4].array("c"))
    calls.clear()
    identification_risk(conf, syns, ["Sex", "Age"], "Income", r=0.1)  # outside: read again
    assert len(calls) == 1
