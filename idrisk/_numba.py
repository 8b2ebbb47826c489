"""idrisk's one way to compile a kernel with numba, cached in idrisk's cache directory.

Every compiled loop of idrisk (the counting kernels of :mod:`idrisk.risk`, rpart's split search
and routing, R's index draws, the DPMPM class step) is decorated with :func:`jit`: numba's
``njit`` with ``cache=True`` and ``nogil=True``. Compiled code is kept in idrisk's cache
directory, never next to the installed sources (site-packages may be read-only and is shared
by every user of an environment): in the ``numba`` folder of :func:`idrisk._cache.cache_dir`
(``IDRISK_CACHE_DIR``, else the platform's user cache directory).

For numba this module sets ``NUMBA_CACHE_DIR`` before numba is imported (and numba's config if
it was imported earlier); a ``NUMBA_CACHE_DIR`` the user set is kept unless
``IDRISK_CACHE_DIR`` is set too. The first process compiles every kernel it uses (a few
seconds); later processes load them from the cache. The cache is keyed on the source files, so
an upgrade recompiles what changed.

No numba warning is expected from idrisk's kernels (each caches, none uses dynamic globals);
``tests/test_numba_cache.py`` checks that a first run prints none.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from ._cache import cache_dir

__all__ = ["jit", "numba_cache_dir"]

F = TypeVar("F", bound=Callable)


def numba_cache_dir() -> Path:
    """Where numba keeps idrisk's compiled kernels (see the module's notes)."""
    if os.environ.get("NUMBA_CACHE_DIR") and not os.environ.get("IDRISK_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    return cache_dir("numba")


def _configure() -> None:
    path = str(numba_cache_dir())
    os.environ["NUMBA_CACHE_DIR"] = path
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba was imported before idrisk: its config is already read
        config.CACHE_DIR = path


_configure()

import numba  # noqa: E402  (after NUMBA_CACHE_DIR is set)


def jit(func: F) -> F:
    """Compile ``func`` with numba (``njit``, ``cache=True``, ``nogil=True``) on first call."""
    return numba.njit(cache=True, nogil=True)(func)
