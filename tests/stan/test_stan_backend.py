"""Stan backend: real sampling with PyStan and with CmdStan, backend choice, caches.

The cmdstan variants carry "cmdstan" in their names (``pytest -k cmdstan``). Where a backend
is missing they skip with a reason, except under ``CI=true`` (``scripts/dev.sh test`` installs
CmdStan), where a skipped Stan test fails (``tests/conftest.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

from idrisk.stan import _discovery as sd
from idrisk.stan import _runtime as sr
from idrisk.stan import backend as sb
from idrisk.stan.backend import (
    StanBackendError,
    StanConvergenceWarning,
    StanProgram,
    ess_bulk,
    program_path,
    rhat,
)

# ---------------------------------------------------------------- diagnostics (no Stan)


def test_rhat_ess_iid_chains():
    x = np.random.default_rng(0).normal(size=(4, 2000))
    assert rhat(x) == pytest.approx(1.0, abs=0.01)
    assert 6500 < ess_bulk(x) < 9500


def test_ess_matches_ar1_closed_form():
    # AR(1) with coefficient rho: ESS = N (1 - rho) / (1 + rho)
    rng = np.random.default_rng(1)
    rho, m, n = 0.6, 4, 5000
    x = np.zeros((m, n))
    e = rng.normal(size=(m, n))
    for t in range(1, n):
        x[:, t] = rho * x[:, t - 1] + e[:, t]
    expected = m * n * (1 - rho) / (1 + rho)
    assert ess_bulk(x) == pytest.approx(expected, rel=0.15)


def test_rhat_detects_shifted_and_scaled_chains():
    rng = np.random.default_rng(2)
    shifted = rng.normal(size=(4, 1000)) + np.array([[0.0], [0.0], [0.0], [1.0]])
    assert rhat(shifted) > 1.1
    scaled = rng.normal(size=(4, 1000)) * np.array([[1.0], [1.0], [1.0], [4.0]])
    assert rhat(scaled) > 1.05  # the folded (tail) R-hat catches unequal spread


def test_program_path_and_errors(monkeypatch):
    assert program_path("weighted_negbin").is_file()
    with pytest.raises(FileNotFoundError, match="no_such_program"):
        program_path("no_such_program")
    with pytest.raises(ValueError, match="backend"):
        sb.select_backend("stanx")
    monkeypatch.setattr(sd, "_pystan_available", lambda: False)
    monkeypatch.setattr(sd, "cmdstan_path", lambda: None)
    with pytest.raises(StanBackendError, match="No Stan backend"):
        sb.select_backend("auto")
    with pytest.raises(StanBackendError, match="pystan"):
        sb.select_backend("pystan")
    with pytest.raises(StanBackendError, match="cmdstanpy"):
        sb.select_backend("cmdstanpy")


# ---------------------------------------------------------------- real sampling


def _conjugate_case():
    rng = np.random.default_rng(7)
    n = 40
    y = rng.normal(2.0, 1.5, n)
    w = rng.uniform(0.05, 1.0, n)
    sigma, m0, s0 = 1.5, 0.0, 3.0
    prec = 1 / s0**2 + w.sum() / sigma**2
    mean = (m0 / s0**2 + (w * y).sum() / sigma**2) / prec
    data = {"N": n, "y": y, "w": w, "sigma": sigma, "m0": m0, "s0": s0}
    return data, mean, 1 / prec


def _check_conjugate(backend: str) -> None:
    data, mean, var = _conjugate_case()
    prog = StanProgram("weighted_normal_known_sd", backend=backend)
    fit = prog.sample(data, seed=11, chains=4, warmup=500, draws=2000, progress=False)
    mu = fit.draws["mu"]
    assert mu.shape == (4, 2000)
    # Monte Carlo error of the mean ~ sd / sqrt(ESS) ~ 0.01 sd; allow 5 MC SEs
    sd = np.sqrt(var)
    assert mu.mean() == pytest.approx(mean, abs=5 * sd / np.sqrt(fit.diagnostics["ess_bulk"].min()))
    assert mu.var() == pytest.approx(var, rel=0.1)
    # unweighted closed form differs clearly, so the weights were used
    n = data["N"]
    unweighted_var = 1 / (1 / data["s0"] ** 2 + n / data["sigma"] ** 2)
    assert abs(mu.var() - unweighted_var) > 0.3 * var
    assert fit.diagnostics.loc["mu", "rhat"] < 1.02
    assert fit.n_divergent == 0
    # reproducible with the same seed
    again = prog.sample(data, seed=11, chains=4, warmup=500, draws=2000, progress=False)
    np.testing.assert_array_equal(again.draws["mu"], mu)
    frame = fit.to_frame()
    assert list(frame.columns[:3]) == ["chain", "draw", "lp__"]
    assert len(frame) == 8000


def _check_negbin_shapes_and_warning(backend: str) -> None:
    rng = np.random.default_rng(3)
    n = 200
    x = rng.normal(size=n)
    y = rng.negative_binomial(10, 10 / (10 + np.exp(3 + 0.5 * x)))
    data = {"N": n, "R": 2, "X": np.column_stack([np.ones(n), x]), "y": y,
            "w": np.ones(n), "scale_beta": 10.0, "scale_phi": 10.0}
    prog = StanProgram("weighted_negbin", backend=backend)
    fit = prog.sample(data, seed=5, chains=2, warmup=300, draws=300, progress=False)
    assert fit.draws["beta"].shape == (2, 300, 2)
    assert fit.stacked("beta").shape == (600, 2)
    assert np.abs(fit.stacked("beta").mean(axis=0) - [3.0, 0.5]).max() < 0.15
    assert set(fit.diagnostics.index) >= {"beta[1]", "beta[2]", "phi", "lp__"}
    # too few draws: diagnostics must be surfaced as warnings
    with pytest.warns(StanConvergenceWarning):
        prog.sample(data, seed=5, chains=2, warmup=20, draws=20, progress=False)


def _cmdstan_or_skip() -> None:
    if sb.cmdstan_path() is None:
        pytest.skip("CmdStan not installed (set CMDSTAN or install to ~/.cmdstan)")


def _pystan_or_skip() -> None:
    pytest.importorskip("stan", reason="PyStan 3 (package 'stan') not installed")


@pytest.mark.stan
def test_pystan_weighted_conjugate_normal_matches_closed_form():
    _pystan_or_skip()
    _check_conjugate("pystan")


@pytest.mark.stan
def test_pystan_negbin_draw_shapes_and_convergence_warning():
    _pystan_or_skip()
    _check_negbin_shapes_and_warning("pystan")


@pytest.mark.stan
def test_cmdstan_weighted_conjugate_normal_matches_closed_form():
    _cmdstan_or_skip()
    _check_conjugate("cmdstanpy")


@pytest.mark.stan
def test_cmdstan_negbin_draw_shapes_and_convergence_warning():
    _cmdstan_or_skip()
    _check_negbin_shapes_and_warning("cmdstanpy")


@pytest.mark.stan
def test_cmdstan_compiles_every_shipped_program():
    _cmdstan_or_skip()
    for name in ("weighted_mixture_normal", "weighted_negbin", "weighted_normal_known_sd"):
        assert "compiled" in repr(StanProgram(name, backend="cmdstanpy").compile())


# ---------------------------------------------------------------- backend selection (no Stan)


def _fake_cmdstan(root, version="2.35.0"):
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "stanc").write_text("")
    (root / "makefile").write_text(f"# fake\nCMDSTAN_VERSION := {version}\n")
    return root


def test_cmdstan_env_that_is_not_an_install_is_an_error_naming_it(monkeypatch, tmp_path):
    bogus = tmp_path / "not-cmdstan"
    bogus.mkdir()
    monkeypatch.setenv("CMDSTAN", str(bogus))
    with pytest.raises(StanBackendError, match="not-cmdstan"):
        sb.cmdstan_path()
    with pytest.raises(StanBackendError, match="not a CmdStan installation"):
        sb.select_backend("cmdstanpy")
    with pytest.raises(StanBackendError, match="not-cmdstan"):  # no silent fallback
        sb.select_backend("auto")
    monkeypatch.setenv("CMDSTAN", str(_fake_cmdstan(tmp_path / "cmdstan-2.35.0")))
    assert sb.cmdstan_path() == tmp_path / "cmdstan-2.35.0"
    assert sb.cmdstan_version(sb.cmdstan_path()) == "2.35.0"


def test_choosing_cmdstanpy_does_not_import_pystan(tmp_path):
    import os
    import subprocess
    import sys

    pytest.importorskip("cmdstanpy")
    home = _fake_cmdstan(tmp_path / "cmdstan-2.35.0")
    code = ("import sys; from idrisk.stan.backend import select_backend; "
            "print(select_backend('cmdstanpy'), 'stan' in sys.modules, "
            "'httpstan' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "CMDSTAN": str(home)}, check=True).stdout.split()
    assert out == ["cmdstanpy", "False", "False"]


def test_cmdstan_cache_key_includes_the_cmdstan_version(tmp_path, monkeypatch):
    pytest.importorskip("stan", reason="PyStan 3 not installed")
    monkeypatch.setenv("IDRISK_CACHE_DIR", str(tmp_path / "cache"))
    old = _fake_cmdstan(tmp_path / "cmdstan")
    prog = StanProgram("weighted_negbin", backend="pystan")  # the key needs no compiler
    before = prog.cmdstan_cache_dir(old)
    (old / "makefile").write_text("CMDSTAN_VERSION := 2.36.0\n")  # upgraded in place
    after = prog.cmdstan_cache_dir(old)
    assert before != after and before.parent == after.parent == tmp_path / "cache" / "stan"
    assert prog.cmdstan_cache_dir(old) == after  # stable


def test_auto_reports_its_choice_and_reason_once(monkeypatch, tmp_path):
    import logging

    pytest.importorskip("cmdstanpy")
    monkeypatch.setattr(sd, "_REPORTED", set())
    log = logging.getLogger("idrisk.stan")

    class Keep(logging.Handler):
        records: list = []

        def emit(self, record):
            self.records.append(record)

    keep = Keep(logging.INFO)
    log.addHandler(keep)
    monkeypatch.setattr(log, "level", logging.INFO)
    try:
        monkeypatch.delenv("IDRISK_STAN_BACKEND", raising=False)
        monkeypatch.setenv("CMDSTAN", str(_fake_cmdstan(tmp_path / "cmdstan-2.35.0")))
        assert sb.select_backend("auto") == "cmdstanpy"
        assert sb.select_backend("auto") == "cmdstanpy"
        assert sb.select_backend("cmdstanpy") == "cmdstanpy"  # explicit: nothing to report
        msgs = [r.getMessage() for r in keep.records]
        assert len(msgs) == 1, msgs
        assert "chose cmdstanpy" in msgs[0] and "CmdStan 2.35.0" in msgs[0]
        assert "CMDSTAN" in msgs[0]
        monkeypatch.setattr(sd, "_pystan_available", lambda: True)
        monkeypatch.setenv("IDRISK_STAN_BACKEND", "pystan")  # pinned: CmdStan is ignored
        assert sb.select_backend("auto") == "pystan"
        msgs = [r.getMessage() for r in keep.records]
        assert len(msgs) == 2 and "IDRISK_STAN_BACKEND=pystan" in msgs[1]
        monkeypatch.setenv("IDRISK_STAN_BACKEND", "stanx")
        with pytest.raises(ValueError, match="IDRISK_STAN_BACKEND"):
            sb.select_backend("auto")
        monkeypatch.delenv("IDRISK_STAN_BACKEND")
        monkeypatch.delenv("CMDSTAN")
        monkeypatch.setattr(sd, "cmdstan_path", lambda: None)
        assert sb.select_backend("auto") == "pystan"
        msgs = [r.getMessage() for r in keep.records]
        assert len(msgs) == 3 and "no CmdStan installation found" in msgs[2]
    finally:
        log.removeHandler(keep)


def test_pystan_builds_in_the_cache_directory_not_the_current_one(monkeypatch, tmp_path):
    """httpstan compiles through setuptools' build_ext, whose build folder is ``./build``
    unless configured: idrisk points it at its cache directory while PyStan runs."""
    setuptools = pytest.importorskip("setuptools")
    from setuptools.command.build_ext import build_ext

    monkeypatch.setenv("IDRISK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)

    def build_temp() -> str:  # what httpstan.build_ext.run_build_ext does
        dist = setuptools.Distribution()
        dist.parse_config_files(dist.find_config_files())
        command = build_ext(dist)
        command.build_lib = str(tmp_path / "lib")
        command.finalize_options()
        return command.build_temp

    assert build_temp().startswith("build")  # setuptools' default: the current directory
    with sr._pystan_build_outside_cwd() as base:
        assert base == tmp_path / "cache" / "stan" / "pystan-build"
        assert build_temp().startswith(str(base))
    assert "DIST_EXTRA_CONFIG" not in __import__("os").environ
    assert not (tmp_path / "build").exists()


def test_convergence_report_counts_treedepth_and_low_ebfmi():
    rng = np.random.default_rng(0)
    draws = {"mu": rng.normal(size=(2, 200))}
    energy = np.cumsum(rng.normal(size=(2, 200)) * 0.05, axis=1)  # a slowly drifting energy
    sampler = {"divergent__": np.zeros((2, 200)), "treedepth__": np.full((2, 200), 3.0),
               "energy__": energy}
    sampler["treedepth__"][0, :7] = 10
    fit = sb.StanFit(draws=draws, sampler=sampler, backend="fake", program="p", seed=1,
                     chains=2, warmup=10, iter_sampling=200)
    with pytest.warns(StanConvergenceWarning) as got:
        sb._check_convergence(fit, None, 1.05, 100.0, 10)
    text = " ".join(str(w.message) for w in got)
    assert "7 transitions hit the maximum tree depth 10" in text
    assert "E-BFMI below 0.3 in chain(s) [1, 2]" in text
    assert len(fit.messages) == 2


def test_file_lock_serialises_two_processes(tmp_path):
    import subprocess
    import sys

    # two processes take the compile lock in turn: their critical sections never overlap
    code = (
        "import sys, time; from pathlib import Path; from idrisk.stan._runtime import _file_lock\n"
        "with _file_lock(Path(sys.argv[1]) / '.lock'):\n"
        "    log = Path(sys.argv[1]) / 'log'\n"
        "    with open(log, 'a') as f: f.write('enter\\n')\n"
        "    time.sleep(0.5)\n"
        "    with open(log, 'a') as f: f.write('leave\\n')\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path)]) for _ in range(2)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    assert (tmp_path / "log").read_text().split() == ["enter", "leave", "enter", "leave"]


@pytest.mark.stan
def test_cmdstan_quiet_logging_and_concurrent_compiles(tmp_path, caplog):
    _cmdstan_or_skip()
    import logging
    import os
    import subprocess
    import sys

    env = {**os.environ, "IDRISK_CACHE_DIR": str(tmp_path / "cache")}
    code = ("from idrisk.stan.backend import StanProgram; "
            "StanProgram('weighted_normal_known_sd', backend='cmdstanpy').compile()")
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env) for _ in range(2)]
    assert [p.wait(timeout=900) for p in procs] == [0, 0]
    data, _, _ = _conjugate_case()
    with caplog.at_level(logging.INFO, logger="cmdstanpy"):
        StanProgram("weighted_normal_known_sd", backend="cmdstanpy").sample(
            data, seed=1, chains=1, warmup=100, draws=100, progress=False)
    assert not [r for r in caplog.records if r.name.startswith("cmdstanpy")
                and r.levelno <= logging.INFO]
