"""The small call's shortcuts (issue 30) give what the long way gives: level codes through a
dict and the codes themselves equal a label lookup per value; the checks table equals the one
built column by column."""

from __future__ import annotations

import numpy as np
import pandas as pd
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
    import pytest

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
