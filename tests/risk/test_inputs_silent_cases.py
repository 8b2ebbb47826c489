"""Issue 10: each silent wrong answer on a user's own data now warns (R-exact number) or raises.

The CE sample and synthpop's scenario files (``shared/``) are the data a new user tries first;
the R-exact numbers are those of ``shared/fixtures/synthpop/risk_by_radius.csv``
(IdentificationRiskCalculation on the same files).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from _shared import cedata_path, fixtures_dir

from idrisk import identification_risk
from idrisk.datasets import read_ce
from idrisk.exceptions import ContinuousCodesWarning, RadiusWarning, RiskInputWarning

KNOWN = ["Age", "Urban", "Marital"]


@pytest.fixture(scope="module")
def ce():
    return read_ce(cedata_path())


@pytest.fixture(scope="module")
def raw():
    """CEdata as stored (Urban, Tenure, Marital integer codes), as load_r_dataset gives it."""
    return pd.read_csv(cedata_path())


def _syn(k: int, m: int = 3, reader=read_ce) -> list[pd.DataFrame]:
    return [reader(fixtures_dir("synthpop") / f"scenario{k}" / f"syn_{j:02d}.csv")
            for j in range(1, m + 1)]


@pytest.fixture(scope="module")
def r_values():
    return pd.read_csv(fixtures_dir("synthpop") / "risk_by_radius.csv")


def _r_exp_risk(r_values, scenario, r, m=3):
    sel = r_values[(r_values.scenario == scenario) & np.isclose(r_values.r, r)]
    return sel.sort_values("dataset").exp_risk.to_numpy()[:m]


def _run(*args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = identification_risk(*args, **kwargs)
    return res, caught


def _of(caught, category):
    return [str(w.message) for w in caught if issubclass(w.category, category)]


def test_r_exact_numbers_come_with_warnings(ce, r_values):
    """Scenario 1, r = 0.1: R's numbers to the last digit, and the 449 records <= 0 reported."""
    res, caught = _run(ce, _syn(1), KNOWN, ["Income"], r=0.1)
    np.testing.assert_array_equal(res.exp_risk.to_numpy(), _r_exp_risk(r_values, 1, 0.1))
    assert (res.checks["never_match"] == 449).all()
    assert (res.checks["na_confidential"] == 0).all() and (res.checks["na_synthetic"] == 0).all()
    assert (res.checks["c_zero"] >= 449).all()
    msgs = _of(caught, RiskInputWarning)
    assert any("449 of 5571 records (8.1%) can never be matched" in m and "Income: 449" in m
               and "abs_radius=True" in m for m in msgs)
    # the checks are printed
    assert "never matched (≤ 0 under a % radius): 449" in repr(res)
    assert res.summary().loc["never_match", "mean"] == 449


def test_number_stored_as_text_is_an_error(ce):
    bad = ce.copy()
    bad["Income"] = bad["Income"].astype(object)
    bad.loc[5, "Income"] = "n/a"
    with pytest.raises(TypeError, match=r"\['Income'\].*'n/a'.*categorical=\['Income'\]"):
        identification_risk(bad, _syn(1, 2), KNOWN, ["Income"], r=0.1)
    # declared categorical: R's factor behaviour, on purpose (matched exactly)
    res, _ = _run(bad, _syn(1, 2), KNOWN, ["Income"], r=0.1, categorical=["Income"])
    assert list(res.continuous) == ["Age"]
    # declared continuous after the user blanked the stray value: the numeric result
    fixed = bad.assign(Income=bad["Income"].replace("n/a", None))
    a, _ = _run(fixed, _syn(1, 2), KNOWN, ["Income"], r=0.1, continuous=["Income"])
    b, _ = _run(ce.assign(Income=ce.Income.where(ce.index != 5)), _syn(1, 2), KNOWN,
                ["Income"], r=0.1)
    pd.testing.assert_frame_equal(a.c, b.c)


