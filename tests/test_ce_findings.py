"""Hornby & Hu (2021) Section 4 findings on idrisk's own CE output (fast-mode synthesis).

synthpop's own output (``fixtures/synthpop``: risk_by_radius.csv, utility.csv; seed 2021,
m = 20) is the reference. Where the article's text disagrees with synthpop's output, the
test follows synthpop (see vignettes/ce_section4.md):

* peak radius: the article says 2.5% for scenarios (1)-(2) and 10% for (3)-(4); synthpop's
  medians peak at 2.5%, 5%, 20%, 30% (with near-ties 2.5%/5% in (1), 20%/30% in (3)-(4));
* utility: U_p(3) < U_p(2) holds; the article's "utility falls for any pair of scenarios"
  does not (synthpop: U_p(4) < U_p(2)).

Runtime: synthesis of 4 x 20 datasets (~3 s), a 6-radius sweep (~15 s), and 80 logistic
propensity fits (~20-40 s) on 2 cores.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _shared import fixtures_dir

from idrisk.analysis import Scenario, maximizing_radius, radius_sweep
from idrisk.synthesis import syn
from idrisk.utility import propensity_utility

pytestmark = pytest.mark.slow

KNOWN = ["Age", "Urban", "Marital"]
SCENARIOS = {1: ["Income"], 2: ["Tenure", "Income"], 3: ["Expenditure", "Income"],
             4: ["Tenure", "Expenditure", "Income"]}
RADII = [0.01, 0.025, 0.05, 0.1, 0.2, 0.3]
M = 20


@pytest.fixture(scope="module")
def scenarios(ce) -> dict:
    return {k: Scenario(v, syn(ce, m=M, syn=v, seed=2021, rng="numpy"))
            for k, v in SCENARIOS.items()}


@pytest.fixture(scope="module")
def sweep(ce, scenarios) -> pd.DataFrame:
    return radius_sweep(ce, scenarios, KNOWN, radii=RADII, progress=False)


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    return pd.read_csv(fixtures_dir("synthpop") / "risk_by_radius.csv")


def _medians(df: pd.DataFrame) -> pd.DataFrame:
    return df.groupby(["r", "scenario"])["exp_risk"].median().unstack()


def test_median_risk_per_radius_close_to_synthpop(sweep, reference):
    ours, ref = _medians(sweep), _medians(reference)
    assert ours.shape == ref.shape == (6, 4)
    # sampling SE of the difference of two medians of 20 datasets (normal approximation)
    sd = reference.groupby(["r", "scenario"])["exp_risk"].std().unstack()
    se = np.sqrt(2) * 1.2533 * sd / np.sqrt(M)
    diff = (ours - ref).abs()
    big = ref >= 15
    # where risk is not tiny, the 10% target holds
    assert ((diff <= 0.10 * ref) | ~big).all().all(), (ours / ref - 1).round(3)
    # everywhere: within 10% or 3 sampling SEs (small risks: the median of 20 is noisy)
    assert (diff <= np.maximum(0.10 * ref, 3 * se)).all().all(), ((ours - ref) / se).round(2)
    within10 = int((diff <= 0.10 * ref).sum().sum())
    assert within10 >= 14  # 16 of 24 cells at seed 2021


def test_peak_radius_follows_synthpop(sweep, reference):
    ours, ref = _medians(sweep), _medians(reference)
    best_ours = maximizing_radius(sweep)["r"]
    best_ref = maximizing_radius(reference)["r"]
    # synthpop's own peaks; the article's 2.5% / 10% hold only for scenario (1)
    assert best_ref.to_dict() == {1: 0.025, 2: 0.05, 3: 0.2, 4: 0.3}
    for s in SCENARIOS:
        # our peak is (near-)maximal for synthpop and synthpop's peak is near-maximal for us
        assert ref.loc[best_ours[s], s] >= 0.9 * ref[s].max()
        assert ours.loc[best_ref[s], s] >= 0.9 * ours[s].max()
    # the article's claims that synthpop contradicts, contradicted by idrisk too
    assert ours.loc[0.025, 2] < ours[2].max()
    assert ours.loc[0.1, 3] < ours.loc[0.2, 3] and ours.loc[0.1, 4] < ours.loc[0.2, 4]
    # every scenario has an interior or boundary peak with lower risk at 1%
    assert (ours.loc[0.01] < ours.max()).all()


def test_risk_falls_as_more_variables_are_synthesised(sweep, reference):
    for df in (sweep, reference):
        med = _medians(df)
        for r in RADII:
            row = med.loc[r]
            assert row[1] > row[2] > row[3] > row[4], (r, row.tolist())
        at_max = maximizing_radius(df)["risk"]
        assert at_max[1] > at_max[2] > at_max[3] > at_max[4]


def test_utility_ordering_follows_synthpop(ce, scenarios):
    ref = pd.read_csv(fixtures_dir("synthpop") / "utility.csv").query("method == 'logit'")
    ref_med = ref.groupby("scenario")["pMSE"].median()
    ours = {k: float(propensity_utility(ce, sc.synthetic, method="logit").median())
            for k, sc in scenarios.items()}
    # U_p is synthpop's logit pMSE (equal sizes): medians within 10% of synthpop's
    for k in SCENARIOS:
        assert ours[k] == pytest.approx(ref_med[k], rel=0.10), (k, ours[k], ref_med[k])
    # the article's U_p(3) < U_p(2) and the 1 -> 2, 3 -> 4 trade-offs hold in both
    for u in (ours, ref_med.to_dict()):
        assert u[3] < u[2]
        assert u[1] < u[2] and u[3] < u[4] and u[1] < u[4]
        assert u[4] < u[2]  # against the article's "any pair": (2) -> (4) improves utility
