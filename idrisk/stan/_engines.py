"""One adapter per Stan engine: how CmdStan (through cmdstanpy) and PyStan 3 compile a program,
sample it and evaluate its log density. :class:`~idrisk.stan.backend.StanProgram` holds one
adapter and never branches on the engine; both return the same :class:`StanFit` layout
(draws ``(chains, draws, *dims)``, sampler variables ``(chains, draws)``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .._cache import cache_dir
from ..exceptions import StanBackendError
from ._discovery import cmdstan_path, cmdstan_version
from ._fit import StanFit
from ._runtime import (
    _DropConvergenceSummary,
    _file_lock,
    _pystan_build_outside_cwd,
    _quiet_cmdstanpy,
    _run_maybe_in_thread,
)

__all__ = ["ENGINES", "CmdStanEngine", "Engine", "PyStanEngine", "cmdstan_cache_dir"]


def cmdstan_cache_dir(name: str, code: str, home: Path | str) -> Path:
    """Where the CmdStan executable of program ``name`` (text ``code``) is cached for the
    install ``home``: the key hashes the program text, the install's resolved path and its
    CmdStan version, so upgrading CmdStan in place never reuses an old executable."""
    home = Path(home)
    key = f"{code}\0{home.resolve()}\0{cmdstan_version(home)}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return cache_dir("stan") / f"{name}-{digest}"


class Engine:
    """The three things a Stan engine does for a :class:`~idrisk.stan.backend.StanProgram`
    (``program``: its ``name``, ``code`` and ``cmdstan_cache_dir``)."""

    name = ""

    def __init__(self, program: Any) -> None:
        self.program = program

    def compile(self) -> None:
        raise NotImplementedError

    def sample(self, data: Mapping[str, Any], seed: int, chains: int, warmup: int, draws: int,
               adapt_delta: float, max_treedepth: int, progress: bool) -> StanFit:
        raise NotImplementedError

    def log_prob(self, data: Mapping[str, Any], params: Mapping[str, Any],
                 jacobian: bool) -> float:
        raise NotImplementedError

    def _fit(self, draws_: dict, sampler: dict, seed: int, chains: int, warmup: int,
             draws: int) -> StanFit:
        return StanFit(draws=draws_, sampler=sampler, backend=self.name,
                       program=self.program.name, seed=int(seed), chains=chains, warmup=warmup,
                       iter_sampling=draws)


class CmdStanEngine(Engine):
    """CmdStan through cmdstanpy: the executable is built once per program, CmdStan version
    and install, in idrisk's cache directory."""

    name = "cmdstanpy"

    def __init__(self, program: Any) -> None:
        super().__init__(program)
        self.model: Any = None  # a cmdstanpy.CmdStanModel once compiled

    def compile(self) -> None:
        import cmdstanpy

        prog = self.program
        home = cmdstan_path()
        if home is None:
            raise StanBackendError("CmdStan not found (set CMDSTAN or install it)")
        version = cmdstan_version(home)
        with _quiet_cmdstanpy():
            cmdstanpy.set_cmdstan_path(str(home))
        target_dir = prog.cmdstan_cache_dir(home)
        target_dir.mkdir(parents=True, exist_ok=True)
        stan_file = target_dir / f"{prog.name}.stan"
        # Two processes compiling the same program: one holds the lock and builds, the
        # other waits and then finds the executable up to date.  The .stan file is
        # written to a temporary name and renamed (atomic), never half-written.
        with _file_lock(target_dir / ".compile.lock"):
            if not stan_file.is_file() or stan_file.read_text() != prog.code:
                tmp = target_dir / f".{prog.name}.{os.getpid()}.stan.tmp"
                tmp.write_text(prog.code)
                os.replace(tmp, stan_file)
            try:
                with _quiet_cmdstanpy():
                    self.model = cmdstanpy.CmdStanModel(stan_file=str(stan_file))
            except Exception as exc:  # cmdstanpy raises ValueError/RuntimeError on failure
                raise StanBackendError(
                    f"CmdStan {version} at {home} could not compile {prog.name}.stan: {exc}"
                ) from exc

    def sample(self, data, seed, chains, warmup, draws, adapt_delta, max_treedepth, progress):
        drop = _DropConvergenceSummary()
        log = logging.getLogger("cmdstanpy")
        log.addFilter(drop)
        try:
            with _quiet_cmdstanpy(not progress):
                fit = self.model.sample(
                    data=dict(data),
                    chains=chains,
                    parallel_chains=min(chains, os.cpu_count() or 1),
                    iter_warmup=warmup,
                    iter_sampling=draws,
                    seed=int(seed),
                    adapt_delta=adapt_delta,
                    max_treedepth=max_treedepth,
                    show_progress=progress,
                )
        except (ValueError, RuntimeError) as exc:
            raise StanBackendError(f"CmdStan failed on {self.program.name}.stan: {exc}") from exc
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
        return self._fit(out, sampler, seed, chains, warmup, draws)

    def log_prob(self, data, params, jacobian):
        try:
            with _quiet_cmdstanpy():
                out = self.model.log_prob(
                    params=params, data=dict(data), jacobian=jacobian, sig_figs=18
                )
        except (ValueError, RuntimeError) as exc:
            raise StanBackendError(
                f"CmdStan log_prob failed on {self.program.name}: {exc}") from exc
        return float(out["lp__"].iloc[0])


