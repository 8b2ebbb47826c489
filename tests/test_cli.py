"""``idrisk risk`` on files reproduces the R fixtures; errors are reported, not raised."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from fixture_io import load_case

from idrisk._schema import is_categorical
from idrisk.cli import main, read_table
from idrisk.exceptions import InputError


@pytest.mark.parametrize(
    "name",
    ["mix_known_age_syn_cat_cont_n150_m5", "cedata_s3_expenditure_income", "cat_rnull_hand_n8_m2"],
)
def test_risk_command_reproduces_fixture(tmp_path, name, capsys):
    case = load_case(name)
    a = case.args
    paths = []
    for j, frame in enumerate([case.orig, *case.syn]):
        path = tmp_path / f"f{j}.csv"
        frame.to_csv(path, index=False)
        paths.append(str(path))
    argv = [
        "risk",
        *paths,
        "--known",
        *a["known"],
        "--syn",
        *a["syn"],
        "--out-dir",
        str(tmp_path / "out"),
    ]
    if a["r"] is not None:
        argv += ["-r", *map(str, np.atleast_1d(a["r"]))]
    if not a["percentage"]:
        argv.append("--absolute")
    if a["euclideanDist"]:
        argv.append("--euclidean")
    if a["factor_columns"]:
        argv += ["--categorical", *a["factor_columns"]]
    assert main(argv) == 0
    summary = pd.read_csv(tmp_path / "out" / "summary.csv")
    np.testing.assert_array_equal(summary["exp_risk"], case.r_value("exp.risk_vector"))
    np.testing.assert_array_equal(summary["s"], case.r_value("s_vector"))
    records = pd.read_csv(tmp_path / "out" / "records.csv")
    np.testing.assert_array_equal(
        records[[f"c_{j}" for j in range(1, a["m"] + 1)]], case.r_value("c_vector")
    )
    assert "IdentificationRiskResult" in capsys.readouterr().out


def test_risk_command_reports_bad_column(tmp_path, capsys):
    frame = pd.DataFrame({"A": ["x", "y"], "B": [1.0, 2.0]})
    frame.to_csv(tmp_path / "o.csv", index=False)
    code = main(
        [
            "risk",
            str(tmp_path / "o.csv"),
            str(tmp_path / "o.csv"),
            "--known",
            "A",
            "--syn",
            "Nope",
            "-r",
            "0.1",
            "--out-dir",
            str(tmp_path / "out"),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    where = f"{tmp_path / 'o.csv'} (the confidential data)"
    assert f"syn: column(s) ['Nope'] not found in {where}" in err


def test_read_table_categories(tmp_path):
    pd.DataFrame({"U": [1, 2, 1], "T": ["a", "b", None], "X": [0.5, 1.5, 2.5]}).to_csv(
        tmp_path / "d.csv", index=False
    )
    frame = read_table(tmp_path / "d.csv", categorical=["U"])
    assert isinstance(frame["U"].dtype, pd.CategoricalDtype)
    assert list(frame["U"].cat.categories) == ["1", "2"]
    assert is_categorical(frame["T"]) and frame["T"].isna().sum() == 1  # a factor
    assert frame.attrs["source"] == str(tmp_path / "d.csv")
    assert frame["X"].dtype == np.float64
    with pytest.raises(InputError, match="categorical"):
        read_table(tmp_path / "d.csv", categorical=["Nope"])


def _ce_like(tmp_path, m=2):
    from idrisk.datasets import load_demo

    d = load_demo(n=300, seed=4)
    paths = [tmp_path / "conf.csv"]
    d.to_csv(paths[0], index=False)
    rng = np.random.default_rng(0)
    for j in range(1, m + 1):
        s = d.assign(Income=d.Income.to_numpy()[rng.permutation(len(d))])
        paths.append(tmp_path / f"syn{j}.csv")
        s.to_csv(paths[-1], index=False)
    return d, [str(p) for p in paths]


def test_records_csv_numbers_from_one_with_k_and_f(tmp_path, capsys):
    from idrisk import identification_risk
    from idrisk.datasets import read_ce

    d, paths = _ce_like(tmp_path)
    out = tmp_path / "out"
    code = main(["risk", *paths, "--known", "Age", "Urban", "Marital", "--syn", "Income",
                 "--categorical", "Urban", "Tenure", "Marital", "-r", "c(0.1, 0.1)",
                 "--out-dir", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    rec = pd.read_csv(out / "records.csv")
    assert rec["record"].tolist() == list(range(1, len(d) + 1))
    assert {"K_1", "K_2", "F_1", "F_2", "T_1", "c_2", "risk_1", "record_risk"} <= set(rec.columns)
    want = identification_risk(read_ce(paths[0]), [read_ce(p) for p in paths[1:]],
                               ["Age", "Urban", "Marital"], ["Income"], r=[0.1, 0.1])
    np.testing.assert_array_equal(rec[["K_1", "K_2"]], want.K)
    np.testing.assert_array_equal(rec[["F_1", "F_2"]], want.F)
    np.testing.assert_array_equal(rec["record_risk"], want.record_risk)
    summary = pd.read_csv(out / "summary.csv")
    assert summary["file"].tolist() == paths[1:]
    assert {"na_confidential", "never_match", "c_zero"} <= set(summary.columns)
    # the printed result names the files and shows the checks
    assert f"1 = {paths[1]}" in printed.out and "never matched" in printed.out
    # warnings are printed once each, naming the file
    assert f"warning: {paths[0]} (the confidential data):" in printed.err


def test_flag_aliases_and_radius_spellings(tmp_path):
    d, paths = _ce_like(tmp_path, m=1)
    base = ["--known", "Age", "Urban", "Marital", "--syn", "Income"]
    runs = {
        "positional": ["risk", *paths, *base, "--categorical", "Urban", "Tenure", "Marital",
                       "-r", "0.1"],
        "aliases": ["risk", "--orig", paths[0], "--syndata", paths[1], *base, "--factors",
                    "Urban", "Tenure", "Marital", "--radius", "10%"],
        "vocabulary": ["risk", "--confidential", paths[0], "--synthetic", paths[1], *base,
                       "--categorical", "Urban", "Tenure", "Marital", "-r", "0.1,0.1"],
    }
    got = {}
    for name, argv in runs.items():
        out = tmp_path / name
        assert main([*argv, "--out-dir", str(out)]) == 0
        got[name] = pd.read_csv(out / "records.csv")
    pd.testing.assert_frame_equal(got["positional"], got["aliases"])
    pd.testing.assert_frame_equal(got["positional"], got["vocabulary"])
    euclid = tmp_path / "e1"
    alias = tmp_path / "e2"
    for flag, out in (("--euclidean", euclid), ("--euclidean-dist", alias)):
        assert main([*runs["positional"], flag, "--out-dir", str(out)]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(euclid / "records.csv"),
                                  pd.read_csv(alias / "records.csv"))


def test_parse_radius():
    from idrisk.cli import parse_radius

    assert parse_radius(["c(0.05,", "0.1,", "0.2)"]) == [0.05, 0.1, 0.2]
    assert parse_radius(["0.05", "0.1"]) == [0.05, 0.1]
    assert parse_radius(["5%"]) == 0.05 and parse_radius(None) is None
    with pytest.raises(InputError, match=r"R's -r 'c\(0.1, 0.2\)'"):
        parse_radius(["(0.1"])


def test_warning_for_radius_ten(tmp_path, capsys):
    d, paths = _ce_like(tmp_path, m=1)
    code = main(["risk", *paths, "--known", "Age", "--syn", "Income", "-r", "10",
                 "--out-dir", str(tmp_path / "o")])
    assert code == 0
    assert "did you mean 0.10?" in capsys.readouterr().err


def test_progress_bars_on_request(tmp_path, capsys):
    d, paths = _ce_like(tmp_path, m=2)
    assert main(["risk", *paths, "--known", "Age", "--syn", "Income", "-r", "0.1",
                 "--categorical", "Urban", "--progress", "--out-dir", str(tmp_path / "o")]) == 0
    err = capsys.readouterr().err
    assert "reading" in err and "identification risk" in err
    assert main(["risk", *paths, "--known", "Age", "--syn", "Income", "-r", "0.1",
                 "--out-dir", str(tmp_path / "o2")]) == 0
    assert "reading" not in capsys.readouterr().err  # not a terminal: no bar by default


def test_report_subcommand_errors_name_the_argument(tmp_path, capsys):
    d, paths = _ce_like(tmp_path, m=1)
    code = main(["report", paths[0], "--scenario", "2", paths[1], "--known", "Age"])
    assert code == 2
    assert "--scenario 2" in capsys.readouterr().err


def test_every_command_is_wired(capsys):
    from idrisk.cli import build_parser

    for command in ("risk", "report", "demo", "survey-table"):
        with pytest.raises(SystemExit) as stop:
            build_parser().parse_args([command, "--help"])
        assert stop.value.code == 0
        assert f"idrisk {command}" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:  # check-r's options are R's, read when it runs
        main(["check-r", "--help"])
    assert stop.value.code == 0
    assert "--confidential" in capsys.readouterr().out  # the shared vocabulary as aliases
