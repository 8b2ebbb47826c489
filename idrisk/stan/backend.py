"""A small Stan backend: compile once, sample with a seed, return draws as arrays.

Two engines are supported behind one interface:

* ``"cmdstanpy"`` -- CmdStan through cmdstanpy (install CmdStan with
  ``python -m cmdstanpy.install_cmdstan``, or point ``CMDSTAN`` at an installation);
* ``"pystan"`` -- PyStan 3 / httpstan, which bundles its own compiler
  (``pip install 'idrisk[stan]'``).

Choosing: pass ``backend="cmdstanpy"`` or ``"pystan"``. ``backend="auto"`` follows one rule,
in this order, and reports its choice and the reason once per process on the logger
``idrisk.stan`` (INFO, shown on stderr unless that logger is configured otherwise):

1. the environment variable ``IDRISK_STAN_BACKEND`` (``cmdstanpy`` or ``pystan``) when set;
2. ``"cmdstanpy"`` when a CmdStan installation is found (``CMDSTAN``, else cmdstanpy's
   default location ``~/.cmdstan``);
3. ``"pystan"`` when PyStan is installed.

So installing CmdStan switches ``"auto"`` from PyStan to cmdstanpy (and the program is
compiled once more, for CmdStan): the report says so; pin a backend to avoid it.

Compiled programs are cached in idrisk's cache directory (:mod:`idrisk._cache`:
``IDRISK_CACHE_DIR``, else e.g. ``~/.cache/idrisk``): CmdStan executables in
``stan/<program>-<hash>/``, PyStan's intermediate build files in ``stan/pystan-build``
(httpstan keeps the compiled models in its own user cache). Nothing is written to the current
directory.

Convergence diagnostics (rank-normalised split R-hat, bulk ESS, divergent
transitions) are computed on every fit and surfaced as :class:`StanConvergenceWarning`.

Examples
--------
>>> from idrisk.stan.backend import StanProgram
>>> prog = StanProgram("weighted_normal_known_sd")          # doctest: +SKIP
>>> fit = prog.sample({"N": 2, "y": [0.0, 1.0], "w": [1.0, 1.0], "sigma": 1.0,
...                    "m0": 0.0, "s0": 10.0}, seed=1)     # doctest: +SKIP
>>> fit.draws["mu"].shape                                   # doctest: +SKIP
(4, 1000)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import importlib.resources
import importlib.util
import io
import logging
import os
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._cache import cache_dir
from .._result import Result, frozen_update
from ..exceptions import StanBackendError, StanConvergenceWarning

__all__ = [
    "BACKENDS",
    "StanBackendError",
    "StanConvergenceWarning",
    "StanFit",
    "StanProgram",
    "available_backends",
    "cmdstan_path",
    "cmdstan_version",
    "convergence_table",
    "ess_bulk",
    "program_path",
    "rhat",
    "select_backend",
]

BACKENDS = ("cmdstanpy", "pystan")

_log = logging.getLogger("idrisk.stan")
_REPORTED: set[tuple[str, str]] = set()


def _report(backend: str, why: str) -> None:
    """Log ``backend="auto"``'s choice and reason, once per process for each distinct one."""
    if (backend, why) in _REPORTED:
        return
    _REPORTED.add((backend, why))
    if not _log.handlers:  # visible by default; configure or silence the logger to change it
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        _log.addHandler(handler)
        _log.propagate = False
        if _log.level == logging.NOTSET:
            _log.setLevel(logging.INFO)
    _log.info("backend='auto' chose %s: %s (pass backend= or set IDRISK_STAN_BACKEND to pin "
              "one)", backend, why)


# --------------------------------------------------------------------------- discovery


def program_path(name: str) -> Path:
    """Locate the Stan program ``<name>.stan`` shipped with idrisk.

    Looks in the directory named by the ``IDRISK_STAN_PROGRAMS`` environment variable
    (when set), then in the installed package data ``idrisk/stan_programs``, and falls
    back to ``<repo>/stan`` for editable installs.

    Parameters
    ----------
    name : str
        Program name without the ``.stan`` suffix, e.g. ``"weighted_negbin"``.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> program_path("weighted_negbin").name
    'weighted_negbin.stan'
    """
    fname = name if name.endswith(".stan") else f"{name}.stan"
    candidates: list[Path] = []
    override = os.environ.get("IDRISK_STAN_PROGRAMS")
    if override:  # a directory of programs that wins (e.g. mutated copies in a mutation run)
        candidates.append(Path(override).expanduser() / fname)
    with contextlib.suppress(ModuleNotFoundError, FileNotFoundError, TypeError):
        res = importlib.resources.files("idrisk").joinpath("stan_programs").joinpath(fname)
        candidates.append(Path(str(res)))
    candidates.append(Path(__file__).resolve().parents[2] / "stan" / fname)
    for cand in candidates:
        if cand.is_file():
            return cand
    raise FileNotFoundError(
        f"Stan program {fname!r} not found in idrisk/stan_programs or <repo>/stan "
        f"(looked at: {', '.join(str(c) for c in candidates)})"
    )


