"""Risk measures and weights against brute-force definitions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import idrisk.weighted.weights as rw
from idrisk.weighted.diagnostics import bootstrap_ci, risk_summary, whack_a_mole

# ----------------------------------------------------------------- brute force references
# Written from the definitions only (published eqs 1-2 and 6-8); nothing here calls the code
# under test. The ball B(y, r) is by default closed: |v - y| <= r * |y| (the papers'
# percentage radius); ``ball`` may ask for an absolute radius (percentage=False), R's r * y
# (abs_radius=False) or an open ball (closed=False).


def inside(v, centre, r, percentage=True, abs_radius=True, closed=True):
    """Is v in the ball around ``centre``? Straight from the definition: between the bounds
    ``centre - d`` and ``centre + d`` (as R computes them, so that the floating-point boundary
    is the same as the identification risk's: ``abs(v - centre) < d`` can differ by one
    rounding, e.g. v = -3e-138, centre = -1, d = 1)."""
    if not percentage:
        radius = r
    else:
        radius = r * (abs(centre) if abs_radius else centre)
    lo, hi = centre - radius, centre + radius
    if closed:
        return lo <= v <= hi
    return lo < v < hi


def brute_marginal(y, p, r, **ball):
    """IR_i^c: share of i's pattern whose value is outside B(y_i, r)."""
    out = []
    for i in range(len(y)):
        members = [h for h in range(len(y)) if p[h] == p[i]]
        out.append(sum(not inside(y[h], y[i], r, **ball) for h in members) / len(members))
    return np.array(out)


def brute_pairwise(y, p, r, **ball):
    """Triple loop straight from eqs (6)-(8): O(|M|^3) per pattern."""
    alpha = np.ones(len(y))
    for i in range(len(y)):
        members = [h for h in range(len(y)) if p[h] == p[i]]
        if len(members) == 1:
            continue
        tot = 0.0
        for j in members:
            if j == i:
                continue
            cnt = sum(
                1
                for h in members
                if not inside(y[h], y[i], r, **ball) and not inside(y[h], y[j], r, **ball)
            )
            tot += 1 - cnt / len(members)
        alpha[i] = tot / (len(members) - 1)
    return alpha


def brute_synthetic(y, p, ys, r, **ball):
    """IR_i^(l) = #{h in M_i: y*_h outside B(y_i, r)} / |M_i| * T_i (published eq. 1)."""
    out = []
    for i in range(len(y)):
        members = [h for h in range(len(y)) if p[h] == p[i]]
        t = inside(ys[i], y[i], r, **ball)
        out.append(sum(not inside(ys[h], y[i], r, **ball) for h in members) / len(members) * t)
    return np.array(out)


def test_brute_references_on_a_hand_example():
    # y = 10, 11, 12, 50 in one pattern, r = 10%: B(10) = [9, 11] holds 10, 11;
    # B(11) = [9.9, 12.1] holds 10, 11, 12; B(12) = [10.8, 13.2] holds 11, 12; B(50) only 50
    y = np.array([10.0, 11.0, 12.0, 50.0])
    p = np.zeros(4)
    np.testing.assert_allclose(brute_marginal(y, p, 0.1), [0.5, 0.25, 0.5, 0.75])
    # outside B(10) = {12, 50}, B(11) = {50}, B(12) = {10, 50}, B(50) = {10, 11, 12}.
    # alpha_pw(10): outside both with 11 {50}, with 12 {50}, with 50 {12} -> 3 x (1 - 1/4) / 3
    # alpha_pw(50): with 10 {12}, with 11 {}, with 12 {10} -> (3/4 + 1 + 3/4) / 3
    np.testing.assert_allclose(brute_pairwise(y, p, 0.1)[[0, 3]], [0.75, 5 / 6])
    np.testing.assert_allclose(rw.risk_weights(y, p, 0.1, weighting="marginal"),
                               [0.5, 0.75, 0.5, 0.25])
    np.testing.assert_allclose(rw.risk_weights(y, p, 0.1, weighting="pairwise"),
                               brute_pairwise(y, p, 0.1))


