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

Loading a cached kernel is cheap; what a new process waits for is numba's set-up. Before its
first cache load numba refreshes its target context: it imports some 200 modules of lowering
rules (and, through its BLAS check, ``scipy.linalg``), about 0.25 s on a 2-core machine, and
none of it is used to run machine code that is already compiled. idrisk's kernels therefore
load through :class:`_KernelCache`, numba's own per-function cache with that refresh left
out: it initialises numba's runtime (NRT), which compiled code calls, and loads. Compiling
is unchanged (numba's compiler refreshes the context itself), and should a load fail in any
way the kernel is loaded again the way numba does it, refresh included.

No numba warning is expected from idrisk's kernels (each caches, none uses dynamic globals);
``tests/test_numba_cache.py`` checks that a first run prints none, that a second process
loads every kernel from the cache without the refresh, and that it computes the same.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

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
    config: Any = sys.modules.get("numba.core.config")
    if config is not None:  # numba was imported before idrisk: its config is already read
        config.CACHE_DIR = path


_configure()

import numba  # noqa: E402  (after NUMBA_CACHE_DIR is set)
from numba.core.caching import FunctionCache  # noqa: E402
from numba.core.runtime import rtsys  # noqa: E402


class _KernelCache(FunctionCache):
    """numba's per-function cache, loading without the target context's refresh."""

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        try:
            rtsys.initialize(target_context)
            return self._load_overload(sig, target_context)
        except Exception:  # noqa: BLE001 -- numba's own path below decides and reports
            return super().load_overload(sig, target_context)


def jit(func: F) -> F:
    """Compile ``func`` with numba (``njit``, ``nogil=True``) on first call, cached.

    The cache is numba's (``cache=True``), loaded through :class:`_KernelCache`.
    """
    dispatcher = numba.njit(nogil=True)(func)
    dispatcher._cache = _KernelCache(func)
    return dispatcher