def cmdstan_path() -> Path | None:
    """Return the CmdStan installation directory, or None when there is none.

    The ``CMDSTAN`` environment variable wins; otherwise cmdstanpy's default
    location (``~/.cmdstan/cmdstan-*``) is searched.

    Raises
    ------
    StanBackendError
        ``CMDSTAN`` is set but does not point at a CmdStan installation (a directory with
        CmdStan's ``makefile`` and ``bin/stanc``); the message names the path.
    """
    env = os.environ.get("CMDSTAN")
    if env:
        p = Path(env).expanduser()
        if not _is_cmdstan_home(p):
            raise StanBackendError(
                f"CMDSTAN={env!r} is not a CmdStan installation: {p} has no CmdStan makefile "
                "with CMDSTAN_VERSION (and bin/stanc); point CMDSTAN at the directory made by "
                "cmdstanpy.install_cmdstan(), or unset it"
            )
        return p
    if importlib.util.find_spec("cmdstanpy") is None:
        return None
    import cmdstanpy

    log = logging.getLogger("cmdstanpy")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            home = Path(cmdstanpy.cmdstan_path())
    except (ValueError, RuntimeError, OSError):
        return None
    finally:
        log.setLevel(level)
    return home if _is_cmdstan_home(home) else None


def _is_cmdstan_home(p: Path) -> bool:
    return cmdstan_version(p) is not None and (
        (p / "bin" / "stanc").is_file() or (p / "bin" / "stanc.exe").is_file()
    )


def cmdstan_version(home: Path | str) -> str | None:
    """CmdStan version (``"2.35.0"``) read from ``<home>/makefile``, or None.

    Examples
    --------
    >>> cmdstan_version("/nonexistent") is None
    True
    """
    makefile = Path(home) / "makefile"
    if not makefile.is_file():
        return None
    for line in makefile.read_text(errors="replace").splitlines():
        if line.startswith("CMDSTAN_VERSION"):
            return line.split("=", 1)[-1].strip() or None
    return None


def _pystan_available() -> bool:
    # find_spec, not import: choosing cmdstanpy must not import PyStan (and its aiohttp,
    # httpstan) as a side effect.
    return importlib.util.find_spec("stan") is not None


def available_backends() -> list[str]:
    """Backends usable on this machine, in order of preference."""
    out = []
    if cmdstan_path() is not None and importlib.util.find_spec("cmdstanpy") is not None:
        out.append("cmdstanpy")
    if _pystan_available():
        out.append("pystan")
    return out


def select_backend(backend: str = "auto") -> str:
    """Resolve ``"auto"`` / ``"cmdstanpy"`` / ``"pystan"`` to a usable backend name.

    ``"auto"`` follows the rule of the module's notes (``IDRISK_STAN_BACKEND``, then
    cmdstanpy where CmdStan is installed, then PyStan) and logs the choice and its reason
    once per process on the logger ``idrisk.stan``.

    Raises
    ------
    StanBackendError
        If the requested backend (or, for ``"auto"``, any backend) is unavailable.
    """
    if backend not in ("auto", *BACKENDS):
        raise ValueError(f"backend must be 'auto', 'cmdstanpy' or 'pystan', got {backend!r}")
    if backend == "auto":
        pinned = os.environ.get("IDRISK_STAN_BACKEND", "").strip().lower()
        if pinned:
            if pinned not in BACKENDS:
                raise ValueError(
                    f"IDRISK_STAN_BACKEND must be 'cmdstanpy' or 'pystan', got {pinned!r}"
                )
            chosen = select_backend(pinned)
            _report(chosen, f"IDRISK_STAN_BACKEND={pinned}")
            return chosen
        avail = available_backends()
        if not avail:
            raise StanBackendError(
                "No Stan backend can compile programs: CmdStan was not found (set the CMDSTAN "
                "environment variable or run python -m cmdstanpy.install_cmdstan) and PyStan 3 "
                "is not installed (pip install 'idrisk[stan]')."
            )
        if avail[0] == "cmdstanpy":
            home = cmdstan_path()
            assert home is not None  # cmdstanpy is available only with a CmdStan install
            where = "CMDSTAN" if os.environ.get("CMDSTAN") else "cmdstanpy's default location"
            why = f"CmdStan {cmdstan_version(home)} found at {home} ({where})"
        else:
            why = ("no CmdStan installation found (CMDSTAN unset, none in ~/.cmdstan) and PyStan "
                   "is installed")
        _report(avail[0], why)
        return avail[0]
    usable = (
        cmdstan_path() is not None and importlib.util.find_spec("cmdstanpy") is not None
        if backend == "cmdstanpy"
        else _pystan_available()
    )
    if not usable:
        why = (
            "CmdStan was not found (set CMDSTAN or run python -m cmdstanpy.install_cmdstan) "
            "or cmdstanpy is not installed"
            if backend == "cmdstanpy"
            else "the 'stan' package (PyStan 3) is not installed (pip install 'idrisk[stan]')"
        )
        raise StanBackendError(f"Stan backend {backend!r} is unavailable: {why}.")
    return backend


