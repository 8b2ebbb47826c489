"""The report's "How precise, and what drives it" section: the interval per scenario equal to
``result.interval()``, the m advice, stability counts and the what-if table with its figure;
no confidential value in the section; Chromium renders it with every image."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from _browser import chromium, images_loaded, needs_chromium

import idrisk
from idrisk import identification_risk
from idrisk.datasets import load_demo
from idrisk.risk.precision import required_m

KNOWN = ["Age", "Urban", "Marital"]
HEADING = "How precise, and what drives it"


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    rng = np.random.default_rng(4)
    data = load_demo(n=300, seed=4)
    noisy = [data.assign(Income=data.Income * np.exp(rng.normal(0, 0.05, len(data))))
             for _ in range(4)]
    scen = {"A": noisy, "B": noisy[:1]}
    out = tmp_path_factory.mktemp("precision") / "report"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = idrisk.report(data, scen, KNOWN, {"A": ["Income"], "B": ["Income"]}, r=0.1,
                            out_dir=out, radii=None, utility=False, top=3)
    return data, scen, rep


def _section(md: str) -> str:
    return md.split(f"## {HEADING}", 1)[1].split("\n## ", 1)[0]


def test_section_numbers_are_the_engines(written):
    data, scen, rep = written
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = identification_risk(data, scen["A"], KNOWN, ["Income"], r=0.1)
    it = rep.tables.interval.set_index(["scenario", "measure"])
    want = res.interval()
    for col in ("mean", "se", "lower", "upper"):
        assert it.loc[("A", "exp_risk"), col] == want.loc["exp_risk", col]
    assert it.loc[("B", "exp_risk"), ["se", "lower", "upper"]].isna().all()
    adv = rep.tables.m_advice.set_index("scenario")
    assert adv.loc["A", "m_for_5pct"] == required_m(res, relative=0.05)
    st = rep.tables.stability.set_index("scenario")
    every = int((res.K.sum(axis=1) == res.m).sum())
    assert st.loc["A", "identified_in_every_dataset"] == every
    assert st.loc["A"][["identified_in_every_dataset", "identified_in_some_not_all",
                        "identified_in_none"]].sum() == len(data)
    wi = rep.tables.what_if
    assert wi["change"].tolist()[:4] == ["baseline", "drop", "drop", "drop"]
    assert wi["exp_risk"].iloc[0] == res.exp_risk.mean()


def test_section_is_rendered_and_holds_no_confidential_value(written):
    data, _, rep = written
    md = rep.files.markdown.read_text()
    html = rep.files.html.read_text()
    assert HEADING in html and f"## {HEADING}" in md
    section = _section(md)
    assert "no interval: m = 1" in section and "An estimate" in section
    assert "fig_whatif.png" in section and "whatif" in rep.files.figures
    assert "sampling of the confidential data" in section
    # no confidential value: no number of the confidential data appears in the section
    numbers = set(re.findall(r"\d+(?:\.\d+)?", section))
    values = {f"{v:g}" for v in data["Income"]} | {str(v) for v in data["Income"]}
    values |= {f"{v:.1f}" for v in data["Income"]}
    big = {x for x in values if len(x.replace(".", "")) >= 4}  # incomes, not small counts
    assert not (numbers & big), sorted(numbers & big)[:5]
    for name in ("interval.csv", "m_advice.csv", "stability.csv", "whatif.csv"):
        assert (rep.files.folder / name).exists()
        assert name in md.split("## Files in this folder", 1)[1]


def test_section_fails_when_a_value_leaks(written):
    """The leak check above can fail: a section with an income in it is caught."""
    data, _, rep = written
    section = _section(rep.files.markdown.read_text()) + f" {data['Income'].iloc[0]:g}"
    numbers = set(re.findall(r"\d+(?:\.\d+)?", section))
    assert f"{data['Income'].iloc[0]:g}" in numbers


@needs_chromium
def test_browser_renders_the_section(written, tmp_path):
    _, _, rep = written
    html = rep.files.html.read_text()
    images, loaded = images_loaded(html, tmp_path)
    assert images == loaded == len(rep.files.figures)
    dom = chromium(["--dump-dom", rep.files.html.as_uri()], tmp_path).stdout
    assert HEADING in dom and "What drives the risk of scenario (A)" in dom


def test_docs_page_numbers_are_current():
    """docs/guide/precision.md's CE block is what docs/guide/precision_numbers.py computes."""
    import os
    import subprocess
    import sys

    from _shared import REPO_ROOT, shared_dir

    shared = shared_dir()  # skips without the shared data
    if not (shared / "fixtures" / "synthpop" / "scenario4").is_dir():
        pytest.skip("synthpop's scenario files are not in the shared folder")
    env = {**os.environ, "IDRISK_SHARED": str(shared), "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run([sys.executable, str(REPO_ROOT / "docs/guide/precision_numbers.py"),
                           "--check"], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, "run python docs/guide/precision_numbers.py" + done.stderr
