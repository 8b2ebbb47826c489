"""Agency formats (issue 29): SAS transport, Stata, SPSS (pyreadstat's writers and, where R is
installed, base R's saveRDS/save and foreign::write.dta) read by the CLI with results identical
to the CSV run; value labels become categories, user-defined missing values NA (reported)."""

from __future__ import annotations

import shutil
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest

from idrisk._read import read_table
from idrisk.cli import main
from idrisk.exceptions import FormatNote

KNOWN = ["sex", "age"]
SYN = ["income"]


def _frames(n: int = 300) -> list[pd.DataFrame]:
    rng = np.random.default_rng(4)
    conf = pd.DataFrame({"sex": rng.choice(["F", "M"], n), "age": rng.integers(18, 80, n),
                         "income": np.round(rng.lognormal(8, 0.5, n))})
    syns = []
    for _ in range(2):
        s = conf.copy()
        s["income"] = np.round(conf["income"] * rng.uniform(0.9, 1.1, n))
        syns.append(s)
    return [conf, *syns]


def _risk(paths, out) -> pd.DataFrame:
    assert main(["risk", *map(str, paths), "--known", *KNOWN, "--syn", *SYN, "-r", "0.1",
                 "--out-dir", str(out)]) == 0
    return pd.read_csv(out / "records.csv")


def _csv_files(d) -> list:
    paths = []
    for j, f in enumerate(_frames()):
        paths.append(d / f"d{j}.csv")
        f.to_csv(paths[-1], index=False)
    return paths


@pytest.fixture(scope="module")
def csv_result(tmp_path_factory):
    d = tmp_path_factory.mktemp("csv")
    return _risk(_csv_files(d), d / "out")


@pytest.mark.parametrize("suffix", [".dta", ".sav", ".zsav", ".xpt"])
def test_pyreadstat_files_give_the_csv_result(tmp_path, csv_result, suffix, capsys):
    pyreadstat = pytest.importorskip("pyreadstat")
    paths = []
    for j, f in enumerate(_frames()):
        p = tmp_path / f"d{j}{suffix}"
        if suffix == ".dta":
            pyreadstat.write_dta(f, str(p))
        elif suffix == ".xpt":
            pyreadstat.write_xport(f, str(p), table_name="D")
        else:
            pyreadstat.write_sav(f, str(p), compress=suffix == ".zsav")
        paths.append(p)
    got = _risk(paths, tmp_path / "out")
    capsys.readouterr()
    pd.testing.assert_frame_equal(got, csv_result)


