"""Section 4 analysis functions: radius sweep against synthpop/IdentificationRisk's output."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _shared import fixtures_dir

from idrisk._synthetic import Synthesizer
from idrisk.analysis import (
    Scenario,
    m_experiment,
    maximizing_radius,
    radius_sweep,
    risk_at_radius,
    risk_utility,
)
from idrisk.datasets import load_demo, read_ce
from idrisk.risk import identification_risk
from idrisk.utility import propensity_utility

KNOWN = ["Age", "Urban", "Marital"]


def _fixture_scenario(k: int, syn: list[str], m: int) -> Scenario:
    d = fixtures_dir("synthpop") / f"scenario{k}"
    return Scenario(syn, [read_ce(d / f"syn_{i:02d}.csv") for i in range(1, m + 1)])


def test_radius_sweep_reproduces_reference(ce):
    scen = {3: _fixture_scenario(3, ["Expenditure", "Income"], 4),
            2: _fixture_scenario(2, ["Tenure", "Income"], 4)}
    sweep = radius_sweep(ce, scen, KNOWN, radii=[0.025, 0.2], progress=False)
    assert len(sweep) == 2 * 2 * 4
    ref = pd.read_csv(fixtures_dir("synthpop") / "risk_by_radius.csv")
    merged = sweep.merge(ref, on=["scenario", "r", "dataset"], suffixes=("", "_ref"))
    assert len(merged) == len(sweep)
    for col in ("exp_risk", "true_rate", "false_rate"):
        np.testing.assert_allclose(merged[col], merged[f"{col}_ref"], rtol=1e-12)
    np.testing.assert_allclose(sweep.record_mean_risk, sweep.exp_risk / len(ce))


def test_per_variable_radii_equal_scalar(ce):
    sc = _fixture_scenario(3, ["Expenditure", "Income"], 2)
    same = radius_sweep(ce, [*sc.synthetic], KNOWN, sc.syn, radii=[0.1], progress=False)
    per = radius_sweep(ce, sc.synthetic, KNOWN, sc.syn,
                       radii=[{"Age": 0.1, "Expenditure": 0.1, "Income": 0.1},
                              {"Age": 0.1, "Expenditure": 0.3, "Income": 0.1}], progress=False)
    assert per.r.iloc[0] == "Age=0.1, Expenditure=0.1, Income=0.1"
    np.testing.assert_array_equal(per.exp_risk.iloc[:2], same.exp_risk)
    direct = identification_risk(ce, sc.synthetic, KNOWN, sc.syn,
                                 r={"Age": 0.1, "Expenditure": 0.3, "Income": 0.1})
    np.testing.assert_array_equal(per.exp_risk.iloc[2:], direct.exp_risk)


def test_maximizing_radius_brute_force():
    ref = pd.read_csv(fixtures_dir("synthpop") / "risk_by_radius.csv")
    best = maximizing_radius(ref)
    for s in range(1, 5):
        g = ref[ref.scenario == s]
        meds = {r: np.median(g.exp_risk[g.r == r]) for r in g.r.unique()}
        r_star = max(meds, key=meds.get)
        assert best.loc[s, "r"] == r_star
        assert best.loc[s, "risk"] == pytest.approx(meds[r_star])
    at = risk_at_radius(ref)
    assert len(at) == 4 * 20
    assert set(zip(at.scenario, at.r, strict=True)) == set(best["r"].items())
    with pytest.raises(ValueError, match="stat"):
        maximizing_radius(ref, stat="max")


@pytest.fixture(scope="module")
def small() -> pd.DataFrame:
    return load_demo(n=400, seed=3)


def _bootstrap(data, m, syn, seed):
    rng = np.random.default_rng(seed)
    return [data.assign(**{v: rng.choice(data[v].to_numpy(), len(data)) for v in syn})
            for _ in range(m)]


def test_risk_utility_matches_direct_calls(small):
    scen = {1: Scenario(["Income"], _bootstrap(small, 3, ["Income"], 1))}
    out = risk_utility(small, scen, KNOWN, {1: 0.05}, maxorder=0)
    direct = identification_risk(small, scen[1].synthetic, KNOWN, ["Income"], r=0.05)
    np.testing.assert_array_equal(out.exp_risk, direct.exp_risk)
    np.testing.assert_allclose(out.U_p, propensity_utility(small, scen[1].synthetic, maxorder=0))


class _BootstrapSynthesizer(Synthesizer):
    """A user's own synthesizer: bootstrap the ``syn`` columns (the protocol, nothing more)."""

    _method = "bootstrap"

    def __init__(self, *, syn=()):
        self.syn = syn

    def fit(self, data):
        self.data_ = data
        return self

    def synthesize(self, m=5, seed=None):
        self._check_fitted()
        return self._result(_bootstrap(self.data_, m, list(self.syn), seed), seed)


def test_m_experiment_averages(small):
    out = m_experiment(small, ["Income"], KNOWN, 0.05, m_values=[1, 3], n_repeats=2, seed=10,
                       synthesizer=_BootstrapSynthesizer(syn=["Income"]), maxorder=0,
                       progress=False)
    assert out[["m", "repeat"]].values.tolist() == [[1, 0], [1, 1], [3, 0], [3, 1]]
    row = out.iloc[3]
    ds = _bootstrap(small, 3, ["Income"], int(row.seed))
    direct = identification_risk(small, ds, KNOWN, ["Income"], r=0.05)
    assert row.exp_risk == pytest.approx(direct.exp_risk.mean())
    assert row.U_p == pytest.approx(propensity_utility(small, ds, maxorder=0).mean())
    assert row.record_mean_risk == pytest.approx(row.exp_risk / len(small))


def test_m_experiment_default_synthesizer(small):
    out = m_experiment(small, ["Income"], KNOWN, 0.05, m_values=[2], n_repeats=1, maxorder=0,
                       progress=False)
    assert out.shape[0] == 1 and out.exp_risk.iloc[0] > 0
    # the default is CART of syn in fast mode: the same as passing it
    from idrisk.synthesis import CARTSynthesizer

    same = m_experiment(small, ["Income"], KNOWN, 0.05, m_values=[2], n_repeats=1, maxorder=0,
                        progress=False,
                        synthesizer=CARTSynthesizer(syn=["Income"], rng="numpy"))
    pd.testing.assert_frame_equal(out, same)


def test_radius_sweep_errors(small):
    with pytest.raises(ValueError, match="syn"):
        radius_sweep(small, [small], KNOWN)
    with pytest.raises(ValueError, match="radii"):
        radius_sweep(small, [small], KNOWN, ["Income"], radii=[])


def test_risk_utility_takes_a_radius_per_column():
    """A vector radius (one per continuous column, R's rule) is a radius of the sweep too; the
    report's U_p once failed on it."""
    import warnings

    from idrisk import identification_risk
    from idrisk.analysis import Scenario, risk_utility
    from idrisk.datasets import load_demo

    d = load_demo(n=300, seed=1)
    s = d.assign(Income=d.Income.sample(frac=1, random_state=1).to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = risk_utility(d, {1: Scenario(["Income"], [s])}, ["Age"], [0.1, 0.2], maxorder=0)
        want = identification_risk(d, [s], ["Age"], ["Income"], r=[0.1, 0.2])
    assert out["r"].tolist() == ["0.1, 0.2"] and out["U_p"].notna().all()
    assert out["exp_risk"].tolist() == want.exp_risk.tolist()
