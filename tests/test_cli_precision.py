"""``idrisk risk --level/--precision/--relative`` and ``idrisk whatif``: outputs, and bad input
(m = 1, an unknown variable, a band width <= 0) as one line in the CLI's words with no file
left behind."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_cli_inputs import RISK, _run, files  # noqa: F401  (files is a fixture)

from idrisk import identification_risk
from idrisk.cli import main
from idrisk.risk.precision import required_m

WHATIF = ["--known", "Sex", "Age", "--syn", "Income", "-r", "0.1"]


def _conf_syn(paths):
    conf = pd.read_csv(paths[0])
    return conf, [pd.read_csv(p) for p in paths[1:]]


def test_risk_writes_the_interval_and_the_m_advice(files, capsys):  # noqa: F811
    folder, paths = files
    out = folder / "out"
    assert main(["risk", *paths, *RISK, "--out-dir", str(out), "--relative", "0.1"]) == 0
    printed = capsys.readouterr().out
    conf, syns = _conf_syn(paths)
    with pytest.warns(Warning):
        want = identification_risk(conf, syns, ["Sex", "Age"], ["Income"], r=0.1)
    got = pd.read_csv(out / "interval.csv", index_col=0)
    np.testing.assert_allclose(got[["mean", "se", "lower", "upper"]],
                               want.interval()[["mean", "se", "lower", "upper"]])
    m = required_m(want, relative=0.1)
    assert f"about m = {m} synthetic datasets" in printed and "an estimate" in printed
    records = pd.read_csv(out / "records.csv")
    np.testing.assert_array_equal(records["datasets_identified"], want.K.sum(axis=1))


def test_risk_with_one_file_prints_no_interval(files, capsys):  # noqa: F811
    folder, paths = files
    out = folder / "out"
    assert main(["risk", *paths[:2], *RISK, "--out-dir", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "m = 1: no interval can be given" in printed
    got = pd.read_csv(out / "interval.csv", index_col=0)
    assert got[["se", "lower", "upper"]].isna().all().all()
    assert got["note"].str.contains("no interval").all()


@pytest.mark.parametrize(("extra", "words"), [
    (["--precision", "2"], "--precision: 1 synthetic file"),
    (["--relative", "0.1"], "--relative: 1 synthetic file"),
])
def test_risk_m_advice_with_one_file_is_an_error(files, capsys, extra, words):  # noqa: F811
    folder, paths = files
    err = _run(["risk", *paths[:2], *RISK, "--out-dir", str(folder / "out"), *extra], capsys,
               folder)
    assert words in err and err.startswith("idrisk risk: error:")


@pytest.mark.parametrize(("extra", "words"), [
    (["--precision", "0"], "--precision must be > 0"),
    (["--precision", "1", "--relative", "0.1"], "give one of them"),
    (["--level", "95"], "--level must lie strictly between 0 and 1"),
])
def test_risk_bad_precision_flags(files, capsys, extra, words):  # noqa: F811
    folder, paths = files
    err = _run(["risk", *paths, *RISK, "--out-dir", str(folder / "out"), *extra], capsys,
               folder)
    assert words in err


def test_whatif_writes_the_table(files, capsys):  # noqa: F811
    folder, paths = files
    out = folder / "wi"
    assert main(["whatif", *paths, *WHATIF, "--radii", "0.2", "0.3", "--bands", "Income=500",
                 "--out-dir", str(out)]) == 0
    table = pd.read_csv(out / "whatif.csv")
    assert table["change"].tolist() == ["baseline", "drop", "drop", "radius", "radius", "band"]
    per = pd.read_csv(out / "whatif_datasets.csv")
    assert len(per) == 2 * len(table) and per["file"].iloc[0] == paths[1]
    assert (out / "fig_whatif.png").stat().st_size > 1000
    conf, syns = _conf_syn(paths)
    with pytest.warns(Warning):
        drop_sex = identification_risk(conf, syns, ["Age"], ["Income"], r=0.1)
    assert table.loc[1, "exp_risk"] == pytest.approx(drop_sex.exp_risk.mean(), rel=1e-12)
    # nothing confidential: only counts, rates and the variable names/settings
    assert set(table.columns) == {"change", "variable", "setting", "known", "exp_risk", "se",
                                  "lower", "upper", "difference"}


@pytest.mark.parametrize(("extra", "words"), [
    (["--bands", "Educ=5"], "--bands: 'Educ' is not a known or synthesized variable"),
    (["--bands", "Income=0"], "--bands Income=0: the band width must be > 0"),
    (["--bands", "Income=-5"], "the band width must be > 0"),
    (["--bands", "Income"], "write VARIABLE=WIDTH"),
    (["--merge", "Sex=F"], "two or more levels"),
    (["--merge", "Sex=F,X"], "--merge: 'Sex' has no level 'X'"),
    (["--merge", "Nope=a,b"], "--merge: 'Nope' is not a known or synthesized variable"),
    (["--bands", "Sex=2"], "--bands: 'Sex' is categorical; merge its levels instead (--merge)"),
])
def test_whatif_bad_input(files, capsys, extra, words):  # noqa: F811
    folder, paths = files
    err = _run(["whatif", *paths, *WHATIF, "--out-dir", str(folder / "wi"), *extra], capsys,
               folder)
    assert words in err and err.startswith("idrisk whatif: error:")


def test_whatif_with_one_file_is_an_error(files, capsys):  # noqa: F811
    folder, paths = files
    err = _run(["whatif", *paths[:2], *WHATIF, "--out-dir", str(folder / "wi")], capsys,
               folder)
    assert "needs 2 or more (m >= 2)" in err


def test_whatif_unknown_known_variable(files, capsys):  # noqa: F811
    folder, paths = files
    err = _run(["whatif", *paths, "--known", "Sex", "Height", "--syn", "Income", "-r", "0.1",
                "--out-dir", str(folder / "wi")], capsys, folder)
    assert "Height" in err