def test_spss_value_labels_and_user_missing_values(tmp_path, capsys):
    pyreadstat = pytest.importorskip("pyreadstat")
    f = pd.DataFrame({"sex": [1.0, 2.0, 1.0, 2.0, 9.0], "income": [10.0, -8.0, 30.0, 40.0, 50.0]})
    p = tmp_path / "d.sav"
    pyreadstat.write_sav(f, str(p), variable_value_labels={"sex": {1.0: "F", 2.0: "M"}},
                         missing_ranges={"income": [-8.0], "sex": [9.0]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = read_table(p, flag="the confidential file")
    assert isinstance(got["sex"].dtype, pd.CategoricalDtype)
    assert got["sex"].tolist()[:4] == ["F", "M", "F", "M"] and pd.isna(got["sex"].iloc[4])
    assert pd.isna(got["income"].iloc[1]) and got["income"].iloc[0] == 10.0
    notes = [str(w.message) for w in caught if issubclass(w.category, FormatNote)]
    assert len(notes) == 1
    assert "value labels became categories in 1 column(s) (sex)" in notes[0]
    assert "income: -8" in notes[0] and "sex: 9" in notes[0]


def test_unreadable_agency_file_is_named(tmp_path, capsys):
    pytest.importorskip("pyreadstat")  # without it the message names the missing extra
    p = tmp_path / "broken.dta"
    p.write_text("not stata")
    assert main(["risk", str(p), str(p), "--known", "sex", "--syn", "income",
                 "--out-dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "broken.dta could not be read as Stata" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


_R = """
d <- read.csv("{src}/d{j}.csv", stringsAsFactors = TRUE)
saveRDS(d, "{out}/d{j}.rds")
save(d, file = "{out}/d{j}.RData")
if (requireNamespace("foreign", quietly = TRUE)) foreign::write.dta(d, "{out}/d{j}_foreign.dta")
"""


@pytest.mark.needs_r
def test_files_written_by_r_give_the_csv_result(tmp_path, csv_result, capsys):
    pytest.importorskip("pyreadr")
    if shutil.which("Rscript") is None:
        pytest.skip("Rscript (R) not found")
    src = tmp_path / "csv"
    src.mkdir()
    for j, f in enumerate(_frames()):
        f.to_csv(src / f"d{j}.csv", index=False)
    code = "".join(_R.format(src=src.as_posix(), out=tmp_path.as_posix(), j=j) for j in range(3))
    subprocess.run(["Rscript", "-e", code], check=True, capture_output=True)
    kinds = [".rds", ".RData"] + (["_foreign.dta"] if (tmp_path / "d0_foreign.dta").exists()
                                  else [])
    for kind in kinds:
        got = _risk([tmp_path / f"d{j}{kind}" for j in range(3)], tmp_path / f"out_{kind}")
        pd.testing.assert_frame_equal(got, csv_result, obj=kind)
    capsys.readouterr()


def test_integer_codes_with_missing_values_keep_integer_labels(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("depress,x\n0,1.5\n1,2.5\n,3.5\n10,4.5\n")
    got = read_table(p, ["depress", "x"])
    assert got["depress"].cat.categories.tolist() == ["0", "1", "10"]
    assert got["x"].cat.categories.tolist() == ["1.5", "2.5", "3.5", "4.5"]
    assert pd.isna(got["depress"].iloc[2])


def _report(paths, out) -> dict[str, pd.DataFrame]:
    """``idrisk report`` on ``paths``: every CSV table it writes, by file name."""
    assert main(["report", *map(str, paths), "--known", *KNOWN, "--syn", *SYN, "-r", "0.1",
                 "--radii", "0.05", "0.1", "--maxorder", "0", "--top", "3", "--no-progress",
                 "--out-dir", str(out)]) == 0
    tables = {p.name: pd.read_csv(p) for p in sorted(out.glob("*.csv"))}
    assert {"summary.csv", "datasets.csv", "checks.csv", "risk_by_radius.csv",
            "top_records.csv", "risk_utility.csv"} <= set(tables)
    return tables


def _write(frame: pd.DataFrame, path) -> None:
    if path.suffix == ".rds":
        import pyreadr

        pyreadr.write_rds(str(path), frame)
        return
    import pyreadstat

    if path.suffix == ".dta":
        pyreadstat.write_dta(frame, str(path))
    else:
        pyreadstat.write_sav(frame, str(path))


@pytest.fixture(scope="module")
def csv_report(tmp_path_factory):
    d = tmp_path_factory.mktemp("csv_report")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _report(_csv_files(d), d / "out")


@pytest.mark.parametrize("suffix,reader", [(".dta", "pyreadstat"), (".sav", "pyreadstat"),
                                           (".rds", "pyreadr")])
def test_report_on_agency_files_gives_the_csv_tables(tmp_path, csv_report, suffix, reader,
                                                     capsys):
    """``idrisk report`` on Stata, SPSS and R files: every table equal to the CSV run's."""
    pytest.importorskip(reader)
    paths = []
    for j, f in enumerate(_frames()):
        paths.append(tmp_path / f"d{j}{suffix}")
        _write(f, paths[-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _report(paths, tmp_path / "out")
    capsys.readouterr()
    assert got.keys() == csv_report.keys()
    for name, table in csv_report.items():
        pd.testing.assert_frame_equal(got[name], table, obj=f"{suffix}: {name}")