def test_r_signature_keeps_r_rule_with_a_warning(ce):
    from idrisk.r import IdentificationRisk, NumbersAsTextWarning

    bad = ce.copy()
    bad["Income"] = bad["Income"].astype(object)
    bad.loc[5, "Income"] = "n/a"
    syns = _syn(1, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = IdentificationRisk(bad, syns, KNOWN, ["Income"], r=0.1)
    assert any("'n/a'" in m for m in _of(caught, NumbersAsTextWarning))
    as_factor, _ = _run(bad, syns, KNOWN, ["Income"], r=0.1, categorical=["Income"])
    np.testing.assert_array_equal(out["exp.risk_vector"], as_factor.exp_risk.to_numpy())
    numeric, _ = _run(ce, syns, KNOWN, ["Income"], r=0.1)
    assert not np.array_equal(out["exp.risk_vector"], numeric.exp_risk.to_numpy())


def test_integer_codes_given_a_radius_warn(raw, ce, r_values):
    """load_r_dataset('CEdata') / read_csv: Urban and Marital are integers."""
    syns_raw = _syn(2, reader=pd.read_csv)
    res, caught = _run(raw, syns_raw, KNOWN, ["Tenure", "Income"], r=0.3)
    msgs = _of(caught, ContinuousCodesWarning)
    assert len(msgs) == 1
    assert "Urban (2 values), Tenure (5 values), Marital (5 values)" in msgs[0]
    assert "categorical=['Urban', 'Tenure', 'Marital']" in msgs[0]
    # declaring them gives R's numbers on the factor data, exactly, and no warning
    fixed, caught2 = _run(raw, syns_raw, KNOWN, ["Tenure", "Income"], r=0.3,
                          categorical=["Urban", "Tenure", "Marital"])
    assert not _of(caught2, ContinuousCodesWarning)
    np.testing.assert_array_equal(fixed.exp_risk.to_numpy(), _r_exp_risk(r_values, 2, 0.3))
    assert not np.array_equal(res.exp_risk.to_numpy(), fixed.exp_risk.to_numpy())
    # declared continuous: the warning is silenced, the numbers are R's numeric ones
    _, caught3 = _run(raw, syns_raw, KNOWN, ["Tenure", "Income"], r=0.3,
                      continuous=["Urban", "Tenure", "Marital"])
    assert not _of(caught3, ContinuousCodesWarning)


def test_percentage_radius_above_one_warns(ce):
    res, caught = _run(ce, _syn(1, 1), KNOWN, ["Income"], r=10)
    msgs = _of(caught, RadiusWarning)
    assert msgs and "means ±1000%" in msgs[0] and "did you mean 0.10?" in msgs[0]
    assert np.isnan(res.false_rate[1]) or res.s[1] >= 0  # still R's number
    _, caught = _run(ce, _syn(1, 1), KNOWN, ["Income"], r=10, percentage=False)
    assert not _of(caught, RadiusWarning)


def test_shuffled_synthetic_frame_raises_or_aligns(ce):
    syns = _syn(1, 2)
    shuffled = [s.sample(frac=1, random_state=j) for j, s in enumerate(syns)]
    with pytest.raises(ValueError, match=r"synthetic dataset 1 \(synthetic\[0\]\).*align="):
        identification_risk(ce, shuffled, KNOWN, ["Income"], r=0.1)
    want, _ = _run(ce, syns, KNOWN, ["Income"], r=0.1)
    by_index, _ = _run(ce, shuffled, KNOWN, ["Income"], r=0.1, align="index")
    pd.testing.assert_frame_equal(by_index.T, want.T)  # c does not depend on the pairing; T does
    pd.testing.assert_series_equal(by_index.exp_risk, want.exp_risk)
    by_position, _ = _run(ce, shuffled, KNOWN, ["Income"], r=0.1, align="position")
    plain, _ = _run(ce, [s.reset_index(drop=True) for s in shuffled], KNOWN, ["Income"], r=0.1)
    pd.testing.assert_frame_equal(by_position.T, plain.T)  # R's positional pairing
    assert by_position.exp_risk.mean() < 0.2 * want.exp_risk.mean()


def test_na_in_synthetic_income_is_counted_and_warned(ce, r_values):
    syns = _syn(1, 2)
    rng = np.random.default_rng(1)
    holed = syns[0].copy()
    rows = rng.choice(len(holed), size=len(holed) // 10, replace=False)
    holed.loc[holed.index[rows], "Income"] = np.nan
    res, caught = _run(ce, [holed, syns[1]], KNOWN, ["Income"], r=0.1)
    assert res.checks["na_synthetic"].tolist() == [len(rows), 0]
    msgs = _of(caught, RiskInputWarning)
    assert any("synthetic dataset 1 (synthetic[0])" in m and "have NA" in m
               and "na_matches=False" in m for m in msgs)
    # R's rule: NA matches anything, so the risk rises
    assert res.exp_risk[1] > _r_exp_risk(r_values, 1, 0.1)[0] + 10
    strict, _ = _run(ce, [holed, syns[1]], KNOWN, ["Income"], r=0.1, na_matches=False)
    assert strict.exp_risk[1] < res.exp_risk[1]


def test_below_one_percent_is_quiet():
    """Counts are kept but nothing warns when they are at most 1% of the records."""
    rng = np.random.default_rng(0)
    n = 500
    orig = pd.DataFrame({"Sex": pd.Categorical(rng.choice(["F", "M"], n)),
                         "Inc": rng.lognormal(10, 0.2, n)})
    orig.loc[0, "Inc"] = -5.0  # 1 record of 500 never matches
    res, caught = _run(orig, [orig.copy(), orig.copy()], ["Sex"], ["Inc"], r=0.5)
    assert res.checks["never_match"].tolist() == [1, 1]
    assert not _of(caught, RiskInputWarning)
    assert res.T.iloc[0].tolist() == [1, 1] and res.risk.iloc[0].tolist() == [0.0, 0.0]
