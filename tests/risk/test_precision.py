"""Monte-Carlo intervals, the m advice and record-level stability (idrisk.risk.precision).

The coverage test uses a synthesizer whose expected risk is known exactly: the synthetic
income is the confidential one plus independent Gaussian noise, the known variable is left
alone. Record i's risk is then 1{own row matches} / (1 + S_i) with S_i the number of other
records' synthetic rows that match, a sum of independent Bernoulli variables, so
E[exp_risk] = sum_i P(own) E[1 / (1 + S_i)] follows from the Poisson-binomial distribution of
S_i, to machine precision. The mean of the simulated datasets is checked against it too.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from idrisk import identification_risk
from idrisk.risk.precision import (
    interval,
    interval_table,
    record_stability,
    required_m,
    stability_counts,
    t_quantile,
)
from idrisk.risk.result import IdentificationRiskResult

N, R, SIGMA = 60, 0.1, 4.0
REPS = 400


def _problem():
    rng = np.random.default_rng(20261126)
    age = rng.integers(20, 40, N).astype(float)
    income = rng.uniform(10, 100, N)
    return age, income


def _truth(age, income):
    """Exact E[exp_risk], E[s] and E[true_rate] of the Gaussian-noise synthesizer."""
    d_age, d_inc = R * age, R * income
    exp_risk = s = k = 0.0
    for i in range(N):
        # P(record j's synthetic row matches target i); the known Age is not synthesized
        p = norm.cdf((income[i] + d_inc[i] - income) / SIGMA) - norm.cdf(
            (income[i] - d_inc[i] - income) / SIGMA)
        p = np.where(np.abs(age - age[i]) < d_age[i], p, 0.0)
        own, others = p[i], np.delete(p, i)
        dist = np.array([1.0])  # Poisson-binomial distribution of S_i
        for q in others[others > 0]:
            dist = np.append(dist * (1 - q), 0.0) + np.append(0.0, dist * q)
        exp_risk += own * float(np.sum(dist / np.arange(1, len(dist) + 1)))
        k += own * dist[0]  # c = 1 and it is the own row
        s += own * dist[0] + (1 - own) * (dist[1] if len(dist) > 1 else 0.0)
    return {"exp_risk": exp_risk, "s": s, "true_rate": k / N}


def _counts(age, income, draws):
    """c and own (N x M) for synthetic incomes ``draws`` (N x M), as the engine counts them."""
    lo_a, hi_a = age - R * age, age + R * age
    lo_x, hi_x = income - R * income, income + R * income
    c = np.empty(draws.shape, dtype=np.int64)
    for i in range(N):
        same_age = (age > lo_a[i]) & (age < hi_a[i])
        inside = (draws > lo_x[i]) & (draws < hi_x[i]) & same_age[:, None]
        c[i] = inside.sum(axis=0)
    own = (draws > lo_x[:, None]) & (draws < hi_x[:, None])
    return c, own


@pytest.fixture(scope="module")
def gaussian():
    age, income = _problem()
    return age, income, _truth(age, income)


def test_counts_are_the_engines(gaussian):
    """The vectorised counts of the coverage test equal identification_risk's."""
    age, income, _ = gaussian
    rng = np.random.default_rng(7)
    draws = income[:, None] + rng.normal(0, SIGMA, (N, 6))
    conf = pd.DataFrame({"Age": age, "Income": income})
    syns = [conf.assign(Income=draws[:, j]) for j in range(6)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = identification_risk(conf, syns, "Age", "Income", r=R)
    c, own = _counts(age, income, draws)
    np.testing.assert_array_equal(res.c.to_numpy(), c)
    mine = IdentificationRiskResult.from_counts(c, own)
    pd.testing.assert_frame_equal(mine.to_frame("dataset"), res.to_frame("dataset"))
    pd.testing.assert_frame_equal(mine.interval(), res.interval())


def _coverage(gaussian, m, seed):
    age, income, truth = gaussian
    rng = np.random.default_rng(seed)
    draws = income[:, None] + rng.normal(0, SIGMA, (N, REPS * m))
    c, own = _counts(age, income, draws)
    hits = dict.fromkeys(truth, 0)
    means = []
    for rep in range(REPS):
        cols = slice(rep * m, (rep + 1) * m)
        table = IdentificationRiskResult.from_counts(c[:, cols], own[:, cols]).interval(0.95)
        means.append(table.loc["exp_risk", "mean"])
        for key, value in truth.items():
            hits[key] += table.loc[key, "lower"] <= value <= table.loc[key, "upper"]
    return {k: v / REPS for k, v in hits.items()}, np.array(means)


@pytest.mark.parametrize(("m", "seed"), [(2, 102), (5, 105), (20, 120)])
def test_interval_covers_the_true_expected_risk(gaussian, m, seed):
    """95% t-intervals from m datasets cover the exact expected risk in 93-97% of 400 runs."""
    coverage, means = _coverage(gaussian, m, seed)
    truth = gaussian[2]["exp_risk"]
    # the simulation agrees with the exact value (checks the formula of _truth)
    se_all = means.std(ddof=1) / math.sqrt(REPS)
    assert abs(means.mean() - truth) < 4 * se_all, (means.mean(), truth)
    assert 0.93 <= coverage["exp_risk"] <= 0.97, coverage


def test_m_one_gives_no_interval():
    conf = pd.DataFrame({"Sex": ["F", "M", "M"], "Income": [10.0, 20.0, 30.0]})
    res = identification_risk(conf, [conf], "Sex", "Income", r=0.1)
    table = res.interval()
    assert table[["se", "lower", "upper"]].isna().all().all()
    assert table.loc["exp_risk", "mean"] == 3.0
    assert "no interval" in table.attrs["note"]
    assert res.summary().loc["exp_risk", ["se", "lower", "upper"]].isna().all()
    with pytest.raises(ValueError, match="m = 1"):
        required_m(res, relative=0.1)


def test_interval_formula():
    values = pd.DataFrame({"exp_risk": [4.0, 6.0, 5.0, 9.0, 1.0]})
    got = interval_table(values, level=0.9).loc["exp_risk"]
    sd = values["exp_risk"].std(ddof=1)
    half = t_quantile(0.9, 4) * sd / math.sqrt(5)
    assert got["se"] == pytest.approx(sd / math.sqrt(5))
    assert (got["lower"], got["upper"]) == pytest.approx((5.0 - half, 5.0 + half))
    with pytest.raises(ValueError, match="level"):
        interval_table(values, level=95)


def test_false_rate_with_s_zero_is_left_out():
    values = pd.DataFrame({"false_rate": [0.5, np.nan, 0.7]})
    got = interval_table(values).loc["false_rate"]
    assert got["m"] == 2 and got["mean"] == pytest.approx(0.6)


def _pilot(values):
    c = np.ones((1, len(values)), dtype=np.int64)
    res = IdentificationRiskResult.from_counts(c, np.ones_like(c, dtype=bool))
    return res.__class__(**{**res.__dict__, "exp_risk": pd.Series(values, dtype=float)})


def test_required_m_reaches_the_precision_and_no_smaller_m_does():
    rng = np.random.default_rng(3)
    res = _pilot(rng.normal(40, 5, 8))
    sd = res.exp_risk.std(ddof=1)
    for precision in (0.5, 1.0, 2.0, 4.0):
        m = required_m(res, precision=precision)
        assert t_quantile(0.95, m - 1) * sd / math.sqrt(m) <= precision
        if m > 2:
            assert t_quantile(0.95, m - 2) * sd / math.sqrt(m - 1) > precision
    m_rel = required_m(res, relative=0.02)
    assert m_rel == required_m(res, precision=0.02 * res.exp_risk.mean())
    assert required_m(res, precision=1.0, level=0.99) > required_m(res, precision=1.0)
    with pytest.raises(ValueError, match="exactly one"):
        required_m(res, precision=1.0, relative=0.1)
    with pytest.raises(ValueError, match="> 0"):
        required_m(res, precision=0.0)


def test_record_stability_counts_unique_true_matches():
    conf = pd.DataFrame({"Sex": ["F", "F", "M", "M"], "Income": [10.0, 11.0, 30.0, 50.0]})
    syns = [conf.assign(Income=v) for v in ([10.5, 14.0, 31.0, 20.0],
                                            [10.2, 11.1, 45.0, 50.5],
                                            [10.1, 10.6, 30.5, 52.0])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = identification_risk(conf, syns, "Sex", "Income", r=0.1)
    st = record_stability(res)
    np.testing.assert_array_equal(st["identified"], res.K.sum(axis=1))
    assert st["every"].tolist() == (res.K.sum(axis=1) == 3).tolist()
    by_risk = record_stability(res, threshold=0.5)
    np.testing.assert_array_equal(by_risk["identified"], (res.risk >= 0.5).sum(axis=1))
    counts = stability_counts(st, res.m)
    assert counts["records"].sum() == (st["identified"] > 0).sum()
    with pytest.raises(ValueError, match="threshold"):
        record_stability(res, threshold=0)


def test_interval_function_and_method_agree():
    conf = pd.DataFrame({"Sex": ["F", "M"], "Income": [10.0, 30.0]})
    res = identification_risk(conf, [conf, conf.assign(Income=[10.5, 29.0])], "Sex",
                              "Income", r=0.1)
    pd.testing.assert_frame_equal(interval(res, 0.9), res.interval(level=0.9))
