"""``idrisk risk`` on files reproduces the R fixtures; errors are reported, not raised."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from fixture_io import load_case

from idrisk.cli import main, read_table
from idrisk.risk._prepare import is_categorical_dtype_like


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
            str(tmp_path),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert f"syn: column(s) ['Nope'] not found in {tmp_path / 'o.csv'} (origdata)" in err


def test_read_table_categories(tmp_path):
    pd.DataFrame({"U": [1, 2, 1], "T": ["a", "b", None], "X": [0.5, 1.5, 2.5]}).to_csv(
        tmp_path / "d.csv", index=False
    )
    frame = read_table(tmp_path / "d.csv", categorical=["U"])
    assert isinstance(frame["U"].dtype, pd.CategoricalDtype)
    assert list(frame["U"].cat.categories) == ["1", "2"]
    assert is_categorical_dtype_like(frame["T"]) and frame["T"].isna().sum() == 1  # a factor
    assert frame.attrs["source"] == str(tmp_path / "d.csv")
    assert frame["X"].dtype == np.float64
    with pytest.raises(KeyError, match="--categorical"):
        read_table(tmp_path / "d.csv", categorical=["Nope"])
