"""The README demo and the built-in dataset."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from idrisk.analysis import radius_sweep
from idrisk.datasets import CE_COLUMNS, load_demo, read_ce
from idrisk.demo import DEMO_KNOWN, markdown_table, run_demo


def test_load_demo_shape_and_marginals():
    d = load_demo()
    assert list(d.columns) == CE_COLUMNS and len(d) == 5571
    assert d.equals(load_demo())  # deterministic
    assert not d.equals(load_demo(seed=1))
    assert d.Age.between(16, 88).all() and d.Age.dtype == np.int64
    assert list(d.Tenure.cat.categories) == [1, 2, 4, 5, 6]
    assert list(d.Urban.cat.categories) == [1, 2] and list(d.Marital.cat.categories) == [1, 2,
                                                                                        3, 4, 5]
    assert set(d.Educ.unique()) <= {0, 10, 11, 12, 13, 14, 15, 16}
    # CE-like: Urban mostly 1, some zero/negative incomes, Income and Expenditure correlated
    assert 0.85 < (d.Urban == 1).mean() < 0.97
    assert 0.04 < (d.Income == 0).mean() < 0.15 and (d.Income < 0).sum() >= 1
    assert 0.3 < np.corrcoef(d.Income, d.Expenditure)[0, 1] < 0.7
    with pytest.raises(ValueError, match="n"):
        load_demo(n=3)


def test_read_ce_roundtrip(tmp_path):
    d = load_demo(n=50, seed=2)
    p = tmp_path / "d.csv"
    d.to_csv(p, index=False)
    back = read_ce(p)
    pd.testing.assert_frame_equal(back, d)
    with pytest.raises(KeyError, match="Nope"):
        read_ce(p, categorical=["Tenure", "Nope"])


def test_run_demo_small(tmp_path):
    report = run_demo(tmp_path / "out", m=2, n=600, radii=[0.05, 0.1], seed=7, progress=False,
                      maxorder=0)
    assert report.name == "report.md" and report.exists()
    assert (report.parent / "report.html").stat().st_size > 10_000
    text = report.read_text()
    for png in ("fig_risk_by_radius.png", "fig_risk_at_max.png", "fig_utility_risk.png",
                "fig_record_risk.png", "fig_ecdf_Income.png", "fig_ecdf_Expenditure.png"):
        assert (report.parent / png).stat().st_size > 1000
        assert png in text
    sweep = pd.read_csv(report.parent / "risk_by_radius.csv")
    assert len(sweep) == 4 * 2 * 2
    # the written risks are those of a direct sweep of the same synthesis
    from idrisk.synthesis import syn

    data = load_demo(n=600)
    s1 = syn(data, m=2, syn=["Income"], seed=7, rng="numpy")
    direct = radius_sweep(data, s1, DEMO_KNOWN, ["Income"], radii=[0.05], progress=False)
    np.testing.assert_allclose(sweep[(sweep.scenario == 1) & (sweep.r == 0.05)].exp_risk,
                               direct.exp_risk)
    ru = pd.read_csv(report.parent / "risk_utility.csv")
    assert (ru.U_p > 0).all() and len(ru) == 4 * 2


def test_markdown_table():
    t = markdown_table(pd.DataFrame({"a": [1.23456, 2.0], "b": ["x", "y"]}), ".3g")
    assert t.splitlines()[2] == "| 0 | 1.23 | x |"


def test_demo_refuses_an_existing_report_before_any_work(tmp_path, capsys):
    from idrisk.cli import main
    from idrisk.exceptions import OutputError

    out = tmp_path / "out"
    out.mkdir()
    (out / "report.html").write_text("an earlier demo")
    with pytest.raises(OutputError, match="overwrite=True"):
        run_demo(out, m=1, n=200, radii=[0.1])
    assert main(["demo", "--out-dir", str(out), "--m", "1"]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    assert (out / "report.html").read_text() == "an earlier demo"


def test_demo_reruns_into_its_own_folder(tmp_path, capsys, monkeypatch):
    """A second `idrisk demo` replaces the demo's own earlier output (issue 29); a folder
    holding anything else is still refused."""
    import idrisk.demo
    from idrisk.cli import main

    seen = []

    def fake(out_dir, **kw):
        seen.append(kw["overwrite"])
        return Path(out_dir) / "report.md"

    monkeypatch.setattr(idrisk.demo, "run_demo", fake)
    out = tmp_path / "idrisk-demo-report"
    out.mkdir()
    (out / "report.md").write_text("Data: simulated CE-like sample "
                                   "(`idrisk.datasets.load_demo`, n = 5571)")
    (out / "report.html").write_text("<html></html>")
    assert main(["demo", "--out-dir", str(out), "--m", "1"]) == 0
    (out / "notes.txt").write_text("mine")  # not the demo's: refused as before
    assert main(["demo", "--out-dir", str(out), "--m", "1"]) == 0
    assert seen == [True, False]
    capsys.readouterr()


def test_a_real_demo_folder_is_recognised(tmp_path):
    from idrisk.cli import _is_demo_output

    run_demo(tmp_path / "d", m=1, n=200, radii=[0.1])
    assert _is_demo_output(tmp_path / "d")
    assert not _is_demo_output(tmp_path)
