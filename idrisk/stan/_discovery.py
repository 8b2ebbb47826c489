"""Finding Stan: the shipped programs, CmdStan's installation and version, and the one rule
by which ``backend="auto"`` chooses an engine (see :mod:`idrisk.stan.backend`)."""

from __future__ import annotations

import contextlib
import importlib.resources
import importlib.util
import io
import logging
import os
from pathlib import Path

from ..exceptions import StanBackendError

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
