"""``idrisk.r.IdentificationRisk`` answers as R does: the 80 public fixtures and the 12
R-parity cases (``shared/fixtures/identification_risk_parity``) at zero tolerance, also
through ``idrisk check-r`` on both folders."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from _shared import fixtures_dir
from fixture_io import MATRICES, VECTORS, case_names, load_case

from idrisk import RParityWarning, identification_risk
from idrisk.r import IdentificationRisk

try:
    PARITY = case_names("identification_risk_parity")
    PUBLIC = case_names("identification_risk")
except BaseException:  # shared/ absent: the helper skips
    PARITY, PUBLIC = [], []


def _r_call(case):
    a = case.args
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return IdentificationRisk(
            case.orig, case.syn, a["known"], a["syn"], a["r"], a["percentage"],
            a["euclideanDist"],
        )  # fmt: skip


def _assert_exact(got: dict, case) -> None:
    for key in MATRICES + VECTORS:
        want = case.r_value(key)
        have = np.asarray(got[key], dtype=np.float64)
        assert have.shape == want.shape, key
        np.testing.assert_array_equal(have, want, err_msg=f"{case.name}: {key}")


@pytest.mark.skipif(not PARITY, reason="shared fixtures not found")
@pytest.mark.parametrize("name", PARITY)
def test_r_parity_case_exact(name):
    _assert_exact(_r_call(load_case(name, "identification_risk_parity")), load_case(
        name, "identification_risk_parity"))


@pytest.mark.skipif(not PUBLIC, reason="shared fixtures not found")
@pytest.mark.parametrize("name", PUBLIC)
def test_public_case_exact_through_idrisk_r(name):
    case = load_case(name)
    if case.expected["returned_null"]:
        with pytest.raises(ValueError, match="R returns NULL"):
            _r_call(case)
        return
    _assert_exact(_r_call(case), case)


#: the parity cases whose rule is also the Pythonic API's (arithmetic, not reading)
SHARED_RULES = [
    "r_parity_euclid_pow_ulp",
    "r_parity_euclid_pow_ulp_pct",
    "r_parity_euclid_sum_order",
    "r_parity_euclid_sum_order_syn",
    "r_parity_inf_pct",
    "r_parity_inf_pct_known_euclid",
]


@pytest.mark.skipif(not PARITY, reason="shared fixtures not found")
@pytest.mark.parametrize("name", SHARED_RULES)
def test_pythonic_api_shares_r_arithmetic(name):
    case = load_case(name, "identification_risk_parity")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = identification_risk(case.orig, case.syn, **case.call())
    _assert_exact(res.to_r_dict(), case)


@pytest.mark.skipif(not PARITY, reason="shared fixtures not found")
def test_positional_columns_warn_and_the_pythonic_api_matches_by_name():
    case = load_case("r_parity_positional_columns", "identification_risk_parity")
    a = case.args
    with pytest.warns(RParityWarning, match="by position.*'Y' as 'X'"):
        IdentificationRisk(case.orig, case.syn, a["known"], a["syn"], a["r"])
    by_name = identification_risk(case.orig, case.syn, **case.call())
    assert not np.array_equal(by_name.exp_risk.to_numpy(), case.r_value("exp.risk_vector"))


def test_pythonic_api_refuses_what_only_r_reads():
    orig = pd.DataFrame({"X": [1.0, 2.0], "Y": [3.0, 4.0]})
    with pytest.raises(ValueError, match="known and syn overlap"):
        identification_risk(orig, [orig], ["X"], ["X", "Y"], r=0.1)
    with pytest.raises(ValueError, match="listed more than once"):
        identification_risk(orig, [orig], ["X", "X"], ["Y"], r=0.1)
    longer = pd.concat([orig, orig], ignore_index=True)
    with pytest.raises(ValueError, match="has 4 rows but the confidential data has 2"):
        identification_risk(orig, [longer], ["X"], ["Y"], r=0.1)
    with pytest.warns(RParityWarning, match="reads only the first 2 rows"):
        out = IdentificationRisk(orig, [longer], ["X"], ["Y"], r=0.1)
    assert out["c_vector"].shape == (2, 1)


@pytest.mark.parametrize("folder, count", [("identification_risk", 80),
                                           ("identification_risk_parity", 12)])
def test_check_r_on_both_fixture_folders(folder, count):
    """Without IdentificationRiskCalculation, check-r compares with R's stored answers."""
    from idrisk.rcompat import r_package_available

    path = fixtures_dir(folder)
    if r_package_available("IdentificationRiskCalculation"):
        pytest.skip("the R package is installed: check-r runs it live (tests/rcompat)")
    proc = subprocess.run(
        [sys.executable, "-m", "idrisk.cli", "check-r", str(path), "-q"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"check-r: {count} of {count} checks agree with R" in proc.stdout
