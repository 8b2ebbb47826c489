"""API behaviour of identification_risk: errors, warnings, result object, R names."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from idrisk import identification_risk
from idrisk.exceptions import RadiusWarning, RiskInputWarning
from idrisk.r import IdentificationRisk


@pytest.fixture
def data():
    orig = pd.DataFrame(
        {
            "Age": [30, 31, 45, 46, 60, 61],
            "Sex": pd.Categorical(["F", "F", "M", "M", "F", "M"]),
            "Inc": [10.0, 11.0, 30.0, 50.0, 20.0, 21.0],
            "Exp": [5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
        }
    )
    syn1 = orig.assign(Inc=[10.5, 14.0, 31.0, 20.0, 20.5, 21.5])
    syn2 = orig.assign(Inc=[9.5, 11.5, 29.0, 49.0, 25.0, 30.0])
    return orig, [syn1, syn2]


def test_result_components_and_r_names(data):
    orig, syns = data
    res = identification_risk(orig, syns, known=["Sex"], syn=["Inc"], r=0.1)
    assert res.c.shape == (6, 2) and list(res.c.columns) == [1, 2]
    # brute force by hand for dataset 1 (Sex, Inc +- 10%)
    assert res.c[1].tolist() == [1, 1, 1, 0, 1, 2]
    assert res.T[1].tolist() == [1, 0, 1, 1, 1, 1]
    r_names = res.to_r_dict()
    np.testing.assert_array_equal(r_names["c_vector"], res.c.to_numpy())
    assert r_names["exp.risk_vector"].tolist() == res.exp_risk.tolist()
    assert set(r_names) == {
        "c_vector",
        "T_vector",
        "K_vector",
        "F_vector",
        "Risk_vector",
        "s_vector",
        "exp.risk_vector",
        "true.rate_vector",
        "false.rate_vector",
    }
    np.testing.assert_allclose(res.record_risk, res.risk.mean(axis=1))
    frame = res.to_frame()
    assert list(frame.columns) == ["s", "exp_risk", "true_rate", "false_rate"]
    long = res.to_frame("record")
    assert len(long) == 12 and {"record", "dataset", "c", "risk"} <= set(long.columns)
    assert "IdentificationRiskResult(n=6, m=2" in repr(res)
    assert list(res.summary().index)[:4] == ["s", "exp_risk", "true_rate", "false_rate"]
    back = type(res).from_r_dict(res.to_r_dict()).to_r_dict()
    for key in r_names:
        np.testing.assert_array_equal(back[key], r_names[key])


def test_r_signature_returns_plain_dict(data):
    orig, syns = data
    out = IdentificationRisk(orig, syns, known=["Sex"], syn=["Inc"], r=0.1, euclideanDist=False)
    assert isinstance(out, dict) and out["c_vector"].shape == (6, 2)
    assert out["s_vector"].shape == (2,)


def test_inputs_are_not_modified(data):
    orig, syns = data
    before = [orig.copy(), *[s.copy() for s in syns]]
    identification_risk(orig, syns, known=["Age", "Sex"], syn=["Inc"], r=[0.1, 0.2])
    for a, b in zip(before, [orig, *syns]):
        pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize(
    "kwargs, exc, pattern",
    [
        (
            dict(known=["Nope"], syn=["Inc"]),
            KeyError,
            r"known: column\(s\) \['Nope'\] not found in the confidential data",
        ),
        (
            dict(known=["Sex"], syn=["Nope"]),
            KeyError,
            r"syn: column\(s\) \['Nope'\] not found in the confidential data",
        ),
        (dict(known=["Sex", "Inc"], syn=["Inc"]), ValueError, r"overlap in \['Inc'\]"),
        (
            dict(known=["Sex"], syn=["Inc"], r=-0.1),
            ValueError,
            r"column 'Inc' must be finite and >= 0",
        ),
        (dict(known=["Sex"], syn=["Inc"], r=float("nan")), ValueError, "finite"),
        (
            dict(known=["Age", "Sex"], syn=["Inc", "Exp"], r=[0.1, 0.2]),
            ValueError,
            r"r has 2 entries but there are 3 continuous",
        ),
        (dict(known=["Sex", "Sex"], syn=["Inc"]), ValueError, "more than once"),
        (dict(known=[], syn=[]), ValueError, "both empty"),
    ],
)
def test_clear_errors(data, kwargs, exc, pattern):
    orig, syns = data
    kwargs.setdefault("r", 0.1)
    with pytest.raises(exc, match=pattern):
        identification_risk(orig, syns, **kwargs)


def test_errors_name_the_synthetic_dataset(data):
    orig, syns = data
    with pytest.raises(KeyError, match=r"not found in synthetic dataset 2 \(synthetic\[1\]\)"):
        identification_risk(orig, [syns[0], syns[1].drop(columns="Inc")], ["Sex"], ["Inc"], 0.1)
    with pytest.raises(ValueError, match=r"synthetic dataset 1 \(synthetic\[0\]\) has 5 rows"):
        identification_risk(orig, [syns[0].iloc[:5]], ["Sex"], ["Inc"], 0.1)
    with pytest.raises(ValueError, match="synthetic is empty"):
        identification_risk(orig, [], ["Sex"], ["Inc"], 0.1)
    bad = syns[0].assign(Inc=["x"] * 6)
    with pytest.raises(TypeError, match=r"'Inc' is continuous .* synthetic dataset 1"):
        identification_risk(orig, [bad], ["Sex"], ["Inc"], 0.1)
    with pytest.raises(TypeError, match="synthetic must be a DataFrame"):
        identification_risk(orig, "syn.csv", ["Sex"], ["Inc"], 0.1)


def test_long_radius_vector_warns_and_uses_first_entries(data):
    orig, syns = data
    with pytest.warns(RadiusWarning, match="using the first 2 radii"):
        long = identification_risk(orig, syns, ["Age", "Sex"], ["Inc"], r=[0.1, 0.2, 0.3])
    short = identification_risk(orig, syns, ["Age", "Sex"], ["Inc"], r=[0.1, 0.2])
    pd.testing.assert_frame_equal(long.c, short.c)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a scalar r on categorical-only data is silent here
        identification_risk(orig, syns, ["Sex"], [], r=0.2)


def test_dict_radius_and_column_order_rule(data):
    orig, syns = data
    # vector entries go to continuous columns in data-frame order: Age, Inc, Exp
    a = identification_risk(orig, syns, ["Exp", "Sex"], ["Inc", "Age"], r=[0.1, 0.2, 0.3])
    b = identification_risk(
        orig, syns, ["Exp", "Sex"], ["Inc", "Age"], r={"Age": 0.1, "Inc": 0.2, "Exp": 0.3}
    )
    pd.testing.assert_frame_equal(a.c, b.c)
    assert a.r == {"Age": 0.1, "Inc": 0.2, "Exp": 0.3}
    with pytest.raises(ValueError, match="no radius given"):
        identification_risk(orig, syns, ["Exp"], ["Inc"], r={"Inc": 0.2})


def test_empty_known_matches_on_syn_only(data):
    orig, syns = data
    res = identification_risk(orig, syns, [], ["Inc"], r=0.1)
    inc = orig["Inc"].to_numpy()
    y = syns[0]["Inc"].to_numpy()
    want = [int(((y > x - 0.1 * x) & (y < x + 0.1 * x)).sum()) for x in inc]
    assert res.c[1].tolist() == want


def test_bool_is_numeric_and_strings_compare_by_label():
    orig = pd.DataFrame({"Flag": [True, False, True], "Code": pd.Categorical([1, 2, 1])})
    syn = pd.DataFrame({"Flag": [True, True, True], "Code": ["1", "2", "1"]})  # labels as text
    res = identification_risk(orig, [syn], ["Code"], ["Flag"])
    assert res.c[1].tolist() == [2, 0, 2]


def test_threads_do_not_change_results():
    from fixture_io import load_case

    case = load_case("m20_cont_mix_n60")
    call = case.call()
    one = identification_risk(case.orig, case.syn, n_jobs=1, **call)
    for n_jobs in (2, 7):
        many = identification_risk(case.orig, case.syn, n_jobs=n_jobs, **call)
        for key, value in one.to_r_dict().items():
            np.testing.assert_array_equal(many.to_r_dict()[key], value)
    with pytest.raises(ValueError, match="n_jobs must be a positive integer"):
        identification_risk(case.orig, case.syn, n_jobs=0, **call)


def test_duplicate_column_names_are_rejected(data):
    orig, syns = data
    twice = pd.concat([syns[0], syns[0][["Inc"]]], axis=1)
    with pytest.raises(ValueError,
                       match=r"synthetic dataset 1 \(synthetic\[0\]\) has more than one"):
        identification_risk(orig, [twice], ["Sex"], ["Inc"], 0.1)


def test_fused_later_datasets_and_their_fallbacks_equal_each_dataset_alone(monkeypatch):
    """The datasets after the first take one compiled call each when they fit the first one's
    sweep (``matching.few_sweep``); one with a missing Income or an age the first did not have
    is counted the general way. Every dataset equals its own one-dataset call (which never
    takes the fused path), on one thread and on two; an error on a helper thread is raised."""
    from idrisk.risk import _fewgrid

    rng = np.random.default_rng(33)
    n = 400
    orig = pd.DataFrame({
        "Age": rng.integers(20, 70, n).astype(float),
        "Urban": rng.choice(["yes", "no"], n),
        "Income": np.round(rng.lognormal(10, 1, n)),
    })  # fmt: skip
    syns = [orig.assign(Income=rng.permutation(orig.Income.to_numpy())) for _ in range(8)]
    syns[3].loc[5, "Income"] = np.nan
    syns[5].loc[7, "Age"] = 99.0  # a value the first dataset's ages do not hold
    syns[6] = syns[6].assign(Age=rng.integers(20, 70, n).astype(float))  # other ages
    call = dict(known=["Age", "Urban"], syn=["Income"], r=0.1)
    taken = []
    real = _fewgrid.FewSweep.__call__
    monkeypatch.setattr(_fewgrid.FewSweep, "__call__",
                        lambda self, *a: taken.append(real(self, *a)) or taken[-1])  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RiskInputWarning)
        alone = [identification_risk(orig, [s], n_jobs=1, **call) for s in syns]
        assert taken == []
        for n_jobs in (1, 2):
            res = identification_risk(orig, syns, n_jobs=n_jobs, **call)
            for j, one in enumerate(alone, start=1):
                for key in ("c", "T", "K", "F"):
                    np.testing.assert_array_equal(getattr(res, key)[j], getattr(one, key)[1])
                assert res.exp_risk[j] == one.exp_risk[1]
        assert taken.count(True) == 2 * 5 and taken.count(False) == 2 * 2

        def fail(self, *a):
            raise RuntimeError("dataset failed")

        monkeypatch.setattr(_fewgrid.FewSweep, "__call__", fail)
        with pytest.raises(RuntimeError, match="dataset failed"):
            identification_risk(orig, syns, n_jobs=2, **call)


def test_from_counts_is_r_rules_whatever_the_order_of_the_datasets():
    """The result's summaries and its T, K, F and risk (derived from c and the own rows when
    first asked) follow R's rules, written here directly; summarised one dataset at a time in
    any order (``share``: on threads), every digit is the same."""
    from idrisk.risk.result import IdentificationRiskResult

    rng = np.random.default_rng(41)
    n, m = 400, 7
    c = np.asfortranarray(rng.integers(0, 5, (n, m)), dtype=np.int32)
    own = np.asfortranarray(rng.random((n, m)) < 0.6)
    hit = own & (c > 0)
    want = {"T": hit | (c == 0), "K": (c == 1) & hit, "F": (c == 1) & ~hit}
    exp_risk = [0.0] * m
    for j in range(m):
        for i in range(n):  # R's sum: record order, a double accumulator
            exp_risk[j] += 1.0 / c[i, j] if hit[i, j] else 0.0
    serial = IdentificationRiskResult.from_counts(c, own)
    shared = IdentificationRiskResult._from_counts(  # (the engine's threads)
        c, own, None, None, share=lambda task, items: [task(j) for j in reversed(items)]
    )
    for res in (serial, shared):
        assert res.exp_risk.tolist() == exp_risk
        assert res.s.tolist() == (c == 1).sum(axis=0).tolist()
        for name, flags in want.items():
            np.testing.assert_array_equal(res.array(name), flags, err_msg=name)
        np.testing.assert_array_equal(res.array("risk"), np.where(hit, 1 / np.maximum(c, 1), 0))
        np.testing.assert_array_equal(res.true_rate, want["K"].sum(axis=0) / n)