@contextlib.contextmanager
def _quiet_cmdstanpy(quiet: bool = True):
    """Raise cmdstanpy's logger to WARNING while ``quiet`` (its INFO lines are progress)."""
    try:  # let cmdstanpy set up its logger first: its first get_logger() resets the level
        from cmdstanpy.utils import get_logger

        log = get_logger()
    except ImportError:  # pragma: no cover
        log = logging.getLogger("cmdstanpy")
    level = log.level
    if quiet:
        log.setLevel(logging.WARNING)
    try:
        yield
    finally:
        log.setLevel(level)


@contextlib.contextmanager
def _pystan_build_outside_cwd():
    """Point setuptools' build folder (httpstan compiles with ``build_ext``, whose default is
    ``./build``) at idrisk's cache directory while PyStan runs."""
    base = cache_dir("stan") / "pystan-build"
    base.mkdir(parents=True, exist_ok=True)
    cfg = base / "setup.cfg"
    text = f"[build]\nbuild_base = {base}\n"
    if not cfg.is_file() or cfg.read_text() != text:
        tmp = base / f".setup.{os.getpid()}.cfg.tmp"
        tmp.write_text(text)
        os.replace(tmp, cfg)
    old = os.environ.get("DIST_EXTRA_CONFIG")
    os.environ["DIST_EXTRA_CONFIG"] = str(cfg)
    try:
        yield base
    finally:
        if old is None:
            os.environ.pop("DIST_EXTRA_CONFIG", None)
        else:
            os.environ["DIST_EXTRA_CONFIG"] = old


class _DropConvergenceSummary(logging.Filter):
    """cmdstanpy's end-of-run summary of divergences, tree-depth saturation and E-BFMI: idrisk
    reports the same (:class:`StanConvergenceWarning`, both backends), so it is not repeated."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Some chains may have failed to converge")


def _run_maybe_in_thread(fn, *args, **kwargs):
    """Run ``fn`` directly, or in a worker thread when an event loop is already running.

    PyStan calls ``asyncio.run``, which fails inside a running loop (e.g. Jupyter).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return fn(*args, **kwargs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn, *args, **kwargs).result()


# --------------------------------------------------------------------------- diagnostics
# Rank-normalised split R-hat and bulk ESS (Vehtari, Gelman, Simpson, Carpenter & Buerkner
# 2021, "Rank-normalization, folding, and localization"), written from the paper's formulas.


