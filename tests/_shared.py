"""The one place the tests find ``../shared`` (papers, specs, fixtures, data).

Set ``IDRISK_SHARED`` to point elsewhere; otherwise ``<repo>/../shared`` is used.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """Return the shared directory, or skip the calling test when it is absent."""
    path = Path(os.environ.get("IDRISK_SHARED", REPO_ROOT.parent / "shared"))
    if not path.is_dir():
        pytest.skip(f"shared directory not found at {path} (set IDRISK_SHARED)")
    return path


def fixtures_dir(kind: str) -> Path:
    """``shared/fixtures/<kind>`` (``identification_risk`` or ``synthpop``)."""
    return shared_dir() / "fixtures" / kind


def cedata_path() -> Path:
    return shared_dir() / "data" / "CEdata.csv"


def public_modules() -> list[str]:
    """``idrisk`` and each public module directly below it that has an ``__all__``: the public
    API's scope (the reference pages, the glossary)."""
    import importlib
    import pkgutil

    import idrisk

    modules = ["idrisk"]
    for info in pkgutil.iter_modules(idrisk.__path__):
        if not info.name.startswith("_"):
            module = importlib.import_module(f"idrisk.{info.name}")
            if hasattr(module, "__all__"):
                modules.append(module.__name__)
    return modules


def require_stan_backend(backend: str) -> None:
    """Skip unless the Stan backend (``"pystan"`` or ``"cmdstanpy"``) can run here."""
    if backend == "pystan":
        pytest.importorskip("stan", reason="PyStan 3 not installed")
    else:
        from idrisk.stan.backend import cmdstan_path

        pytest.importorskip("cmdstanpy", reason="cmdstanpy not installed")
        if cmdstan_path() is None:
            pytest.skip("CmdStan not installed (set CMDSTAN or install to ~/.cmdstan)")
