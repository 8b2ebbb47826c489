"""Table deviations, within-pattern distributions and the ordered logit (vs MASS::polr)."""

from __future__ import annotations

import itertools
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.miscmodels.ordinal_model import OrderedModel
from statsmodels.tools.numdiff import approx_fprime

from idrisk.categorical.data import ce_label_data
from idrisk.utility.combining import combine_partial
from idrisk.utility.ordered_logit import (
    _analytic_ordered_logit,
    _design,
    _levels,
    fit_ordered_logit,
    ordered_logit_utility,
)
from idrisk.utility.tables import table_deviations, within_pattern_distribution

DATA = Path(__file__).resolve().parents[1] / "categorical" / "data"
POLR_SCRIPT = DATA / "polr_reference.R"
POLR_STORED = DATA / "polr_ce_reference.csv"   # Rscript polr_reference.R <polr input> <this>
PREDICTORS = ["Tenure", "Urban", "Marital", "AgeBand", "Educ"]


def _polr_input(ce: pd.DataFrame) -> pd.DataFrame:
    """The polr data: income quartile and five CE factors, as strings (R reads characters)."""
    d = ce_label_data(ce)
    return pd.DataFrame({"IncomeQ": d["IncomeQ"].astype(int).astype(str),
                         "Tenure": ce["Tenure"].astype(int).astype(str),
                         "Urban": d["Urban"].astype(str), "Marital": d["Marital"].astype(str),
                         "AgeBand": d["AgeBand"].astype(str), "Educ": ce["Educ"].astype(str)})


def _as_categories(x: pd.DataFrame) -> pd.DataFrame:
    x = x.copy()
    for c in x:
        x[c] = pd.Categorical(x[c], categories=sorted(x[c].unique()))
    return x


def _compare_with_polr(ref: pd.DataFrame, x: pd.DataFrame, tol: float = 1e-4) -> float:
    f = fit_ordered_logit(_as_categories(x), "IncomeQ", PREDICTORS)
    g = {k: v.set_index("name")["value"] for k, v in ref.groupby("kind")}
    worst = 0.0
    for kind, ours in (("coef", f.coef), ("coef_se", f.coef_se), ("zeta", f.zeta),
                       ("zeta_se", f.zeta_se)):
        assert list(ours.index) == list(g[kind].index), kind
        worst = max(worst, float(np.abs(ours - g[kind]).max()))
    worst = max(worst, abs(f.loglik - g["loglik"].iloc[0]))
    probs = f.predict_proba(_as_categories(x).iloc[:5]).to_numpy()
    worst = max(worst, float(np.abs(probs - g["prob"].to_numpy().reshape(4, 5).T).max()))
    assert worst <= tol, worst
    return worst


def test_ordered_logit_equals_stored_polr(ce):
    ref = pd.read_csv(POLR_STORED, keep_default_na=False)
    _compare_with_polr(ref, _polr_input(ce))


@pytest.mark.needs_r
@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript (R) not found")
def test_ordered_logit_equals_live_polr(ce, tmp_path):
    x = _polr_input(ce)
    x.to_csv(tmp_path / "in.csv", index=False)
    subprocess.run(["Rscript", str(POLR_SCRIPT), str(tmp_path / "in.csv"),
                    str(tmp_path / "out.csv")], check=True, capture_output=True)
    _compare_with_polr(pd.read_csv(tmp_path / "out.csv", keep_default_na=False), x)


def test_analytic_score_equals_numerical_derivative_of_statsmodels_loglike():
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"x": pd.Categorical(rng.choice(list("abc"), 300)),
                      "z": rng.normal(size=300)})
    d["y"] = pd.Categorical(rng.integers(1, 5, 300), ordered=True)
    X = _design(d, ["x", "z"], _levels(d, ["x", "z"]))
    plain = OrderedModel(d["y"], X, distr="logit")
    ours = _analytic_ordered_logit()(d["y"], X, distr="logit")
    p = np.array([0.3, -0.2, 0.5, -0.8, 0.2, -0.4])
    assert ours.loglike(p) == plain.loglike(p)
    np.testing.assert_allclose(ours.score(p), approx_fprime(p, plain.loglike, centered=True),
                               rtol=1e-6, atol=1e-6)


def _toy(n=300, seed=1):
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({"a": rng.choice(["x", "y"], n), "b": rng.choice(["p", "q", "r"], n),
                      "c": rng.choice(["u", "v"], n),
                      "lab": rng.choice([f"L{i}" for i in range(7)], n)})
    syns = [d.assign(lab=rng.permutation(d["lab"].to_numpy())) for _ in range(3)]
    return d, syns