def _as_chains(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.ndim == 1:
        x = x[None, :]
    if x.ndim != 2:
        raise ValueError(f"draws must have shape (chains, draws), got {x.shape}")
    return x


def _split(x: np.ndarray) -> np.ndarray:
    half = x.shape[1] // 2
    if half < 2:
        raise ValueError("need at least 4 draws per chain for split diagnostics")
    return np.concatenate([x[:, :half], x[:, x.shape[1] - half :]], axis=0)


def _z_scale(x: np.ndarray) -> np.ndarray:
    ranks = stats.rankdata(x, method="average").reshape(x.shape)
    return stats.norm.ppf((ranks - 0.375) / (x.size + 0.25))


def _rhat_basic(x: np.ndarray) -> float:
    n = x.shape[1]
    w = np.mean(np.var(x, axis=1, ddof=1))
    b = n * np.var(np.mean(x, axis=1), ddof=1)
    if w == 0:
        return float("nan") if b == 0 else float("inf")
    return float(np.sqrt(((n - 1) / n * w + b / n) / w))


def rhat(x: np.ndarray) -> float:
    """Rank-normalised split R-hat: the larger of the bulk and the folded (tail) value.

    Parameters
    ----------
    x : array, shape (chains, draws)

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> round(rhat(rng.normal(size=(4, 1000))), 2)
    1.0
    """
    x = _split(_as_chains(x))
    if np.ptp(x) == 0:
        return float("nan")
    bulk = _rhat_basic(_z_scale(x))
    folded = _rhat_basic(_z_scale(np.abs(x - np.median(x))))
    return max(bulk, folded)


def _autocov(x: np.ndarray) -> np.ndarray:
    n = x.shape[1]
    xc = x - x.mean(axis=1, keepdims=True)
    nfft = 1 << int(np.ceil(np.log2(2 * n)))
    f = np.fft.rfft(xc, n=nfft, axis=1)
    return np.fft.irfft(f * np.conj(f), n=nfft, axis=1)[:, :n] / n


def _ess(x: np.ndarray) -> float:
    m, n = x.shape
    acov = _autocov(x)
    mean_var = np.mean(acov[:, 0]) * n / (n - 1)
    var_plus = mean_var * (n - 1) / n
    if m > 1:
        var_plus += np.var(x.mean(axis=1), ddof=1)
    if var_plus == 0:
        return float("nan")
    rho = np.zeros(n)
    rho_even, rho_odd = 1.0, 1 - (mean_var - np.mean(acov[:, 1])) / var_plus
    rho[0], rho[1] = rho_even, rho_odd
    t = 1
    while t < n - 3 and rho_even + rho_odd > 0:
        rho_even = 1 - (mean_var - np.mean(acov[:, t + 1])) / var_plus
        rho_odd = 1 - (mean_var - np.mean(acov[:, t + 2])) / var_plus
        if rho_even + rho_odd >= 0:
            rho[t + 1], rho[t + 2] = rho_even, rho_odd
        t += 2
    max_t = t - 2
    if rho_even > 0:
        rho[max_t + 1] = rho_even
    t = 1  # Geyer's initial monotone sequence
    while t <= max_t - 2:
        if rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t]:
            rho[t + 1] = rho[t + 2] = (rho[t - 1] + rho[t]) / 2
        t += 2
    tau = -1 + 2 * np.sum(rho[: max_t + 1]) + np.sum(rho[max_t + 1 : max_t + 2])
    tau = max(tau, 1 / np.log10(m * n))
    return float(m * n / tau)


