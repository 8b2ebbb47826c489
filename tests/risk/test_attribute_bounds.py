"""Attribute risk, label_risk and the inherent Min/Max bounds against direct implementations
and closed forms."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from idrisk.risk.attribute import attribute_risk
from idrisk.risk.bounds import bound_redraws, inherent_bounds, label_risk


def _data(n=400, seed=0, n_labels=12) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    a = rng.integers(0, 3, n)
    lab = (rng.geometric(0.25, n) + 2 * g) % n_labels
    return pd.DataFrame({"g": pd.Categorical(g), "age": pd.Categorical(a),
                         "lab": pd.Categorical([f"c{v:02d}" for v in lab])})


def _brute_identification(orig, syn, label, known):
    """Direct double loop over records (independent of identification_risk)."""
    n = len(orig)
    ko = orig[known].astype(str).agg("|".join, axis=1).to_numpy() if known else np.zeros(n)
    t_lab = orig[label].astype(str).to_numpy()
    s_lab = syn[label].astype(str).to_numpy()
    c = np.zeros(n, dtype=int)
    for i in range(n):
        for k in range(n):
            if ko[k] == ko[i] and s_lab[k] == t_lab[i]:
                c[i] += 1
    T = (s_lab == t_lab).astype(int)
    risk = np.where(c > 0, T / np.maximum(c, 1), 0.0)
    K = (c * T == 1).sum()
    F = (c * (1 - T) == 1).sum()
    s = int((c == 1).sum())
    return {"s": s, "exp_risk": risk.sum(), "true_rate": K / n,
            "false_rate": F / s if s else np.nan, "attribute_count": int(T.sum())}


def test_attribute_risk_equals_a_direct_count_with_missing_values():
    d = _data(300, 1)
    rng = np.random.default_rng(2)
    syns = []
    for _ in range(3):
        s = d.copy()
        s["lab"] = d["lab"].to_numpy()[rng.permutation(len(d))]
        s.loc[rng.choice(len(d), 5, replace=False), "lab"] = np.nan
        syns.append(s)
    res = attribute_risk(d, syns, "lab")
    for l, s in enumerate(syns, start=1):
        direct = sum(1 for x, y in zip(d["lab"], s["lab"]) if not pd.isna(y) and x == y)
        assert res.count[l] == direct
        assert res.share[l] == direct / len(d)
    assert res.summary().loc["mean", "count"] == pytest.approx(res.count.mean())
    # two synthesized variables: both must be right
    res2 = attribute_risk(d, syns, ["lab", "age"])
    np.testing.assert_array_equal(res2.A.to_numpy(), res.A.to_numpy())
    assert "AttributeRiskResult(n=300, m=3" in repr(res)
    assert len(res.to_frame("record")) == 900


@pytest.mark.parametrize("known", [["g", "age"], ["g"], []])
def test_label_risk_equals_a_brute_force_implementation(known):
    d = _data(250, 3)
    rng = np.random.default_rng(4)
    syns = []
    for j in range(3):
        s = d.copy()
        keep = rng.random(len(d)) < 0.3 * j
        perm = d["lab"].to_numpy()[rng.permutation(len(d))]
        s["lab"] = pd.Categorical(np.where(keep, d["lab"].to_numpy(), perm),
                                  categories=d["lab"].cat.categories)
        syns.append(s)
    got = label_risk(d, syns, "lab", known)
    for l, s in enumerate(syns, start=1):
        want = _brute_identification(d, s, "lab", known)
        for key, v in want.items():
            if isinstance(v, float) and np.isnan(v):
                assert np.isnan(got.loc[l, key])
            else:
                assert got.loc[l, key] == pytest.approx(v, rel=1e-12), (key, l)


def test_redraws_stay_within_their_pattern_and_follow_the_scenario_distribution():
    d = _data(600, 5)
    pat = d.groupby(["g", "age"], observed=True).ngroup().to_numpy()
    obs = {p: set(d["lab"][pat == p]) for p in np.unique(pat)}
    draws = {s: bound_redraws(d, "lab", ["g", "age"], s, n_repeats=200, seed=6)
             for s in ("min", "max")}
    for sc, sets in draws.items():
        for x in sets[:20]:
            assert all(v in obs[p] for v, p in zip(x["lab"], pat)), sc
            pd.testing.assert_series_equal(x["g"], d["g"])
            assert x["lab"].dtype == d["lab"].dtype
    # pattern 0: Max frequencies follow the pattern's empirical shares, Min is uniform
    p0 = pat == 0
    emp = d["lab"][p0].value_counts(normalize=True)
    emp = emp[emp > 0]
    for sc in ("min", "max"):
        freq = pd.concat([x["lab"][p0] for x in draws[sc]]).value_counts(normalize=True)
        freq = freq.reindex(emp.index, fill_value=0)
        target = emp if sc == "max" else pd.Series(1 / len(emp), index=emp.index)
        se = np.sqrt(target * (1 - target) / (200 * p0.sum()))
        assert (np.abs(freq - target) < 5 * se + 1e-12).all(), sc


@pytest.mark.parametrize("min_support", ["pattern", "all"])
def test_bounds_mean_attribute_counts_match_the_closed_forms(min_support):
    d = _data(800, 7, n_labels=40)
    S = 200
    b = inherent_bounds(d, "lab", ["g", "age"], n_repeats=S, seed=8, min_support=min_support)
    cf = b.closed_form
    # closed forms computed directly: Max sum_b sum_l n_bl^2 / n_b, Min sum_b n_b / G_b
    t = pd.crosstab([d["g"], d["age"]], d["lab"])
    n_b = t.sum(axis=1)
    assert cf.loc["max", "mean"] == pytest.approx(((t ** 2).sum(axis=1) / n_b).sum())
    G = (t > 0).sum(axis=1) if min_support == "pattern" else d["lab"].nunique()
    assert cf.loc["min", "mean"] == pytest.approx((n_b / G).sum())
    means = b.draws.groupby("scenario")["attribute_count"].mean()
    sds = b.draws.groupby("scenario")["attribute_count"].std()
    for sc in ("min", "max"):
        assert abs(means[sc] - cf.loc[sc, "mean"]) < 4 * cf.loc[sc, "sd"] / np.sqrt(S), sc
        assert sds[sc] == pytest.approx(cf.loc[sc, "sd"], rel=0.25)
    assert cf.loc["min", "mean"] < cf.loc["max", "mean"]


def test_bounds_draws_equal_label_risk_of_the_same_redraws():
    d = _data(300, 9)
    b = inherent_bounds(d, "lab", ["g", "age"], n_repeats=5, seed=10, risk_known=["g"])
    streams = np.random.SeedSequence(10).spawn(2)
    for sc, sq in zip(("min", "max"), streams):
        sets = bound_redraws(d, "lab", ["g", "age"], sc, 5, np.random.default_rng(sq))
        want = label_risk(d, sets, "lab", ["g"]).reset_index(drop=True)
        got = b.draws[b.draws["scenario"] == sc].drop(columns=["scenario", "draw"])
        pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_dtype=False)
    assert b.table(synth=want).columns.tolist() == ["Min", "synth", "Max"]
    assert set(b.position(want)) <= {0.0, 0.2, 0.4, 0.6, 0.8, 1.0}
    assert "InherentBounds(syn='lab'" in repr(b) and "<p>" in b._repr_html_()


def test_errors_name_the_argument():
    d = _data(50)
    with pytest.raises(KeyError, match="nope"):
        inherent_bounds(d, "lab", ["nope"])
    with pytest.raises(ValueError, match="also in known"):
        inherent_bounds(d, "lab", ["lab"])
    with pytest.raises(ValueError, match="n_repeats must"):
        inherent_bounds(d, "lab", ["g"], n_repeats=0)
    with pytest.raises(ValueError, match="min_support"):
        inherent_bounds(d, "lab", ["g"], min_support="some")
    with pytest.raises(ValueError, match="rows"):
        attribute_risk(d, d.iloc[:10], "lab")
    with pytest.raises(KeyError, match="synthetic\\[0\\]"):
        attribute_risk(d, d.drop(columns="lab"), "lab")


def test_booleans_are_categorical_in_the_bounds():
    """A bool label is categorical (idrisk._schema.is_categorical): its bounds equal those of
    the same label as text, draw for draw."""
    from idrisk import SyntheticData
    from idrisk._schema import is_categorical

    rng = np.random.default_rng(6)
    d = pd.DataFrame({"g": rng.integers(0, 3, 300), "lab": rng.random(300) < 0.3})
    assert is_categorical(d["lab"])
    as_bool = inherent_bounds(d, "lab", "g", n_repeats=5, seed=2)
    as_text = inherent_bounds(d.assign(lab=d["lab"].map(str)), "lab", "g", n_repeats=5,
                              seed=2)
    pd.testing.assert_frame_equal(as_bool.draws, as_text.draws)
    redraws = SyntheticData(bound_redraws(d, "lab", "g", "max", n_repeats=2, seed=1))
    assert all(r["lab"].dtype == bool for r in redraws)
    risk = label_risk(d, redraws, "lab", "g")  # a SyntheticData is accepted as the datasets
    assert risk.shape[0] == 2