def test_table_deviations_equal_a_direct_count():
    d, syns = _toy()
    kept = ["a", "b", "c"]
    td = table_deviations(d, syns, "lab", kept)
    for l, s in enumerate(syns, start=1):
        for w in (1, 2, 3):
            total = 0
            for combo in itertools.combinations(kept, w - 1):
                cols = ["lab", *combo]
                keys = set(map(tuple, d[cols].to_numpy())) | set(map(tuple, s[cols].to_numpy()))
                for k in keys:
                    co = int((d[cols].to_numpy() == np.array(k, dtype=object)).all(1).sum())
                    cs = int((s[cols].to_numpy() == np.array(k, dtype=object)).all(1).sum())
                    total += abs(cs - co)
            assert td.by_dataset().loc[l, {1: "one-way", 2: "two-way", 3: "three-way"}[w]] \
                == total
    # a permutation of the label keeps the one-way table exactly
    assert td.summary().loc["one-way", "mean_abs_deviation"] == 0
    assert td.summary().loc["two-way", "mean_abs_deviation"] > 0
    assert td.summary().loc["two-way", "mean_abs_deviation"] == pytest.approx(
        td.by_dataset()["two-way"].mean())
    assert "TableDeviations(syn='lab'" in repr(td)


def test_within_pattern_distribution_sums_to_one_and_matches_direct_shares():
    d, syns = _toy()
    w = within_pattern_distribution(d, syns, "lab", ["a", "b"])
    np.testing.assert_allclose(w.groupby("pattern")["orig"].sum(), 1.0)
    np.testing.assert_allclose(w.groupby("pattern")["syn"].sum(), 1.0)
    row = w[(w["a"] == "x") & (w["b"] == "q") & (w["lab"] == "L3")].iloc[0]
    sel = (d["a"] == "x") & (d["b"] == "q")
    assert row["orig"] == pytest.approx((d.loc[sel, "lab"] == "L3").mean())
    assert row["syn"] == pytest.approx(np.mean([(s.loc[sel, "lab"] == "L3").mean()
                                                for s in syns]))
    assert row["n_pattern"] == sel.sum()


def test_ordered_logit_utility_combines_each_synthetic_fit():
    rng = np.random.default_rng(3)
    d = pd.DataFrame({"x": rng.choice(["a", "b", "c"], 600)})
    d["y"] = pd.cut(rng.logistic(size=600) + 0.8 * (d["x"] == "b"),
                    [-np.inf, -1, 0, 1, np.inf], labels=[1, 2, 3, 4])
    syns = [d.assign(x=np.where(rng.random(600) < 0.3, rng.choice(["a", "b", "c"], 600),
                                d["x"])) for _ in range(4)]
    u = ordered_logit_utility(d, syns, "y", ["x"], train=500, seed=2)
    mask = np.zeros(600, dtype=bool)
    mask[np.random.default_rng(2).choice(600, 500, replace=False)] = True
    fits = [fit_ordered_logit(s[mask], "y", ["x"]) for s in syns]
    c = combine_partial([f.coef["xb"] for f in fits], [f.coef_se["xb"] ** 2 for f in fits])
    row = u.coefficients.loc["xb"]
    assert row["syn"] == pytest.approx(c.q_bar) and row["syn_low"] == pytest.approx(c.ci_low)
    assert row["orig"] == pytest.approx(fit_ordered_logit(d[mask], "y", ["x"]).coef["xb"])
    assert u.predictions.shape == (100, 5)
    assert u.predictions.to_numpy().min() >= 1 and u.predictions.to_numpy().max() <= 4
    # identical "synthetic" datasets: no between variance, the same interval, overlap 1
    same = ordered_logit_utility(d, [d, d], "y", ["x"])
    assert same.coefficients["overlap"].to_numpy() == pytest.approx(1.0)
    assert "OrderedLogitUtility(terms=2" in repr(u)


def test_errors_name_the_argument():
    d, syns = _toy()
    with pytest.raises(KeyError, match="nope"):
        table_deviations(d, syns, "nope", ["a"])
    with pytest.raises(ValueError, match="three-way"):
        table_deviations(d, syns, "lab", ["a"])
    with pytest.raises(KeyError, match="zz"):
        fit_ordered_logit(d, "zz", ["a"])
    with pytest.raises(ValueError, match="predict_with"):
        ordered_logit_utility(d, syns, "lab", ["a"], predict_with="x")


def test_analytic_hessian_equals_differences_of_the_score():
    rng = np.random.default_rng(5)
    d = pd.DataFrame({"x": pd.Categorical(rng.choice(list("abc"), 300)),
                      "z": rng.normal(size=300)})
    d["y"] = pd.Categorical(rng.integers(1, 5, 300), ordered=True)
    X = _design(d, ["x", "z"], _levels(d, ["x", "z"]))
    ours = _analytic_ordered_logit()(d["y"], X, distr="logit")
    p = np.array([0.3, -0.2, 0.5, -0.8, 0.2, -0.4])
    num = approx_fprime(p, ours.score, centered=True)
    np.testing.assert_allclose(ours.hessian(p), num, rtol=1e-5, atol=1e-5)