def ess_bulk(x: np.ndarray) -> float:
    """Bulk effective sample size (rank-normalised split chains, Geyer's monotone sequence).

    Parameters
    ----------
    x : array, shape (chains, draws)

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> 3000 < ess_bulk(rng.normal(size=(4, 1000))) < 5000
    True
    """
    x = _split(_as_chains(x))
    if np.ptp(x) == 0:
        return float("nan")
    return _ess(_z_scale(x))


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, repr=False, eq=False)
class StanFit(Result):
    """Posterior draws of one Stan run.

    Attributes
    ----------
    draws : dict of str -> numpy.ndarray
        Each model variable with shape ``(chains, draws, *dims)``.
    sampler : dict of str -> numpy.ndarray
        Sampler variables (``lp__``, ``divergent__``, ``treedepth__``...), ``(chains, draws)``.
    diagnostics : pandas.DataFrame
        One row per checked scalar: ``rhat``, ``ess_bulk``.
    n_divergent : int
        Number of divergent transitions after warm-up.
    backend, program : str
        Which engine and which program produced the fit.
    seed, chains, warmup, iter_sampling : int
        The settings used.
    """

    draws: dict[str, np.ndarray]
    sampler: dict[str, np.ndarray]
    backend: str
    program: str
    seed: int
    chains: int
    warmup: int
    iter_sampling: int
    diagnostics: pd.DataFrame = field(default_factory=pd.DataFrame)
    n_divergent: int = 0
    messages: tuple[str, ...] = ()

    def summary(self) -> pd.DataFrame:
        """The convergence table: R-hat and bulk ESS of every checked scalar."""
        return self.diagnostics

    def _notes(self) -> list[str]:
        return list(self.messages)

    def _header(self) -> str:
        worst = (
            f"max R-hat {self.diagnostics['rhat'].max():.3f}, "
            f"min bulk ESS {self.diagnostics['ess_bulk'].min():.0f}"
            if len(self.diagnostics)
            else "no diagnostics"
        )
        return (
            f"StanFit(program={self.program!r}, backend={self.backend!r}, chains={self.chains}, "
            f"draws={self.iter_sampling}, warmup={self.warmup}, seed={self.seed}, "
            f"divergent={self.n_divergent}, {worst})"
        )

    @property
    def n_draws(self) -> int:
        """Total number of post-warm-up draws (all chains)."""
        return self.chains * self.iter_sampling

    def stacked(self, name: str) -> np.ndarray:
        """Draws of ``name`` with chains stacked: shape ``(chains * draws, *dims)``."""
        arr = self.draws[name]
        return arr.reshape((arr.shape[0] * arr.shape[1], *arr.shape[2:]))  # works for size 0

    def to_frame(self) -> pd.DataFrame:
        """Flat draws: one row per draw, columns ``chain``, ``draw``, ``lp__`` and scalars
        named like Stan's (``beta[1,2]``, 1-based)."""
        cols: dict[str, np.ndarray] = {
            "chain": np.repeat(np.arange(1, self.chains + 1), self.iter_sampling),
            "draw": np.tile(np.arange(1, self.iter_sampling + 1), self.chains),
        }
        if "lp__" in self.sampler:
            cols["lp__"] = self.sampler["lp__"].reshape(-1)
        for name, arr in self.draws.items():
            for label, series in _flatten_variable(name, arr):
                cols[label] = series.reshape(-1)
        return pd.DataFrame(cols)


def _flatten_variable(name: str, arr: np.ndarray):
    dims = arr.shape[2:]
    if not dims:
        yield name, arr
        return
    for idx in np.ndindex(*dims):
        label = f"{name}[{','.join(str(i + 1) for i in idx)}]"
        yield label, arr[(slice(None), slice(None)) + tuple(idx)]


def convergence_table(
    draws: Mapping[str, np.ndarray], variables: list[str] | None = None
) -> pd.DataFrame:
    """R-hat and bulk ESS of every scalar in ``draws`` (arrays ``(chains, draws, *dims)``).

    Parameters
    ----------
    draws : mapping
        Variable name to draws.
    variables : list of str, optional
        Subset to check (default all).
    """
    rows = []
    names = list(draws) if variables is None else variables
    for name in names:
        if name not in draws:
            raise KeyError(f"variable {name!r} not among the draws ({', '.join(draws)})")
        for label, series in _flatten_variable(name, np.asarray(draws[name], dtype=float)):
            rows.append({"variable": label, "rhat": rhat(series), "ess_bulk": ess_bulk(series)})
    return pd.DataFrame(rows, columns=["variable", "rhat", "ess_bulk"]).set_index("variable")


# --------------------------------------------------------------------------- program


