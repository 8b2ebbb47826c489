"""Side-by-side checks against the R packages (skip, naming the package, where not installed),
plus the pure-Python pieces they rely on (case reader, printed lines, report)."""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
import pytest
from _shared import fixtures_dir

from idrisk.rcompat import (
    RPackageNotInstalledError,
    add_check_r_arguments,
    compare_results,
    cross_check,
    identification_risk_r,
    load_r_dataset,
    read_case,
    run_check_r,
    synthpop_syn,
)
from idrisk.rcompat.bridge import r_printed_lines
from idrisk.rcompat.cli import CE_FACTORS, CE_KNOWN, CE_SCENARIOS
from idrisk.risk import identification_risk

IRC = "IdentificationRiskCalculation"


def case_dirs():
    root = fixtures_dir("identification_risk")
    return sorted(p for p in root.iterdir() if (p / "args.json").is_file())


def need(package: str) -> None:
    """Skip (naming the package) unless R, rpy2 and the R package are usable."""
    from idrisk.rcompat import RNotAvailableError, require_r_package

    try:
        require_r_package(package)
    except RNotAvailableError as exc:
        pytest.skip(f"needs the R package {package}: {exc}")


# ------------------------------------------------------------------ no R needed
def test_printed_lines_match_every_fixture():
    for d in case_dirs():
        c = read_case(d)
        printed, messages, null = r_printed_lines(c.orig, c.known, c.syn_vars, c.r)
        exp = c.expected
        assert [f'[1] "{t}"' for t in printed] == exp["stdout_lines"], d.name
        assert messages == exp["message_lines"], d.name
        assert null == exp["returned_null"], d.name


def _assert_reproduces_fixtures(compute, name: str) -> None:
    """``compute`` (idrisk or the R package) on every fixture case vs R's recorded output."""
    for d in case_dirs():
        c = read_case(d)
        if c.expected["returned_null"]:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = compute(c.orig, c.syn, c.known, c.syn_vars, c.r, c.percentage, c.euclidean_dist)
        report = compare_results(res, c.expected, names=(name, "fixture"), label=d.name)
        assert report, report


def test_case_reader_and_report_agree_with_fixtures():
    """idrisk on read_case() data vs R's recorded output, through compare_results."""
    _assert_reproduces_fixtures(identification_risk, "idrisk")


def test_report_on_a_changed_fixture_points_at_the_record():
    c = read_case(fixtures_dir("identification_risk") / "T0_c0_hand")
    res = identification_risk(c.orig, c.syn, c.known, c.syn_vars, c.r, c.percentage)
    expected = dict(c.expected)
    expected["c_vector"] = [list(row) for row in expected["c_vector"]]
    expected["c_vector"][4][1] += 1
    report = compare_results(res, expected)
    row = report.to_frame().loc["c_vector"]
    assert not report and row["n_diff"] == 1 and row["first_record"] == 4
    assert row["first_dataset"] == 2


def test_check_r_cli_without_the_r_package(capsys):
    from idrisk.rcompat import r_package_available

    if r_package_available(IRC):
        pytest.skip(f"{IRC} is installed; the full CLI run is tested below")
    parser = argparse.ArgumentParser()
    add_check_r_arguments(parser)
    args = parser.parse_args([str(fixtures_dir("identification_risk") / "T0_c0_hand")])
    assert run_check_r(args) == 2
    assert IRC in capsys.readouterr().err


def test_identification_risk_r_names_missing_package():
    from idrisk.rcompat import r_package_available

    need("stats")  # R and rpy2 themselves
    if r_package_available(IRC):
        pytest.skip(f"{IRC} is installed")
    c = read_case(fixtures_dir("identification_risk") / "T0_c0_hand")
    with pytest.raises(RPackageNotInstalledError) as info:
        identification_risk_r(c.orig, c.syn, c.known, c.syn_vars, c.r, c.percentage)
    assert info.value.package == IRC and "install" in str(info.value)


FAKE_IR = """function(origdata, syndata, known, syn, r = NULL, percentage = TRUE,
                     euclideanDist = FALSE) {
  stopifnot(is.factor(origdata$K), is.double(origdata$X), length(syndata) == 2L,
            identical(levels(syndata[[2]]$K), levels(origdata$K)), identical(known, "K"),
            identical(r, 1), identical(percentage, FALSE))
  print("Warning: only using the first 0 radii.")
  if (isTRUE(euclideanDist)) { print("Error: radius vector too short."); return(NULL) }
  list(s_vector = c(4, 6), exp.risk_vector = c(2, 4), true.rate_vector = c(1, 2) / 3,
       false.rate_vector = c(0.5, 1 / 3),
       c_vector = matrix(c(1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1), 6),
       T_vector = matrix(c(0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1), 6),
       K_vector = matrix(c(0, 0, 0, 1, 1, 0, 1, 1, 1, 0, 0, 1), 6),
       F_vector = matrix(c(1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0), 6),
       Risk_vector = matrix(c(0, 0, 0, 1, 1, 0, 1, 1, 1, 0, 0, 1), 6))
}"""


