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

The parts: finding programs and engines (``_discovery.py``), one adapter per engine
(``_engines.py``: CmdStan, PyStan), the fit (``_fit.py``: :class:`StanFit`), its diagnostics
(``_diagnostics.py``) and, here, the program (:class:`StanProgram`).

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

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import StanBackendError, StanConvergenceWarning
from ._diagnostics import _check_convergence, convergence_table, ess_bulk, rhat
from ._discovery import (
    BACKENDS,
    available_backends,
    cmdstan_path,
    cmdstan_version,
    program_path,
    select_backend,
)
from ._engines import ENGINES, cmdstan_cache_dir
from ._fit import StanFit

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
        self._engine = ENGINES[self.backend](self)  # the one adapter of this engine
        self._compiled = False

    def __repr__(self) -> str:
        state = "compiled" if self._compiled else "not compiled"
        return f"StanProgram({self.name!r}, backend={self.backend!r}, {state})"

    # ------------------------------------------------------------------ compile
    def compile(self) -> StanProgram:
        """Compile the program (a no-op when this machine's cache already holds it)."""
        if self._compiled:
            return self
        self._engine.compile()
        self._compiled = True
        return self

    def cmdstan_cache_dir(self, home: Path | str) -> Path:
        """Where the CmdStan executable of this program is cached for the install ``home``.

        The key hashes the program text, the install's resolved path and its CmdStan
        version, so upgrading CmdStan in place never reuses an old executable. The base is
        the ``stan`` folder of idrisk's cache directory (``IDRISK_CACHE_DIR``, else the
        platform's user cache directory).
        """
        return cmdstan_cache_dir(self.name, self.code, home)

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
        fit = self._engine.sample(data, int(seed), chains, warmup, draws, adapt_delta,
                                  max_treedepth, progress)
        _check_convergence(fit, check, rhat_threshold, ess_threshold, max_treedepth)
        return fit

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
        return self._engine.log_prob(data, params, jacobian)


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