class StanProgram:
    """A Stan program bound to a backend.

    Parameters
    ----------
    name : str
        Program shipped with idrisk (``"weighted_mixture_normal"``, ``"weighted_negbin"``,
        ``"weighted_normal_known_sd"``) or a path to a ``.stan`` file.
    backend : {"auto", "cmdstanpy", "pystan"}
        Engine; ``"auto"`` prefers cmdstanpy when CmdStan is installed.

    Examples
    --------
    >>> prog = StanProgram("weighted_negbin", backend="pystan")   # doctest: +SKIP
    >>> prog.compile()                                           # doctest: +SKIP
    """

    def __init__(self, name: str | os.PathLike, backend: str = "auto") -> None:
        p = Path(name)
        self.path = p if p.suffix == ".stan" and p.is_file() else program_path(str(name))
        self.name = self.path.stem
        self.code = self.path.read_text()
        self.backend = select_backend(backend)
        self._cmdstan_model: Any = None  # a cmdstanpy.CmdStanModel once compiled
        self._compiled = False

    def __repr__(self) -> str:
        state = "compiled" if self._compiled else "not compiled"
        return f"StanProgram({self.name!r}, backend={self.backend!r}, {state})"

    # ------------------------------------------------------------------ compile
    def compile(self) -> StanProgram:
        """Compile the program (a no-op when this machine's cache already holds it)."""
        if self._compiled:
            return self
        if self.backend == "cmdstanpy":
            self._compile_cmdstan()
        else:
            with _pystan_build_outside_cwd():
                _run_maybe_in_thread(self._compile_pystan)
        self._compiled = True
        return self

    def _compile_pystan(self) -> None:
        import aiohttp
        import httpstan.models
        import stan.common

        async def go():
            async with stan.common.HttpstanClient() as client:
                # aiohttp's default 5-minute limit cuts a compile short on a busy machine and
                # leaves httpstan's cache entry half written: no limit here
                await client.session.close()
                client.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
                resp = await client.post("/models", json={"program_code": self.code})
                if resp.status != 201:
                    raise StanBackendError(
                        f"PyStan could not compile {self.name}.stan: {resp.json().get('message')}"
                    )
                return resp.json()["name"]

        name = asyncio.run(go())
        if name != httpstan.models.calculate_model_name(self.code):  # pragma: no cover
            raise StanBackendError("httpstan returned an unexpected model name")

    def cmdstan_cache_dir(self, home: Path | str) -> Path:
        """Where the CmdStan executable of this program is cached for the install ``home``.

        The key hashes the program text, the install's resolved path and its CmdStan
        version, so upgrading CmdStan in place never reuses an old executable. The base is
        the ``stan`` folder of idrisk's cache directory (``IDRISK_CACHE_DIR``, else the
        platform's user cache directory).
        """
        home = Path(home)
        key = f"{self.code}\0{home.resolve()}\0{cmdstan_version(home)}"
        digest = hashlib.sha256(key.encode()).hexdigest()[:16]
        return cache_dir("stan") / f"{self.name}-{digest}"

    def _compile_cmdstan(self) -> None:
        import cmdstanpy

        home = cmdstan_path()
        if home is None:
            raise StanBackendError("CmdStan not found (set CMDSTAN or install it)")
        version = cmdstan_version(home)
        with _quiet_cmdstanpy():
            cmdstanpy.set_cmdstan_path(str(home))
        target_dir = self.cmdstan_cache_dir(home)
        target_dir.mkdir(parents=True, exist_ok=True)
        stan_file = target_dir / f"{self.name}.stan"
        # Two processes compiling the same program: one holds the lock and builds, the
        # other waits and then finds the executable up to date.  The .stan file is
        # written to a temporary name and renamed (atomic), never half-written.
        with _file_lock(target_dir / ".compile.lock"):
            if not stan_file.is_file() or stan_file.read_text() != self.code:
                tmp = target_dir / f".{self.name}.{os.getpid()}.stan.tmp"
                tmp.write_text(self.code)
                os.replace(tmp, stan_file)
            try:
                with _quiet_cmdstanpy():
                    self._cmdstan_model = cmdstanpy.CmdStanModel(stan_file=str(stan_file))
            except Exception as exc:  # cmdstanpy raises ValueError/RuntimeError on failure
                raise StanBackendError(
                    f"CmdStan {version} at {home} could not compile {self.name}.stan: {exc}"
                ) from exc

    # ------------------------------------------------------------------ sample
    def sample(
        self,
        data: Mapping[str, Any],
        *,
        seed: int,
        chains: int = 4,
        warmup: int = 1000,
        draws: int = 1000,
        adapt_delta: float = 0.8,
        max_treedepth: int = 10,
        progress: bool = True,
        check: list[str] | None = None,
        rhat_threshold: float = 1.05,
        ess_threshold: float = 100.0,
    ) -> StanFit:
        """Run NUTS and return the draws.

        Parameters
        ----------
        data : mapping
            The program's data (numpy arrays and pandas objects are converted).
        seed : int
            Random seed (positive); the same seed gives the same draws on one backend.
        chains, warmup, draws : int
            Number of chains, warm-up iterations and kept draws per chain.
        adapt_delta, max_treedepth : float, int
            NUTS tuning.
        progress : bool
            Show the sampler's progress.
        check : list of str, optional
            Variables whose R-hat / bulk ESS are checked (default: every variable; pass
            label-invariant quantities such as ``["lp__"]`` for mixtures).
        rhat_threshold, ess_threshold : float
            Warn when any R-hat exceeds / bulk ESS falls below these.

        Returns
        -------
        StanFit
        """
        if not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        for arg, val in (("chains", chains), ("warmup", warmup), ("draws", draws)):
            if int(val) < 1:
                raise ValueError(f"{arg} must be a positive integer, got {val!r}")
        data = _to_stan_data(data)
        self.compile()
        if self.backend == "cmdstanpy":
            fit = self._sample_cmdstan(
                data, seed, chains, warmup, draws, adapt_delta, max_treedepth, progress
            )
        else:
            with _pystan_build_outside_cwd():
                fit = _run_maybe_in_thread(
                    self._sample_pystan,
                    data, seed, chains, warmup, draws, adapt_delta, max_treedepth, progress,
                )
        _check_convergence(fit, check, rhat_threshold, ess_threshold, max_treedepth)
        return fit

    def _sample_pystan(self, data, seed, chains, warmup, draws, adapt_delta, treedepth, progress):
        import stan

        sink = contextlib.nullcontext() if progress else contextlib.redirect_stderr(io.StringIO())
        out_sink = contextlib.redirect_stdout(io.StringIO() if not progress else sys.stderr)
        try:
            with sink, out_sink:
                model = stan.build(self.code, data=dict(data), random_seed=int(seed) + 1)
                fit = model.sample(
                    num_chains=chains,
                    num_warmup=warmup,
                    num_samples=draws,
                    delta=adapt_delta,
                    max_depth=treedepth,
                )
        except (ValueError, RuntimeError) as exc:
            raise StanBackendError(f"PyStan failed on {self.name}.stan: {exc}") from exc
        out: dict[str, np.ndarray] = {}
        for pname, dims in zip(fit.param_names, fit.dims, strict=True):
            arr = np.asarray(fit[pname])  # dims + (draws * chains,), chain index fastest
            arr = arr.reshape((*dims, draws, chains)) if dims else arr.reshape(draws, chains)
            arr = np.moveaxis(arr, [-1, -2], [0, 1])
            out[pname] = np.ascontiguousarray(arr)
        sampler = {}
        for sname in fit.sample_and_sampler_param_names:
            sampler[sname] = np.asarray(fit[sname]).reshape(draws, chains).T.copy()
        return StanFit(
            draws=out, sampler=sampler, backend="pystan", program=self.name, seed=int(seed),
            chains=chains, warmup=warmup, iter_sampling=draws,
        )

    def _sample_cmdstan(self, data, seed, chains, warmup, draws, adapt_delta, treedepth, progress):
        model = self._cmdstan_model
        drop = _DropConvergenceSummary()
        log = logging.getLogger("cmdstanpy")
        log.addFilter(drop)
        try:
            with _quiet_cmdstanpy(not progress):
                fit = model.sample(
                    data=dict(data),
                    chains=chains,
                    parallel_chains=min(chains, os.cpu_count() or 1),
                    iter_warmup=warmup,
                    iter_sampling=draws,
                    seed=int(seed),
                    adapt_delta=adapt_delta,
                    max_treedepth=treedepth,
                    show_progress=progress,
                )
        except (ValueError, RuntimeError) as exc:
            raise StanBackendError(f"CmdStan failed on {self.name}.stan: {exc}") from exc
        finally:
            log.removeFilter(drop)
        out = {}
        for vname, var in fit.metadata.stan_vars.items():
            arr = np.asarray(fit.stan_variable(vname))  # (chains * draws, *dims), chain-major
            out[vname] = arr.reshape((chains, draws, *tuple(var.dimensions)))
        sampler = {
            k: np.asarray(v).reshape(draws, chains).T.copy()  # (draws, chains) -> (chains, draws)
            for k, v in fit.method_variables().items()
        }
        return StanFit(
            draws=out, sampler=sampler, backend="cmdstanpy", program=self.name, seed=int(seed),
            chains=chains, warmup=warmup, iter_sampling=draws,
        )

    # ------------------------------------------------------------------ log density
    def log_prob(
        self, data: Mapping[str, Any], params: Mapping[str, Any], *, jacobian: bool = False
    ) -> float:
        """The program's log density (Stan's ``target``) at given parameter values.

        Use it to check a model against an independent implementation: ``target``
        includes every ``target +=`` term exactly; ``~`` statements drop constants, as
        Stan always does.

        Parameters
        ----------
        data : mapping
            The program's data.
        params : mapping
            Values of every parameter on the constrained (natural) scale.
        jacobian : bool
            Add the log Jacobian of the unconstraining transform (False: the density of
            the model as written).

        Returns
        -------
        float
        """
        data = _to_stan_data(data)
        params = {
            k: (np.asarray(v).tolist() if isinstance(v, (np.ndarray, pd.Series)) else v)
            for k, v in params.items()
        }
        self.compile()
        if self.backend == "cmdstanpy":
            try:
                with _quiet_cmdstanpy():
                    out = self._cmdstan_model.log_prob(
                        params=params, data=dict(data), jacobian=jacobian, sig_figs=18
                    )
            except (ValueError, RuntimeError) as exc:
                raise StanBackendError(f"CmdStan log_prob failed on {self.name}: {exc}") from exc
            return float(out["lp__"].iloc[0])
        with _pystan_build_outside_cwd():
            return float(_run_maybe_in_thread(self._log_prob_pystan, data, params, jacobian))

    def _log_prob_pystan(self, data, params, jacobian: bool) -> float:
        import stan

        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            try:
                model = stan.build(self.code, data=dict(data), random_seed=1)
                unc = model.unconstrain_pars(dict(params))
                return model.log_prob(unc, adjust_transform=jacobian)
            except (ValueError, RuntimeError, KeyError) as exc:
                raise StanBackendError(f"PyStan log_prob failed on {self.name}: {exc}") from exc


