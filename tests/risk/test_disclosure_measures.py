"""idrisk.disclosure / disclosure_summary without R: the corrected mode against a brute-force
reference written from the definitions (tests/risk/_disclosure_ref.py), metamorphic checks
(row order), closed forms of base R's number formatting, the result faces and the errors.
The synthpop mode is checked against live synthpop in test_disclosure_synthpop.py."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _disclosure_ref import reference  # noqa: E402

from idrisk import SyntheticData  # noqa: E402
from idrisk._rtext import cut_labels, r_format  # noqa: E402
from idrisk._rtext import r_label as r_character  # noqa: E402
from idrisk.risk import (  # noqa: E402
    DisclosureResult,
    DisclosureSummary,
    SynthpopQuirkWarning,
    disclosure,
    disclosure_summary,
)
from idrisk.risk._rfactor import class_breaks  # noqa: E402
from idrisk.risk._synthpop_tables import disclosure_tables  # noqa: E402

MEASURES = ["UiO", "UiS", "UiOiS", "repU", "Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO",
            "max_denom", "mean_denom", "baseCAPd", "CAPd", "CAPs", "DCAP", "TCAP"]


# ------------------------------------------------------------------ random problems
@st.composite
def problems(draw):
    """Small data sets: 1-3 string keys and a string or integer target, NA anywhere, levels
    that one side lacks, m = 1..3, and random exclusions."""
    n = draw(st.integers(1, 30))
    m = draw(st.integers(1, 3))
    n_keys = draw(st.integers(1, 3))
    keys = [f"k{i}" for i in range(n_keys)]
    numeric_target = draw(st.booleans())
    key_levels = ["a", "b", "c", None]
    target_levels = [1, 2, 9, 10, None] if numeric_target else ["x", "y", "z", None]

    def frame(size: int) -> pd.DataFrame:
        cols = {k: draw(st.lists(st.sampled_from(key_levels), min_size=size, max_size=size))
                for k in keys}
        cols["t"] = draw(st.lists(st.sampled_from(target_levels), min_size=size,
                                  max_size=size))
        out = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in cols.items()})
        if numeric_target:
            out["t"] = pd.to_numeric(out["t"], errors="coerce").astype(float)
        return out[list(draw(st.permutations(list(out.columns))))]

    conf = frame(n)
    syns = [frame(draw(st.integers(1, 30))) for _ in range(m)]
    t_labels = ["1", "2", "9", "10"] if numeric_target else ["x", "y", "z"]
    options = {
        "use_known_na": draw(st.one_of(st.booleans(), st.lists(st.booleans(), min_size=n_keys,
                                                              max_size=n_keys))),
        "use_syn_na": draw(st.booleans()),
        "not_syn_levels": draw(st.lists(st.sampled_from(t_labels), max_size=1)),
        "exclude_over_denom_lim": draw(st.booleans()),
        "denom_lim": draw(st.integers(1, 3)),
    }
    # exclusions must name levels present in the confidential data
    pairs = [(k, v, t) for k in keys for v in conf[k].dropna().unique()
             for t in conf["t"].dropna().unique()]
    if pairs and draw(st.booleans()):
        k, v, t = draw(st.sampled_from(pairs))
        options["exclude"] = [(k, v, r_character(t) if numeric_target else t)]
    return conf, syns, keys, options


def _engine(conf, syns, keys, options, quirks):
    kw = dict(options)
    ex = kw.pop("exclude", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SynthpopQuirkWarning)
        return disclosure(conf, syns, keys, "t", exclude=ex, quirks=quirks, **kw)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_corrected_mode_equals_brute_force_reference(problem):
    conf, syns, keys, options = problem
    res = _engine(conf, syns, keys, options, "corrected")
    want = reference(conf, syns, keys, "t", **options)
    got = res.summary()
    for j, row in enumerate(want, start=1):
        for name in MEASURES:
            np.testing.assert_allclose(got.loc[j, name], row[name], rtol=1e-12, atol=1e-12,
                                       equal_nan=True, err_msg=f"{name}, dataset {j}")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.randoms(use_true_random=False))
def test_row_order_does_not_matter(problem, rnd):
    """Shuffling the rows of every data set changes nothing, in both modes (all tables)."""
    conf, syns, keys, options = problem

    def shuffled(f):
        order = list(range(len(f)))
        rnd.shuffle(order)
        return f.iloc[order].reset_index(drop=True)

    for quirks in ("synthpop", "corrected"):
        a = _engine(conf, syns, keys, options, quirks)
        b = _engine(shuffled(conf), [shuffled(s) for s in syns], keys, options, quirks)
        pd.testing.assert_frame_equal(a.summary(), b.summary())
        pd.testing.assert_frame_equal(a.check_2way, b.check_2way)
        pd.testing.assert_frame_equal(a.exclusions, b.exclusions)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_modes_agree_without_quirks(problem):
    """No exclusions, keys in data order, string target: both modes give the same numbers
    unless a table lacked a level (the positional quirk, which then warns)."""
    conf, syns, keys, _ = problem
    keys = [c for c in conf.columns if c in keys]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = disclosure(conf, syns, keys, "t")
    b = disclosure(conf, syns, keys, "t", quirks="corrected")
    if not any(issubclass(w.category, SynthpopQuirkWarning) for w in caught):
        pd.testing.assert_frame_equal(a.summary(), b.summary())


def test_reference_hand_example():
    """A 4-record example worked by hand: keys (sex, age), target smoke."""
    conf = pd.DataFrame({"sex": ["F", "F", "M", "M"], "age": ["30", "40", "30", "50"],
                         "smoke": ["no", "yes", "no", "no"]})
    syn = pd.DataFrame({"sex": ["F", "F", "M", "M"], "age": ["30", "40", "30", "40"],
                        "smoke": ["no", "yes", "no", "yes"]})
    res = disclosure(conf, syn, ["sex", "age"], "smoke").summary().loc[1]
    # every original record is unique; F|30, F|40, M|30 are unique in syn too; M|50 absent
    assert (res["UiO"], res["UiS"], res["UiOiS"], res["repU"]) == (100, 100, 75, 75)
    # every key fixes the target; in syn three original records get their own value
    assert (res["Dorig"], res["iS"], res["DiS"], res["DiSCO"]) == (100, 75, 75, 75)
    assert res["baseCAPd"] == pytest.approx(100 * (0.75**2 + 0.25**2), rel=1e-15)
    assert res["TCAP"] == 100 and res["DCAP"] == 75


@pytest.mark.filterwarnings("ignore:synthpop quirk 'identity measures")
def test_tcap_with_no_record_left_in_its_denominator():
    """Regression (hypothesis): with denom_lim 1 the DiSCO record b (original cell 1) stays,
    but both synthetic cells (a: 2, b: 2) are over the limit, so no original record's keys
    remain in the synthetic table: TCAP = 1 / 0. synthpop gives Inf (checked live in
    test_disclosure_synthpop); corrected gives NaN, as the reference."""
    conf = pd.DataFrame({"k0": ["a", "a", "a", "b"], "t": ["x", "x", "x", "x"]})
    syn = pd.DataFrame({"k0": ["a", "a", "b", "b"], "t": ["x", "x", "x", "x"]})
    options = {"use_known_na": False, "use_syn_na": False, "not_syn_levels": [],
               "exclude_over_denom_lim": True, "denom_lim": 1}
    with pytest.warns(SynthpopQuirkWarning, match="TCAP over no records"):
        quirky = disclosure(conf, [syn], ["k0"], "t", **options).summary().loc[1]
    assert quirky["TCAP"] == np.inf and quirky["DiSCO"] == 25
    with warnings.catch_warnings():
        warnings.simplefilter("error", SynthpopQuirkWarning)
        fixed = _engine(conf, [syn], ["k0"], options, "corrected").summary().loc[1]
    assert np.isnan(fixed["TCAP"]) and fixed["DiSCO"] == 100
    want = reference(conf, [syn], ["k0"], "t", **options)[0]
    for name in MEASURES:
        np.testing.assert_allclose(fixed[name], want[name], rtol=1e-12, atol=1e-12,
                                   equal_nan=True, err_msg=name)


# ------------------------------------------------------------------ base R formatting
@pytest.mark.parametrize(("x", "text"), [
    (100000.0, "1e+05"), (123456.0, "123456"), (123456.7, "123456.7"), (0.1, "0.1"),
    (1 / 3, "0.333333333333333"), (1e-4, "1e-04"), (1e15, "1e+15"),
    (123456789012.0, "123456789012"), (-8.0, "-8"), (2.5, "2.5"), (0.0, "0"), (-0.0, "0"),
    (1e100, "1e+100"), (0.1 + 0.2, "0.3"),
    (99999.99999999999, "1e+05"), (999999.9999999999, "1e+06"),  # rounding widens
])
def test_r_character(x, text):
    """as.character() of doubles in R 4.2 (values checked in R); the package's one
    as.character (idrisk._rtext.r_label, also idrisk._schema.r_label)."""
    assert r_character(x) == text


def test_r_format_common_width():
    """format() as as.matrix leaves it (checked in R): c(800, 350, NA, 1500.5) and
    c(-8, 800, NA), c(1e-10, 1, NA), integers."""
    na = np.array([False, False, True, False])
    assert r_format(np.array([800, 350, 0, 1500.5]), na) == [" 800.0", " 350.0", "NA",
                                                             "1500.5"]
    assert r_format(np.array([-8.0, 800, 0]), np.array([0, 0, 1], bool)) == [" -8", "800",
                                                                             "NA"]
    assert r_format(np.array([1e-10, 1, 0]), np.array([0, 0, 1], bool)) == ["1e-10", "1e+00",
                                                                            "NA"]
    assert r_format(np.array([1, 100, 0]), np.array([0, 0, 1], bool)) == ["  1", "100", "NA"]


def test_cut_labels_and_breaks():
    """cut(dig.lab = 8) labels and classInt breaks (values from R)."""
    assert cut_labels([1, 2.5, 10.5]) == ["[1,2.5)", "[2.5,10.5]"]
    assert cut_labels([0.1, 1234567.891, 1e5 + 0.5]) == ["[0.1,1234567.9)",
                                                         "[1234567.9,100000.5]"]
    x = np.array([0.1, 0.7, 1.3, 2.9, 3.3333, 7.77, 10.01, 0.2])
    np.testing.assert_array_equal(class_breaks(x, 3, "equal"),
                                  [0.1, 3.4033333333333333, 6.7066666666666661, 10.01])
    np.testing.assert_array_equal(class_breaks(x, 3, "quantile"),
                                  [0.1, 0.8999999999999998, 3.1888666666666667, 10.01])
    np.testing.assert_array_equal(class_breaks(np.array([1.0, 1, 1, 2, 3]), 3, "equal"),
                                  [0.5, 1.5, 2.5, 3.5])


# ------------------------------------------------------------------ result faces
@pytest.fixture
def small():
    rng = np.random.default_rng(4)
    n = 200

    def frame():
        return pd.DataFrame({
            "sex": rng.choice(["F", "M"], n),
            "edu": pd.Categorical(rng.choice(["low", "mid", "high", None], n),
                                  categories=["low", "mid", "high"]),
            "age": rng.integers(18, 30, n),
            "smoke": rng.choice(["yes", "no"], n, p=[0.2, 0.8]),
            "income": np.round(rng.lognormal(7, 1, n)),
        })

    return frame(), SyntheticData([frame(), frame()], method="test")


def test_result_faces(small):
    conf, syn = small
    res = disclosure(conf, syn, ["sex", "edu", "age"], "smoke", thresh_2way=(1, 50))
    assert isinstance(res, DisclosureResult) and res.m == 2 and res.n == 200
    assert res.keys == ("sex", "edu", "age")
    assert list(res.summary().columns) == MEASURES
    assert list(res.summary().index) == [1, 2]
    long = res.to_frame()
    assert list(long.columns) == ["dataset", "family", "measure", "value"]
    assert len(long) == 2 * len(MEASURES)
    assert "DisclosureResult(target='smoke'" in repr(res)
    assert "<table" in res._repr_html_()
    assert set(res.by_level["level"]) == {"no", "yes"}
    with pytest.raises(AttributeError):
        res.m = 3  # frozen
    ex = res.exclusions
    assert set(ex["reason"]) >= {"remaining", "missing in keys"}
    remaining = ex[(ex.reason == "remaining") & (ex.table == "original")]["records"]
    assert remaining.tolist() == [200.0, 200.0]


def test_plots_return_axes(small):
    import matplotlib.pyplot as plt

    conf, syn = small
    res = disclosure(conf, syn, ["sex", "edu"], "income", ngroups_syn=4)
    ax = res.plot()
    assert ax.get_xlabel() == "% of original records"
    summary = disclosure_summary(conf, syn, ["sex", "edu"])
    fig, ax2 = plt.subplots()
    assert summary.plot(ax=ax2) is ax2
    plt.close("all")


def test_summary_table_sorted_by_disco(small):
    conf, syn = small
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SynthpopQuirkWarning)
        out = disclosure_summary(conf, syn, ["sex", "edu"], ["smoke", "age", "income"],
                                 ngroups_syn=[0, 0, 3])
    assert isinstance(out, DisclosureSummary)
    assert list(out.table.columns) == ["UiO", "repU", "Dorig", "DiSCO", "check_1way",
                                       "check_2way"]
    assert out.table["DiSCO"].is_monotonic_increasing
    for t in ("smoke", "age", "income"):
        assert out.table.loc[t, "DiSCO"] == out.results[t].attribute["DiSCO"].mean()
    assert set(out.to_frame()["target"]) == {"smoke", "age", "income"}
    # synthpop's table shows repU of synthesis 1; corrected: the mean
    fixed = disclosure_summary(conf, syn, ["sex", "edu"], ["smoke"], quirks="corrected")
    assert fixed.table.loc["smoke", "repU"] == fixed.results["smoke"].identity["repU"].mean()
    assert out.table.loc["smoke", "repU"] == out.results["smoke"].identity["repU"].iloc[0]


# ------------------------------------------------------------------ quirk warnings
def test_key_order_quirk_warns_and_corrected_keeps_settings(small):
    conf, syn = small
    conf = conf.assign(sex=conf["sex"].where(np.arange(200) % 7 != 0))
    syn = [s.assign(sex=s["sex"].where(np.arange(200) % 5 != 0)) for s in syn]
    keys = ["edu", "age", "sex"]  # data order: sex, edu, age (a 3-cycle)
    with pytest.warns(SynthpopQuirkWarning, match="usekeysNA permutation"):
        quirky = disclosure(conf, syn, keys, "smoke", use_known_na=[True, True, False])
    fixed = disclosure(conf, syn, keys, "smoke", use_known_na=[True, True, False],
                       quirks="corrected")
    same = disclosure(conf, syn, ["sex", "edu", "age"], "smoke",
                      use_known_na=[False, True, True], quirks="corrected")
    pd.testing.assert_frame_equal(fixed.attribute, same.attribute)
    assert not quirky.attribute.equals(fixed.attribute)


def test_identity_depends_on_target_quirk(small):
    conf, syn = small
    with pytest.warns(SynthpopQuirkWarning, match="identity measures depend on the target"):
        a = disclosure(conf, syn, ["sex", "age"], "smoke", not_syn_levels="no")
    b = disclosure(conf, syn, ["sex", "age"], "smoke")
    assert not a.identity.equals(b.identity)
    c = disclosure(conf, syn, ["sex", "age"], "smoke", not_syn_levels="no",
                   quirks="corrected")
    pd.testing.assert_frame_equal(c.identity, b.identity)


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize(("kw", "error", "match"), [
    ({"known": ["sex", "nope"]}, KeyError, "nope"),
    ({"syn": "sex"}, ValueError, "also one of the keys"),
    ({"denom_lim": 0}, ValueError, "denom_lim"),
    ({"ngroups_syn": 1}, ValueError, "ngroups_syn"),
    ({"ngroups_known": [1]}, ValueError, "ngroups_known"),
    ({"quirks": "fixed"}, ValueError, "quirks"),
    ({"exclude": [("sex", "X", "yes")]}, ValueError, "exclude_keylevs"),
    ({"exclude": [("sex", "F", "maybe")]}, ValueError, "exclude_targetlevs"),
    ({"exclude": [("smoke", "F")]}, ValueError, "exclude"),
])
def test_errors_name_the_argument(small, kw, error, match):
    conf, syn = small
    args = {"known": ["sex", "age"], "syn": "smoke", **kw}
    with pytest.raises(error, match=match):
        disclosure(conf, syn, **args)


def test_missing_column_in_a_synthetic_dataset(small):
    conf, syn = small
    with pytest.raises(KeyError, match="synthetic dataset 2"):
        disclosure(conf, [syn[0], syn[1].drop(columns="age")], ["sex", "age"], "smoke")


def test_engine_r_column_numbers(small):
    """R's 1-based column numbers in the R-shaped engine."""
    conf, syn = small
    a = disclosure_tables(list(syn), conf, [1, 3], 4)
    b = disclosure_tables(list(syn), conf, ["sex", "age"], "smoke")
    pd.testing.assert_frame_equal(a["attrib"], b["attrib"])
    with pytest.raises(ValueError, match="outside"):
        disclosure_tables(list(syn), conf, [9], 4)
