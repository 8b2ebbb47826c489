"""IdentificationRiskCalculation for the tests: the real package where installed, else a stand-in.

The real package cannot be shipped (no licence). Where it is absent, :func:`standin_library`
builds an R library holding a stand-in package of the same name (``irc_standin/``: the function
``IdentificationRisk`` written from the spec and pinned to the package's recorded outputs by
``test_irc_standin.py``, plus ``CEdata`` with the real storage, made from ``shared/data``).
It is only ever used in subprocesses (``R_LIBS``), so the test process itself never sees a
package that is not the real one.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

IRC = "IdentificationRiskCalculation"
STANDIN_DIR = Path(__file__).resolve().parent / "irc_standin"

DESCRIPTION = """Package: IdentificationRiskCalculation
Type: Package
Title: Test Stand-in for IdentificationRisk(), Not the Real Package
Version: 0.0.0.9000
Authors@R: person("idrisk", "tests", role = c("aut", "cre"), email = "idrisk@example.org")
Description: Built by idrisk's test suite where the real package is absent. Same function
    signature, result list, printed lines and CEdata storage; written from the behaviour
    specification and pinned to the real package's recorded outputs.
License: MIT
Encoding: UTF-8
LazyData: true
Imports: stats, utils
"""


def rscript() -> str:
    exe = shutil.which("Rscript")
    if exe is None:
        pytest.skip("needs R (Rscript on PATH)")
    return exe


def real_irc_available() -> bool:
    from idrisk.rcompat import r_package_available

    return r_package_available(IRC)


@functools.cache
def _build(cedata_csv: str) -> str:
    root = Path(tempfile.mkdtemp(prefix="idrisk-irc-standin-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    pkg = root / "src" / IRC
    (pkg / "R").mkdir(parents=True)
    (pkg / "data").mkdir()
    (pkg / "DESCRIPTION").write_text(DESCRIPTION)
    (pkg / "NAMESPACE").write_text("export(IdentificationRisk)\n")
    shutil.copy(STANDIN_DIR / "IdentificationRisk.R", pkg / "R" / "IdentificationRisk.R")
    subprocess.run(
        [rscript(), str(STANDIN_DIR / "make_cedata.R"), cedata_csv, str(pkg / "data/CEdata.rda")],
        check=True,
        capture_output=True,
    )
    lib = root / "lib"
    lib.mkdir()
    r = shutil.which("R")
    subprocess.run(
        [r, "CMD", "INSTALL", "--no-test-load", f"--library={lib}", str(pkg)],
        check=True,
        capture_output=True,
    )
    return str(lib)


def standin_library(cedata_csv: Path) -> str:
    """Path of an R library with the stand-in package (built once per test session)."""
    rscript()
    return _build(str(cedata_csv))


def run_idrisk(
    args: list[str], r_libs: str | None = None, timeout: float = 600, python_code: str = ""
):
    """``idrisk <args>`` (or ``python -c python_code``) in a subprocess, optionally with
    ``R_LIBS`` prepended."""
    env = dict(os.environ)
    if r_libs:
        env["R_LIBS"] = os.pathsep.join(p for p in (r_libs, env.get("R_LIBS", "")) if p)
    command = ["-c", python_code] if python_code else ["-m", "idrisk.cli", *args]
    return subprocess.run(
        [sys.executable, *command],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
