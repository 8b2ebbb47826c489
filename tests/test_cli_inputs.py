"""Malformed input through the command line: exit status 2, one line naming the flag, the file
and the column, no traceback, and no file left behind (an existing output untouched)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from idrisk.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative path -> content)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.fixture
def files(tmp_path):
    """A small confidential file and two synthetic files (CSV)."""
    rng = np.random.default_rng(0)
    n = 60
    conf = pd.DataFrame({"Sex": rng.choice(["F", "M"], n), "Age": rng.integers(20, 80, n),
                         "Income": np.round(rng.lognormal(8, 0.5, n), 2)})
    paths = [tmp_path / "conf.csv"]
    conf.to_csv(paths[0], index=False)
    for j in (1, 2):
        paths.append(tmp_path / f"syn{j}.csv")
        conf.assign(Income=rng.permutation(conf.Income.to_numpy())).to_csv(paths[-1],
                                                                           index=False)
    return tmp_path, [str(p) for p in paths]


def _run(argv, capsys, folder):
    """main(argv) must return 2 without raising, and leave ``folder`` as it was."""
    before = _tree(folder)
    code = main(argv)  # an uncaught exception here is the traceback a user would see
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert _tree(folder) == before, "files were left behind"
    assert not [p for p in folder.iterdir() if p.name.startswith(".")], "temporary folder left"
    return err


RISK = ["--known", "Sex", "Age", "--syn", "Income", "-r", "0.1"]


def test_semicolon_file_names_the_delimiter_and_sep(files, capsys):
    folder, paths = files
    semi = folder / "semi.csv"
    pd.read_csv(paths[0]).to_csv(semi, sep=";", index=False)
    err = _run(["risk", str(semi), *paths[1:], *RISK, "--categorical", "Sex",
                "--out-dir", str(folder / "out")], capsys, folder)
    assert str(semi) in err and "semicolon" in err and "--sep ';'" in err
    assert "--categorical column" not in err


def test_folder_given_as_a_file(files, capsys):
    folder, paths = files
    (folder / "dir.csv").mkdir()
    err = _run(["risk", paths[0], str(folder / "dir.csv"), *RISK, "--out-dir",
                str(folder / "out")], capsys, folder)
    assert "--synthetic" in err and "is a folder" in err and "dir.csv" in err
    assert "no such file" not in err


def test_missing_file(files, capsys):
    folder, paths = files
    err = _run(["risk", paths[0], str(folder / "nope.csv"), *RISK, "--out-dir",
                str(folder / "out")], capsys, folder)
    assert "no such file" in err and "nope.csv" in err


def test_non_utf8_file_names_the_encoding_flag(files, capsys):
    folder, paths = files
    latin = folder / "latin.csv"
    latin.write_bytes(b"Sex,Age,Income\nF,30,1.5\nM,40,2.5\n"
                      + "é,50,3.5\n".encode("latin-1"))
    err = _run(["risk", str(latin), *paths[1:], *RISK, "--out-dir", str(folder / "out")],
               capsys, folder)
    assert "latin.csv" in err and "--encoding" in err
    # and with the encoding named, it reads
    assert main(["risk", str(latin), str(latin), *RISK, "--encoding", "latin-1",
                 "--out-dir", str(folder / "ok")]) == 0


def test_empty_and_header_only_files(files, capsys):
    folder, paths = files
    empty = folder / "empty.csv"
    empty.write_text("")
    err = _run(["risk", paths[0], str(empty), *RISK, "--out-dir", str(folder / "out")],
               capsys, folder)
    assert "empty.csv" in err and "empty" in err
    header = folder / "header.csv"
    header.write_text("Sex,Age,Income\n")
    err = _run(["risk", paths[0], str(header), *RISK, "--out-dir", str(folder / "out")],
               capsys, folder)
    assert "header.csv" in err and "no rows" in err


def test_duplicate_column_names_name_file_and_column(files, capsys):
    folder, paths = files
    dup = folder / "dup.csv"
    dup.write_text("Sex,Age,Income,Income\nF,30,1.5,2\nM,40,2.5,3\n")
    err = _run(["risk", str(dup), *paths[1:], *RISK, "--out-dir", str(folder / "out")],
               capsys, folder)
    assert "dup.csv" in err and "'Income'" in err and "Income.1" not in err


def test_missing_categorical_column_names_flag_file_and_column(files, capsys):
    folder, paths = files
    err = _run(["risk", *paths, *RISK, "--categorical", "Sexx", "--out-dir",
                str(folder / "out")], capsys, folder)
    assert "--categorical" in err and "conf.csv" in err and "'Sexx'" in err
    assert "did you mean 'Sex'" in err


def test_bad_radius_names_the_flag(files, capsys):
    folder, paths = files
    err = _run(["risk", *paths, "--known", "Sex", "--syn", "Income", "-r", "ten",
                "--out-dir", str(folder / "out")], capsys, folder)
    assert "-r/--radius" in err and "'ten'" in err


def test_out_dir_naming_a_file(files, capsys):
    folder, paths = files
    err = _run(["risk", *paths, *RISK, "--out-dir", paths[1]], capsys, folder)
    assert "--out-dir" in err and "is a file" in err


def test_existing_output_needs_overwrite_and_is_replaced_whole(files, capsys):
    folder, paths = files
    out = folder / "out"
    out.mkdir()
    (out / "summary.csv").mkdir()  # an obstacle inside the old output
    (out / "old.txt").write_text("old report")
    err = _run(["risk", *paths, *RISK, "--out-dir", str(out)], capsys, folder)
    assert "--out-dir" in err and "--overwrite" in err
    assert main(["risk", *paths, *RISK, "--out-dir", str(out), "--overwrite"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["interval.csv", "records.csv", "summary.csv"]
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]


def test_report_failing_in_second_scenario_leaves_nothing(files, capsys):
    folder, paths = files
    args = ["report", *paths, "--known", "Sex", "Age", "--syn", "Income",
            "--scenario", "2:Nope", paths[1], "--no-utility", "--radii", "0.1"]
    err = _run([*args, "--out-dir", str(folder / "rep")], capsys, folder)
    assert "Nope" in err
    # an existing report stays as it was, even with --overwrite
    rep = folder / "rep"
    rep.mkdir()
    (rep / "report.html").write_text("the old report")
    err = _run([*args, "--out-dir", str(rep), "--overwrite"], capsys, folder)
    assert (rep / "report.html").read_text() == "the old report"


def test_survey_table_errors(files, capsys, tmp_path):
    folder, _ = files
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"field": rng.choice(["A", "B"], 40), "gender": rng.choice(["F", "M"], 40),
                       "salary": rng.lognormal(10, 0.3, 40), "w": rng.uniform(1, 5, 40)})
    good = folder / "survey.csv"
    df.to_csv(good, index=False)
    base = ["survey-table", "--y", "salary", "--weight", "w", "--by", "field"]
    # --out naming a folder
    err = _run([*base[:1], str(good), *base[1:], "--out", str(folder)], capsys, folder)
    assert "--out" in err and "is a folder" in err
    # all-zero weights, and one group's
    zero = folder / "zero.csv"
    df.assign(w=0.0).to_csv(zero, index=False)
    err = _run([base[0], str(zero), *base[1:]], capsys, folder)
    assert "--weight" in err and "zero.csv" in err and "'w'" in err
    group = folder / "group.csv"
    df.assign(w=np.where(df.field == "B", 0.0, df.w)).to_csv(group, index=False)
    err = _run([base[0], str(group), *base[1:]], capsys, folder)
    assert "field = 'B'" in err and "group.csv" in err
    # empty and non-UTF-8 survey files name the file
    empty = folder / "e.csv"
    empty.write_text("")
    err = _run([base[0], str(empty), *base[1:]], capsys, folder)
    assert "e.csv" in err and "empty" in err
    bad = folder / "bad.csv"
    bad.write_bytes(b"field,gender,salary,w\n\xe9,F,1,1\n")
    err = _run([base[0], str(bad), *base[1:]], capsys, folder)
    assert "bad.csv" in err and "--encoding" in err


def test_python_m_idrisk_is_the_command_and_shows_no_traceback(files):
    folder, paths = files
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    version = subprocess.run([sys.executable, "-m", "idrisk", "--version"], capture_output=True,
                             text=True, env=env, timeout=120)
    assert version.returncode == 0 and version.stdout.startswith("idrisk ")
    done = subprocess.run([sys.executable, "-m", "idrisk", "risk", paths[0], str(folder),
                           *RISK, "--out-dir", str(folder / "out")], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("idrisk risk: error: --synthetic:")
    assert not (folder / "out").exists()


def test_a_failure_while_writing_leaves_nothing(tmp_path, monkeypatch):
    """A report that fails half-way through writing: no new folder, no temporary folder, and an
    existing report untouched."""
    import warnings

    from idrisk.datasets import load_demo
    from idrisk.reporting import _render, compute_report, write_report

    d = load_demo(n=150, seed=2)
    s = d.assign(Income=d.Income.sample(frac=1, random_state=2).to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = compute_report(d, [s], ["Age"], ["Income"], radii=[0.1], utility=False)

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(_render, "build_document", broken)  # after the figures and CSVs are written
    with pytest.raises(OSError, match="disk full"):
        write_report(rep, tmp_path / "new")
    assert list(tmp_path.iterdir()) == []
    old = tmp_path / "old"
    old.mkdir()
    (old / "report.html").write_text("the old report")
    with pytest.raises(OSError, match="disk full"):
        write_report(rep, old, overwrite=True)
    assert _tree(tmp_path) == {"old/report.html": b"the old report"}


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["risk", "--bogus"],
                                  ["report", "--help"], ["survey-table", "--help"]])
def test_help_version_and_argument_errors_import_no_numerics(argv):
    code = ("import sys\nfrom idrisk.cli import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('numpy', 'pandas', 'scipy', 'matplotlib') "
            "if m in sys.modules), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr[-2000:]


def test_na_values_are_read_as_missing(files):
    folder, paths = files
    coded = folder / "coded.csv"
    frame = pd.read_csv(paths[0])
    frame.loc[:9, "Income"] = -8
    frame.to_csv(coded, index=False)
    out = folder / "out"
    assert main(["risk", str(coded), *paths[1:], *RISK, "--na-values", "-8", "--out-dir",
                 str(out)]) == 0
    summary = pd.read_csv(out / "summary.csv")
    assert (summary["na_confidential"] == 10).all()
    assert (summary["never_match"] == 0).all()  # -8 is missing, not a value <= 0
    from idrisk.cli import read_table

    assert read_table(coded, na_values=["-8"])["Income"].isna().sum() == 10
    assert read_table(coded)["Income"].isna().sum() == 0