values = st.lists(
    st.one_of(st.integers(-50, 200).map(float), st.floats(-1e3, 1e4, allow_nan=False)),
    min_size=1, max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(
    vals=values,
    data=st.data(),
    r=st.sampled_from([0.0, 0.05, 0.15, 0.3, 1.0, 2.5]),
    percentage=st.booleans(),
    abs_radius=st.booleans(),
    closed=st.booleans(),
)
def test_fast_pairwise_equals_naive_definition(vals, data, r, percentage, abs_radius, closed):
    """Every ball of the vocabulary (absolute or percentage, r|y| or R's r*y, open or closed)."""
    ball = {"percentage": percentage, "abs_radius": abs_radius, "closed": closed}
    y = np.array(vals)
    p = np.array(data.draw(st.lists(st.integers(0, 3), min_size=len(y), max_size=len(y))))
    fast = rw.pairwise_weights(y, p, r, **ball).to_numpy()
    np.testing.assert_allclose(fast, brute_pairwise(y, p, r, **ball), atol=1e-12)
    np.testing.assert_allclose(fast, rw.pairwise_weights_naive(y, p, r, **ball), atol=1e-12)
    np.testing.assert_allclose(
        rw.confidential_marginal_risk(y, p, r, **ball).to_numpy(), brute_marginal(y, p, r, **ball)
    )


@settings(max_examples=60, deadline=None)
@given(vals=values, data=st.data(), r=st.sampled_from([0.05, 0.2, 0.5]),
       percentage=st.booleans(), abs_radius=st.booleans(), closed=st.booleans())
def test_synthetic_marginal_risk_equals_definition(vals, data, r, percentage, abs_radius,
                                                   closed):
    ball = {"percentage": percentage, "abs_radius": abs_radius, "closed": closed}
    y = np.array(vals)
    n = len(y)
    p = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    ys = [y * data.draw(st.floats(0.7, 1.3)) + np.arange(n) % 3 for _ in range(2)]
    res = rw.synthetic_marginal_risk(y, p, ys, r, **ball)
    expected = np.mean([brute_synthetic(y, p, s, r, **ball) for s in ys], axis=0)
    np.testing.assert_allclose(res.record_risk.to_numpy(), expected)
    assert res.per_dataset.shape == (n, 2)


def test_betty_toy_example():
    # Published Figure 1a: 13 records in Betty's pattern, 10 synthetic values far away,
    # Betty's synthetic value close: IR = 10/13.
    y = np.full(13, 100.0)
    ys = np.r_[101.0, 99.0, 100.0, np.full(10, 500.0)]
    res = rw.synthetic_marginal_risk(y, np.zeros(13), [ys], 0.1)
    assert res.record_risk.iloc[0] == pytest.approx(10 / 13)
    assert res.record_risk.iloc[5] == 0.0  # T = 0


def test_hand_computed_weights_and_adjustment():
    y = pd.Series([10.0, 11.0, 30.0, 5.0], index=list("abcd"))
    p = pd.Series(["x", "x", "x", "solo"], index=y.index)
    marg = rw.risk_weights(y, p, 0.1, weighting="marginal")
    assert marg.index.tolist() == list("abcd")
    np.testing.assert_allclose(marg, [2 / 3, 2 / 3, 1 / 3, 1.0])
    pw = rw.risk_weights(y, p, 0.1, weighting="pairwise")
    np.testing.assert_allclose(pw, [5 / 6, 5 / 6, 1.0, 1.0])  # singleton: marginal rule
    adj = rw.risk_weights(y, p, 0.1, weighting="marginal", c=1.5, g=0.1)
    np.testing.assert_allclose(adj, np.minimum(1.5 * marg + 0.1, 1.0))
    assert rw.risk_weights(y, p, 0.1, weighting="pairwise", g=0.1).max() <= 1.0


def test_pattern_from_dataframe_and_absolute_radius():
    df = pd.DataFrame({"a": [1, 1, 2, 2], "b": ["u", "u", "u", None]})
    codes = rw.pattern_codes(df)
    assert codes[0] == codes[1] and len(set(codes)) == 3
    y = [0.0, 1.0, 2.0, 3.0]
    np.testing.assert_allclose(rw.confidential_marginal_risk(y, [0] * 4, 1.0, percentage=False),
                               [0.5, 0.25, 0.25, 0.5])
    # percentage radius around 0 is the single point 0
    assert rw.confidential_marginal_risk(y, [0] * 4, 0.5).iloc[0] == 0.75


def test_input_errors_name_the_argument():
    with pytest.raises(ValueError, match="weighting"):
        rw.risk_weights([1.0], [0], 0.1, weighting="joint")
    with pytest.raises(ValueError, match="pattern has 1 records but y has 2"):
        rw.risk_weights([1.0, 2.0], [0], 0.1)
    with pytest.raises(ValueError, match="y contains missing"):
        rw.risk_weights([1.0, np.nan], [0, 0], 0.1)
    with pytest.raises(ValueError, match="r must be"):
        rw.risk_weights([1.0], [0], -0.1)
    with pytest.raises(ValueError, match="c must be"):
        rw.risk_weights([1.0], [0], 0.1, c=-1)
    with pytest.raises(ValueError, match="dataset 1 has 1 values"):
        rw.synthetic_marginal_risk([1.0, 2.0], [0, 0], [[1.0]], 0.1)


def test_top_level_entry_point_if_exported():
    import idrisk

    if not callable(getattr(idrisk, "risk_weights", None)):
        pytest.skip("idrisk.risk_weights not exported from idrisk/__init__.py yet")
    out = idrisk.risk_weights(np.array([10.0, 11.0, 30.0]), ["a"] * 3, 0.1, weighting="pairwise")
    np.testing.assert_allclose(out, [5 / 6, 5 / 6, 1.0])


def test_tc_measure_agrees_with_r_package_definition():
    pytest.importorskip("idrisk.risk")
    rng = np.random.default_rng(0)
    n = 60
    orig = pd.DataFrame({"k": rng.choice(["a", "b"], n), "y": rng.lognormal(4, 0.5, n)})
    syn = [orig.assign(y=orig["y"] * rng.uniform(0.8, 1.2, n)) for _ in range(3)]
    got = rw.rpackage_record_risk(orig, syn, known=["k"], syn="y", r=0.1)
    # brute force T/c with the R package's open interval |x - y| < r*y
    exp = np.zeros(n)
    for s in syn:
        for i in range(n):
            near = (s["y"] - orig["y"][i]).abs() < 0.1 * orig["y"][i]
            close = (orig["k"] == orig["k"][i]) & near
            c = close.sum()
            t = abs(s["y"][i] - orig["y"][i]) < 0.1 * orig["y"][i]
            exp[i] += (t / c if c else 0.0) / len(syn)
    np.testing.assert_allclose(got.to_numpy(), exp)


def test_series_inputs_align_on_index_or_raise():
    y = pd.Series([10.0, 11.0, 30.0, 5.0], index=list("abcd"))
    p = pd.Series(["x", "x", "x", "solo"], index=y.index)
    shuffled = p.iloc[[3, 0, 1, 2]]
    for fn in (rw.confidential_marginal_risk, rw.marginal_weights, rw.pairwise_weights):
        with pytest.raises(ValueError, match="pattern: its index differs from y's"):
            fn(y, shuffled, 0.1)
        pd.testing.assert_series_equal(fn(y, shuffled, 0.1, align="index"), fn(y, p, 0.1))
    with pytest.raises(ValueError, match="pattern"):
        rw.risk_weights(y, shuffled, 0.1)
    np.testing.assert_allclose(rw.risk_weights(y, shuffled, 0.1, align="index"),
                               [2 / 3, 2 / 3, 1 / 3, 1.0])
    # by position on request: the shuffled labels then mean other patterns
    pos = rw.risk_weights(y, shuffled, 0.1, align="position")
    np.testing.assert_allclose(pos, brute_marginal(y.to_numpy(), shuffled.to_numpy(), 0.1) * -1
                               + 1)
    ys = y * 1.01
    with pytest.raises(ValueError, match=r"synthetic\[0\]"):
        rw.synthetic_marginal_risk(y, p, [ys.iloc[::-1]], 0.1)
    np.testing.assert_allclose(
        rw.synthetic_marginal_risk(y, p, [ys.iloc[::-1]], 0.1, align="index").record_risk,
        rw.synthetic_marginal_risk(y, p, [ys], 0.1).record_risk)
    with pytest.raises(ValueError, match="weighted"):
        whack_a_mole(y, y.iloc[::-1])
    with pytest.raises(ValueError, match="align must be"):
        rw.risk_weights(y, p, 0.1, align="labels")


def test_diagnostics_helpers():
    w = whack_a_mole(pd.Series([0.1, 0.2, 0.0]), pd.Series([0.0, 0.5, 0.3]))
    assert w.count == 2 and w.records.index.tolist() == [1, 2]
    s = risk_summary({"a": pd.Series(np.linspace(0, 1, 101))}).loc["a"]
    assert s["IQR"] == pytest.approx(0.5)
    rng = np.random.default_rng(0)
    one = rng.normal(size=500)
    # one dataset: percentile bootstrap of the mean ~ mean +- 1.96 / sqrt(n)
    b1 = bootstrap_ci(one, "mean", B=2000, seed=1)
    assert b1["length"] == pytest.approx(2 * 1.96 / np.sqrt(500), rel=0.1)
    # datasets shifted apart: pooling widens the interval
    many = [rng.normal(loc=m, size=500) for m in np.linspace(-0.2, 0.2, 10)]
    assert bootstrap_ci(many, "mean", B=500, seed=1)["length"] > 1.5 * b1["length"]