def test_identification_risk_r_plumbing_with_a_stand_in(monkeypatch):
    """The rpy2 call path (arguments, printed lines, result list, NULL) against an R
    stand-in for IdentificationRisk defined in R's global environment."""
    need("stats")
    from idrisk.rcompat import RReturnedNull, run_r
    from idrisk.rcompat._session import robjects

    robjects().globalenv["IdentificationRisk"] = robjects().r(FAKE_IR)
    monkeypatch.setattr(run_r, "IRC", None)
    monkeypatch.setattr(run_r, "require_r_package", lambda name: None)
    c = read_case(fixtures_dir("identification_risk") / "T0_c0_hand")
    try:
        with pytest.warns(run_r.RPrintedWarning, match="first 0 radii"):
            res = identification_risk_r(c.orig, c.syn, c.known, c.syn_vars, c.r, c.percentage)
        assert res.c.loc[5, 2] == 1 and res.risk.loc[2, 2] == 1 and res.risk.loc[3, 2] == 0
        assert compare_results(res, c.expected)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RReturnedNull, match="too short"):
                identification_risk_r(
                    c.orig, c.syn, c.known, c.syn_vars, c.r, c.percentage, euclidean_dist=True
                )
    finally:
        robjects().r("rm")("IdentificationRisk", envir=robjects().globalenv)


# ------------------------------------------------------------------ IdentificationRiskCalculation
def test_r_package_reproduces_its_own_fixtures():
    """Sanity of identification_risk_r: the R package against its recorded output."""
    need(IRC)
    _assert_reproduces_fixtures(identification_risk_r, "R")


def test_cross_check_every_fixture_case():
    need(IRC)
    for d in case_dirs():
        c = read_case(d)
        report = cross_check(
            c.orig, c.syn, c.known, c.syn_vars, c.r, c.percentage, c.euclidean_dist, label=d.name
        )
        assert report, report


def test_check_r_cli_on_fixtures():
    need(IRC)
    parser = argparse.ArgumentParser()
    add_check_r_arguments(parser)
    assert run_check_r(parser.parse_args([str(fixtures_dir("identification_risk")), "-q"])) == 0


def test_cedata_from_the_r_package():
    need(IRC)
    ce = load_r_dataset("CEdata")
    assert ce.shape == (5571, 7)
    assert list(ce.columns) == [
        "Age",
        "Urban",
        "Tenure",
        "Educ",
        "Expenditure",
        "Marital",
        "Income",
    ]


# ------------------------------------------------------------------ synthpop
def _ce() -> pd.DataFrame:
    ce = load_r_dataset("CEdata")
    for col in CE_FACTORS:
        ce[col] = ce[col].astype("category")
    return ce


@pytest.mark.parametrize("scenario", [1, 3])
def test_synthpop_syn_matches_reference_datasets(scenario):
    need("synthpop")
    need(IRC)
    out = synthpop_syn(
        _ce(), m=2, visit_sequence=CE_SCENARIOS[scenario], seed=2021, print_flag=False
    )
    assert out.m == 2 and out.settings["seed"] == 2021
    assert out.method["Income"] == ("sample" if scenario == 1 else "cart")
    assert list(out.visit_sequence) == CE_SCENARIOS[scenario]
    ref_dir = fixtures_dir("synthpop") / f"scenario{scenario}"
    for j, frame in enumerate(out.syn, start=1):
        ref = pd.read_csv(ref_dir / f"syn_{j:02d}.csv")
        for col in ref.columns:
            got = frame[col].astype(str) if col in CE_FACTORS else frame[col]
            want = ref[col].astype(str) if col in CE_FACTORS else ref[col]
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=col)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", sorted(CE_SCENARIOS))
def test_cross_check_ce_scenarios(scenario):
    need("synthpop")
    need(IRC)
    ce = _ce()
    syn = synthpop_syn(
        ce, m=3, visit_sequence=CE_SCENARIOS[scenario], seed=2021, print_flag=False
    ).syn
    used = set(CE_KNOWN) | set(CE_SCENARIOS[scenario])
    n_cont = sum(1 for c in ce.columns if c in used and c not in CE_FACTORS)
    for r in (0.01, 0.1):
        report = cross_check(
            ce,
            syn,
            CE_KNOWN,
            CE_SCENARIOS[scenario],
            [r] * n_cont,
            label=f"CE scenario {scenario}, r={r}",
        )
        assert report, report
