"""``idrisk disclosure`` (CSV tables equal to the library's) and the disclosure section of the
report (numbers equal to disclosure_summary, no confidential value by default, rendered by
Chromium)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _browser import chromium, images_loaded, needs_chromium  # noqa: E402
from _shared import cedata_path, fixtures_dir  # noqa: E402

import idrisk  # noqa: E402
from idrisk.cli import main  # noqa: E402
from idrisk.datasets import load_demo, read_ce  # noqa: E402
from idrisk.risk import SynthpopQuirkWarning, disclosure, disclosure_summary  # noqa: E402

KEYS = ["Age", "Urban", "Marital"]
CE_FACTORS = ["Urban", "Tenure", "Marital"]


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SynthpopQuirkWarning)
        return fn(*args, **kw)


def test_cli_disclosure_writes_the_library_tables(tmp_path, capsys):
    """On the CE sample and synthpop's scenario-3 files: measures.csv equals disclosure()
    on the same files, for two targets (one grouped numeric), m = 2."""
    base = fixtures_dir("synthpop") / "scenario3"
    files = [str(base / f"syn_{j:02d}.csv") for j in (1, 2)]
    out = tmp_path / "disc"
    code = main(["disclosure", str(cedata_path()), *files, "--known", "Age", "Urban", "Marital",
                 "--syn", "Tenure", "Income", "--ngroups-syn", "5",
                 "--categorical", *CE_FACTORS, "--out-dir", str(out), "--no-progress"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    conf = read_ce(cedata_path())
    syns = [read_ce(f) for f in files]
    measures = pd.read_csv(out / "measures.csv")
    assert list(measures.columns[:2]) == ["target", "dataset"]
    for target in ("Tenure", "Income"):
        want = _quiet(disclosure, conf, syns, KEYS, target, ngroups_syn=5).summary()
        got = measures[measures.target == target].set_index("dataset")[want.columns]
        np.testing.assert_allclose(got.to_numpy(float), want.to_numpy(float), rtol=1e-12,
                                   equal_nan=True)
        assert measures[measures.target == target]["file"].tolist() == files
    summary = pd.read_csv(out / "summary.csv", index_col=0)
    assert sorted(summary.index) == ["Income", "Tenure"]
    for name in ("exclusions.csv", "check_1way.csv", "check_2way.csv"):
        assert (out / name).exists()
    assert "for the data custodian" in captured.out


def test_cli_disclosure_errors_name_the_flag(tmp_path, capsys):
    code = main(["disclosure", str(cedata_path()), str(cedata_path()), "--known", "Age",
                 "--syn", "Nope", "--out-dir", str(tmp_path / "x"), "--no-progress"])
    assert code == 2 and "Nope" in capsys.readouterr().err
    code = main(["disclosure", str(cedata_path()), str(cedata_path()), "--known", "Age",
                 "--syn", "Income", "--cont-na", "Income", "--out-dir",
                 str(tmp_path / "y"), "--no-progress"])
    assert code == 2 and "--cont-na" in capsys.readouterr().err


@pytest.fixture(scope="module")
def report_small(tmp_path_factory):
    from idrisk import syn

    data = load_demo(n=400, seed=3)
    s = syn(data, m=2, syn=["Marital", "Income"], seed=1, rng="numpy")
    out = tmp_path_factory.mktemp("report")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = idrisk.report(data, s, ["Age", "Urban"], ["Marital", "Income"], r=0.1,
                            out_dir=out, radii=None, utility=False, top=3,
                            disclosure_known=["Age", "Urban", "Tenure"])
    return data, s, rep


def test_report_disclosure_numbers(report_small):
    data, s, rep = report_small
    want = _quiet(disclosure_summary, data, list(s), ["Age", "Urban", "Tenure"],
                  ["Marital", "Income"], ngroups_syn=[0, 5])
    table = rep.tables.disclosure
    for t, res in want.results.items():
        got = table[table.target == t].set_index("dataset")
        np.testing.assert_array_equal(got["repU"], res.identity["repU"])
        np.testing.assert_array_equal(got["DiSCO"], res.attribute["DiSCO"])
    checks = rep.tables.disclosure_checks
    assert list(checks.columns) == ["scenario", "target", "dataset", "1-way flagged",
                                    "1-way share of DiSCO (%)", "2-way flagged pairs",
                                    "2-way keys"]  # counts only: no level names
    html = rep.files.html.read_text()
    md = rep.files.markdown.read_text()
    assert "synthpop's disclosure measures" in html and "## synthpop's disclosure measures" in md
    assert (rep.files.folder / "disclosure.csv").exists()
    assert (rep.files.folder / "disclosure_checks.csv").exists()
    # no confidential value: no level of a grouped numeric target (its bounds are values)
    assert "[" not in " ".join(map(str, checks.to_numpy().ravel()))


@needs_chromium
def test_browser_renders_report_with_disclosure_section(report_small, tmp_path):
    *_, rep = report_small
    images, loaded = images_loaded(rep.files.html.read_text(), tmp_path)
    assert loaded == images
    dom = chromium(["--dump-dom", rep.files.html.as_uri()], tmp_path).stdout
    assert "synthpop's disclosure measures" in dom and "DiSCO" in dom
