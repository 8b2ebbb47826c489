"""What running an engine needs around it: quiet loggers, PyStan's build folder outside the
current directory, a worker thread inside a running event loop, a file lock for compiling."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
from pathlib import Path

from .._cache import cache_dir


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
