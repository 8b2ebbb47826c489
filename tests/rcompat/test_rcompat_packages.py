"""Side-by-side checks against the R packages (skip, naming the package, where not installed),
plus the pure-Python pieces they rely on (case reader, printed lines, report)."""

from __future__ import annotations

import argparse
import shutil
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
from idrisk.rcompat.cli import CE_FACTORS, CE_KNOWN, CE_SCENARIOS
from idrisk.risk import identification_risk
from idrisk.risk._rcall import r_printed_lines

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


def test_r_signature_warns_every_printed_line_on_every_fixture():
    """idrisk.r.IdentificationRisk: each line R printed (print() and message()) is a Python
    warning with R's text, in the same cases; R's NULL is a ValueError with R's Error line."""
    from idrisk.r import IdentificationRisk, RMessage, RPrintedWarning

    for d in case_dirs():
        c = read_case(d)
        exp = c.expected
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = IdentificationRisk(
                    c.orig, c.syn, c.known, c.syn_vars, c.r, c.percentage, c.euclidean_dist
                )
            except ValueError as exc:
                out = None
                assert exp["returned_null"], (d.name, exc)
                assert str(exc).startswith(exp["stdout_lines"][0][5:-1]), d.name
        printed = [f'[1] "{w.message}"' for w in caught if w.category is RPrintedWarning]
        messages = [str(w.message) for w in caught if w.category is RMessage]
        if exp["returned_null"]:
            assert out is None and printed == [], d.name
        else:
            assert printed == exp["stdout_lines"], d.name
            assert out["c_vector"].shape == (c.orig.shape[0], len(c.syn)), d.name
        assert messages == exp["message_lines"], d.name


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


def _check_r_args(argv):
    parser = argparse.ArgumentParser()
    add_check_r_arguments(parser)
    return parser.parse_args(argv)


def test_check_r_exit_codes(monkeypatch, capsys, tmp_path):
    """0 agree (both refusing counts), 1 a numerical difference, 3 an internal error."""
    from idrisk.rcompat import crosscheck

    c = read_case(fixtures_dir("identification_risk") / "T0_c0_hand")
    res = identification_risk(c.orig, c.syn, c.known, c.syn_vars, c.r, c.percentage)
    changed = {k: np.array(v, dtype=float) for k, v in res.to_r_dict().items()}
    changed["c_vector"][3, 0] += 1
    outcomes = {
        "agree": (compare_results(res, res), 0),
        "refused": (compare_results(None, None, errors={"idrisk": "x", "R": "Error: y"}), 0),
        "differ": (compare_results(res, changed), 1),
    }
    # a case without R's stored answer: check-r calls cross_check (R) for it
    shutil.copytree(fixtures_dir("identification_risk") / "T0_c0_hand", tmp_path / "case")
    (tmp_path / "case" / "expected.json").unlink()
    case = str(tmp_path / "case")
    for name, (report, code) in outcomes.items():
        monkeypatch.setattr(crosscheck, "cross_check", lambda *a, report=report, **k: report)
        assert run_check_r(_check_r_args([case])) == code, name
        out = capsys.readouterr().out
        if name == "differ":
            assert "c_vector: 1 entry differs" in out and "record 3, dataset 1" in out
        if name == "refused":
            assert "both refused" in out and "Error: y" in out

    def boom(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(crosscheck, "cross_check", boom)
    assert run_check_r(_check_r_args([case])) == 3
    assert "INTERNAL ERROR RuntimeError: a bug" in capsys.readouterr().out
    assert run_check_r(_check_r_args(["/no/such/case"])) == 3
    assert "/no/such/case" in capsys.readouterr().err
    assert run_check_r(_check_r_args(["--orig", case + "/orig.csv"])) == 3


def test_check_r_cli_without_the_r_package(capsys, tmp_path):
    from idrisk.rcompat import r_package_available

    if r_package_available(IRC):
        pytest.skip(f"{IRC} is installed; the full CLI run is tested below")
    parser = argparse.ArgumentParser()
    add_check_r_arguments(parser)
    case = tmp_path / "T0_c0_hand"
    shutil.copytree(fixtures_dir("identification_risk") / "T0_c0_hand", case)
    # with R's stored answer, no R package is needed
    assert run_check_r(parser.parse_args([str(case)])) == 0
    assert "T0_c0_hand: AGREE" in capsys.readouterr().out
    (case / "expected.json").unlink()
    assert run_check_r(parser.parse_args([str(case)])) == 2
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


@pytest.mark.needs_r
@pytest.mark.parametrize(
    "case", ["T0_c0_hand", "r_too_short_null", "cat_rnull_hand_n8_m2", "r_too_long_warning"]
)
def test_identification_risk_r_plumbing_with_the_pinned_stand_in(monkeypatch, case):
    """The rpy2 call path (arguments, printed lines, messages, result list, NULL) against the
    stand-in of IdentificationRisk (irc_standin/, pinned to the recorded outputs by
    test_irc_standin.py), defined in R's global environment for this test only."""
    from _irc import STANDIN_DIR

    need("stats")
    from idrisk.rcompat import RMessage, RPrintedWarning, RReturnedNull, run_r
    from idrisk.rcompat._session import robjects

    ro = robjects()
    ro.r["source"](str(STANDIN_DIR / "IdentificationRisk.R"), local=ro.globalenv)
    monkeypatch.setattr(run_r, "IRC", None)
    monkeypatch.setattr(run_r, "require_r_package", lambda name: None)
    c = read_case(fixtures_dir("identification_risk") / case)
    exp = c.expected
    args = (c.orig, c.syn, c.known, c.syn_vars, c.r, c.percentage, c.euclidean_dist)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if exp["returned_null"]:
                with pytest.raises(RReturnedNull, match="^Error: radius vector must be"):
                    identification_risk_r(*args)
                return
            res = identification_risk_r(*args)
        printed = [f'[1] "{w.message}"' for w in caught if w.category is RPrintedWarning]
        assert printed == exp["stdout_lines"]
        assert [str(w.message) for w in caught if w.category is RMessage] == exp["message_lines"]
        assert res.options.rules == "r" and list(res.c.index) == list(c.orig.index)
        report = compare_results(res, exp, names=("R via rpy2", "fixture"))
        assert report, report
    finally:
        ro.r("rm")("IdentificationRisk", envir=ro.globalenv)


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
    pd.testing.assert_frame_equal(
        ce.astype({c: str for c in CE_FACTORS}).astype({"Age": "int64", "Educ": "int64"}),
        _ce().astype({c: str for c in CE_FACTORS}),
        check_dtype=False,
    )
    for col in CE_FACTORS:
        assert isinstance(ce[col].dtype, pd.CategoricalDtype), col
    assert load_r_dataset("CEdata", factors=None)["Urban"].dtype == np.int32
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
    """CEdata as the R package's example uses it (Urban, Tenure, Marital factors)."""
    from _shared import cedata_path

    from idrisk.datasets import read_ce

    return read_ce(cedata_path())


def _same_values(got: pd.Series, want: pd.Series, what: str) -> None:
    if isinstance(want.dtype, pd.CategoricalDtype) or isinstance(got.dtype, pd.CategoricalDtype):
        got, want = got.astype(str), want.astype(str)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=what)