class PyStanEngine(Engine):
    """PyStan 3 / httpstan: compiled models live in httpstan's cache; every call runs outside
    the current directory and, inside a running event loop, in a worker thread."""

    name = "pystan"

    def compile(self) -> None:
        with _pystan_build_outside_cwd():
            _run_maybe_in_thread(self._compile)

    def _compile(self) -> None:
        import aiohttp
        import httpstan.models
        import stan.common

        prog = self.program

        async def go():
            async with stan.common.HttpstanClient() as client:
                # aiohttp's default 5-minute limit cuts a compile short on a busy machine and
                # leaves httpstan's cache entry half written: no limit here
                await client.session.close()
                client.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
                resp = await client.post("/models", json={"program_code": prog.code})
                if resp.status != 201:
                    raise StanBackendError(
                        f"PyStan could not compile {prog.name}.stan: {resp.json().get('message')}"
                    )
                return resp.json()["name"]

        name = asyncio.run(go())
        if name != httpstan.models.calculate_model_name(prog.code):  # pragma: no cover
            raise StanBackendError("httpstan returned an unexpected model name")

    def sample(self, data, seed, chains, warmup, draws, adapt_delta, max_treedepth, progress):
        with _pystan_build_outside_cwd():
            return _run_maybe_in_thread(self._sample, data, seed, chains, warmup, draws,
                                        adapt_delta, max_treedepth, progress)

    def _sample(self, data, seed, chains, warmup, draws, adapt_delta, treedepth, progress):
        import stan

        sink = contextlib.nullcontext() if progress else contextlib.redirect_stderr(io.StringIO())
        out_sink = contextlib.redirect_stdout(io.StringIO() if not progress else sys.stderr)
        try:
            with sink, out_sink:
                model = stan.build(self.program.code, data=dict(data), random_seed=int(seed) + 1)
                fit = model.sample(
                    num_chains=chains,
                    num_warmup=warmup,
                    num_samples=draws,
                    delta=adapt_delta,
                    max_depth=treedepth,
                )
        except (ValueError, RuntimeError) as exc:
            raise StanBackendError(f"PyStan failed on {self.program.name}.stan: {exc}") from exc
        out: dict[str, np.ndarray] = {}
        for pname, dims in zip(fit.param_names, fit.dims, strict=True):
            arr = np.asarray(fit[pname])  # dims + (draws * chains,), chain index fastest
            arr = arr.reshape((*dims, draws, chains)) if dims else arr.reshape(draws, chains)
            arr = np.moveaxis(arr, [-1, -2], [0, 1])
            out[pname] = np.ascontiguousarray(arr)
        sampler = {}
        for sname in fit.sample_and_sampler_param_names:
            sampler[sname] = np.asarray(fit[sname]).reshape(draws, chains).T.copy()
        return self._fit(out, sampler, seed, chains, warmup, draws)

    def log_prob(self, data, params, jacobian):
        with _pystan_build_outside_cwd():
            return float(_run_maybe_in_thread(self._log_prob, data, params, jacobian))

    def _log_prob(self, data, params, jacobian: bool) -> float:
        import stan

        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            try:
                model = stan.build(self.program.code, data=dict(data), random_seed=1)
                unc = model.unconstrain_pars(dict(params))
                return model.log_prob(unc, adjust_transform=jacobian)
            except (ValueError, RuntimeError, KeyError) as exc:
                raise StanBackendError(
                    f"PyStan log_prob failed on {self.program.name}: {exc}") from exc


#: backend name -> its adapter
ENGINES: dict[str, type[Engine]] = {"cmdstanpy": CmdStanEngine, "pystan": PyStanEngine}
