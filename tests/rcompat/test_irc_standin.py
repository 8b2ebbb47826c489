"""IdentificationRiskCalculation's checks where the package cannot be installed, and the same
checks through the real package where it is.

The stand-in (``irc_standin/IdentificationRisk.R``) is first pinned to the package's recorded
outputs: every public fixture case, names, storage types, printed and message lines, NULL.
Then ``idrisk check-r`` runs in a subprocess against the real package when it is installed and
against the stand-in (``R_LIBS``) otherwise - including its synthpop side on CEdata.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from _irc import STANDIN_DIR, real_irc_available, rscript, run_idrisk, standin_library
from _shared import cedata_path, fixtures_dir

pytestmark = pytest.mark.needs_r


def _pin(standin, pattern: str = ".") -> tuple[int, int, str]:
    proc = subprocess.run(
        [
            rscript(),
            str(STANDIN_DIR / "check_fixtures.R"),
            str(standin),
            str(fixtures_dir("identification_risk")),
            pattern,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    cases, agree = map(int, re.search(r"cases (\d+) agree (\d+)", proc.stdout).groups())
    return cases, agree, proc.stdout


def test_standin_reproduces_every_recorded_output():
    cases, agree, out = _pin(STANDIN_DIR / "IdentificationRisk.R")
    assert cases == 80 and agree == 80, out


@pytest.mark.parametrize(
    ("old", "new", "pattern"),
    [
        ("out <- y <= lo | y >= hi", "out <- y < lo | y > hi", "boundary"),  # closed intervals
        ("ds <- ds + d[[v]]^2", "ds <- ds + d[[v]]^2 + dk", "euclid"),  # d_K squared
        (
            'print(paste0("Warning: only using the first ", length(cont_vars), " radii."))',
            'print("Warning: only using the first radii.")',
            "r_too_long",
        ),  # printed text
        ("+ 0\n  fmat", "\n  fmat", "T0_c0"),  # K_vector stored as logical, not double
    ],
)
def test_pin_fails_for_a_changed_standin(tmp_path, old, new, pattern):
    """The pin can fail: a small change of the stand-in is caught on the cases it affects."""
    text = (STANDIN_DIR / "IdentificationRisk.R").read_text()
    assert old in text
    broken = tmp_path / "broken.R"
    broken.write_text(text.replace(old, new, 1))
    cases, agree, out = _pin(broken, pattern)
    assert cases > 0 and agree < cases, out


@pytest.fixture(scope="module")
def irc_lib():
    """None when the real package is installed (use it), else the stand-in's R library."""
    rscript()
    if real_irc_available():
        return None
    return standin_library(cedata_path())


def test_check_r_on_the_fixture_folder(irc_lib):
    proc = run_idrisk(["check-r", str(fixtures_dir("identification_risk"))], irc_lib)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "check-r: 80 of 80 checks agree with R" in proc.stdout
    # both sides refuse a radius vector that is too short: agreement, both messages shown
    block = proc.stdout.split("r_too_short_null: AGREE (both refused the input)")[1]
    assert "idrisk: r has 2 entries" in block.splitlines()[1]
    assert "R: Error: radius vector must be length 1" in block.splitlines()[2]


def test_check_r_default_runs_synthpop_and_agrees(irc_lib):
    """``idrisk check-r``: CE scenarios 1-4 with synthpop's datasets (seed 2021), r = 0.1."""
    proc = run_idrisk(["check-r"], irc_lib)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "check-r: 4 of 4 checks agree with R" in proc.stdout
    for k in range(1, 5):
        assert f"CE scenario {k}, r=0.1: AGREE" in proc.stdout


def test_check_r_ce_radii(irc_lib):
    """The documented ``--ce --radius 0.01 0.1 0.3`` run, CI-sized: scenario 3, one dataset
    (synthpop then returns a data frame, not a list), another seed."""
    args = ["check-r", "--ce", "--radius", "0.01", "0.1", "0.3", "--m", "1", "--seed", "7"]
    proc = run_idrisk([*args, "--scenarios", "3"], irc_lib)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "check-r: 3 of 3 checks agree with R" in proc.stdout


def test_cedata_is_loaded_with_the_documented_factors(irc_lib):
    code = (
        "from idrisk.rcompat import load_r_dataset as load\n"
        "ce = load('CEdata')\n"
        "print(sorted(c for c in ce if str(ce[c].dtype) == 'category'))\n"
        "print(ce['Tenure'].cat.categories.tolist(), ce.shape)\n"
        "print(str(load('CEdata', factors=None)['Urban'].dtype))\n"
    )
    proc = run_idrisk([], irc_lib, python_code=code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "['Marital', 'Tenure', 'Urban']",
        "['1', '2', '4', '5', '6'] (5571, 7)",
        "int32",
    ]


def test_without_the_package_check_r_exits_2_naming_it(tmp_path):
    rscript()
    if real_irc_available():
        pytest.skip("IdentificationRiskCalculation is installed")
    # a case without R's stored answer (expected.json) needs the R package
    case = tmp_path / "T0_c0_hand"
    shutil.copytree(fixtures_dir("identification_risk") / "T0_c0_hand", case)
    (case / "expected.json").unlink()
    proc = run_idrisk(["check-r", str(case)])
    assert proc.returncode == 2
    assert "'IdentificationRiskCalculation' is not installed" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = run_idrisk(
        [], python_code="from idrisk.rcompat import load_r_dataset\nload_r_dataset('CEdata')"
    )
    assert "'IdentificationRiskCalculation' is not installed" in proc.stderr
    assert "idrisk.datasets.read_ce" in proc.stderr