@pytest.mark.needs_r
@pytest.mark.parametrize("scenario", [1, 3])
def test_synthpop_syn_matches_reference_datasets(scenario):
    """Live synthpop::syn through rpy2 against synthpop's stored output (seed 2021)."""
    need("synthpop")
    out = synthpop_syn(
        _ce(), m=2, visit_sequence=CE_SCENARIOS[scenario], seed=2021, print_flag=False
    )
    assert out.m == 2 and out.settings["seed"] == 2021
    assert out.method["Income"] == ("sample" if scenario == 1 else "cart")
    assert list(out.visit_sequence) == CE_SCENARIOS[scenario]
    assert out.settings["call"].startswith("syn(data = data")  # deparsed, not evaluated
    assert isinstance(out.settings["predictor.matrix"], pd.DataFrame)
    ref_dir = fixtures_dir("synthpop") / f"scenario{scenario}"
    for j, frame in enumerate(out.syn, start=1):
        ref = pd.read_csv(ref_dir / f"syn_{j:02d}.csv")
        for col in ref.columns:
            _same_values(frame[col], ref[col], col)


#: (scenario, seed): every CE scenario, two seeds each, none of them only 2021
SYNTHPOP_RUNS = [(1, 7), (1, 123), (2, 1), (2, 2024), (3, 5), (3, 99), (4, 11), (4, 2021)]


@pytest.mark.needs_r
@pytest.mark.parametrize(("scenario", "seed"), SYNTHPOP_RUNS)
def test_synthpop_syn_equals_idrisk_syn(scenario, seed):
    """R's synthpop::syn (live) and idrisk.syn give the same datasets, value for value."""
    from idrisk.synthesis import syn

    need("synthpop")
    ce = _ce()
    vs = CE_SCENARIOS[scenario]
    theirs = synthpop_syn(ce, m=2, visit_sequence=vs, seed=seed, print_flag=False)
    ours = syn(ce, m=2, syn=vs, seed=seed).frames
    assert theirs.m == len(ours) == 2 and theirs.settings["seed"] == seed
    for j, (a, b) in enumerate(zip(theirs.syn, ours, strict=True), start=1):
        assert list(a.columns) == list(b.columns)
        for col in ce.columns:
            _same_values(b[col], a[col], f"scenario {scenario}, seed {seed}, dataset {j}: {col}")
        # the synthesized columns really were replaced (the check is not vacuous)
        assert not np.array_equal(a["Income"].to_numpy(), ce["Income"].to_numpy())


@pytest.mark.slow
@pytest.mark.parametrize("scenario", sorted(CE_SCENARIOS))
def test_cross_check_ce_scenarios(scenario):
    """In-process cross-check with the real IdentificationRiskCalculation (skips without it;
    test_irc_standin.py runs the same checks through ``idrisk check-r`` everywhere)."""
    need("synthpop")
    need(IRC)
    ce = load_r_dataset("CEdata")
    for col in CE_FACTORS:
        assert isinstance(ce[col].dtype, pd.CategoricalDtype), col
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