@contextlib.contextmanager
def _file_lock(path: Path):
    """Exclusive advisory lock on ``path`` (POSIX ``flock``; a no-op where unavailable)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(path, "a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _to_stan_data(data: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, val in data.items():
        if isinstance(val, (pd.Series, pd.DataFrame)):
            val = val.to_numpy()
        if isinstance(val, np.ndarray):
            if not np.all(np.isfinite(val.astype(float))):
                raise ValueError(f"Stan data {key!r} contains non-finite values")
            val = val.tolist()
        elif isinstance(val, np.generic):
            val = val.item()
        out[key] = val
    return out


def _ebfmi(energy: np.ndarray) -> np.ndarray:
    """E-BFMI of each chain: mean squared energy change over the energy's variance."""
    energy = np.asarray(energy, dtype=float)
    num = np.mean(np.diff(energy, axis=1) ** 2, axis=1)
    return num / np.var(energy, axis=1)


def _check_convergence(fit: StanFit, check, rhat_threshold, ess_threshold,
                       max_treedepth: int | None = None) -> None:
    """Diagnostics of both backends, reported once as :class:`StanConvergenceWarning`:
    divergences, tree-depth saturation, E-BFMI < 0.3, R-hat and bulk ESS."""
    if "divergent__" in fit.sampler:
        frozen_update(fit, n_divergent=int(np.sum(fit.sampler["divergent__"])))
    table_in = dict(fit.draws)
    if "lp__" in fit.sampler:
        table_in["lp__"] = fit.sampler["lp__"]
    names = check if check is not None else list(table_in)
    frozen_update(fit, diagnostics=convergence_table(table_in, names))
    msgs = []
    if fit.n_divergent:
        msgs.append(
            f"{fit.n_divergent} divergent transitions after warm-up "
            f"({100 * fit.n_divergent / fit.n_draws:.1f}% of draws); consider a larger adapt_delta"
        )
    if max_treedepth is not None and "treedepth__" in fit.sampler:
        saturated = int(np.sum(fit.sampler["treedepth__"] >= max_treedepth))
        if saturated:
            msgs.append(
                f"{saturated} transitions hit the maximum tree depth {max_treedepth} "
                f"({100 * saturated / fit.n_draws:.1f}% of draws); consider a larger "
                "max_treedepth"
            )
    if "energy__" in fit.sampler and fit.iter_sampling > 2:
        low = [c + 1 for c, v in enumerate(_ebfmi(fit.sampler["energy__"])) if v < 0.3]
        if low:
            msgs.append(f"E-BFMI below 0.3 in chain(s) {low}: the sampler may explore poorly")
    d = fit.diagnostics
    bad_r = d.index[d["rhat"] > rhat_threshold]
    if len(bad_r):
        msgs.append(
            f"R-hat above {rhat_threshold} for {len(bad_r)} quantities "
            f"(max {d['rhat'].max():.3f} at {d['rhat'].idxmax()}); run longer chains"
        )
    bad_e = d.index[d["ess_bulk"] < ess_threshold]
    if len(bad_e):
        msgs.append(
            f"bulk ESS below {ess_threshold:.0f} for {len(bad_e)} quantities "
            f"(min {d['ess_bulk'].min():.0f} at {d['ess_bulk'].idxmin()})"
        )
    frozen_update(fit, messages=tuple(msgs))
    for m in msgs:
        warnings.warn(f"{fit.program}: {m}", StanConvergenceWarning, stacklevel=3)
