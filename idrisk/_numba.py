"""idrisk's cache directory and its one way to compile a kernel with numba.

Every compiled loop of idrisk (the counting kernels of :mod:`idrisk.risk`, rpart's split search
and routing, R's index draws, the DPMPM class step) is decorated with :func:`jit`: numba's
``njit`` with ``cache=True`` and ``nogil=True``. Compiled code is kept in idrisk's cache
directory, never next to the installed sources (site-packages may be read-only and is shared
by every user of an environment):

* ``IDRISK_CACHE_DIR`` when set (compiled kernels in its ``numba`` subfolder, Stan programs in
  ``stan``);
* else the platform's user cache directory: ``$XDG_CACHE_HOME/idrisk`` or ``~/.cache/idrisk``
  (Linux), ``~/Library/Caches/idrisk`` (macOS), ``%LOCALAPPDATA%\\idrisk\\Cache`` (Windows);
* a folder under the system's temporary directory if that one cannot be written.

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
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

__all__ = ["cache_dir", "jit", "numba_cache_dir"]

F = TypeVar("F", bound=Callable)


def _platform_cache() -> Path:
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "idrisk" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "idrisk"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "idrisk"


def _writable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError:
        return False
    return True


def cache_dir(sub: str | None = None) -> Path:
    """idrisk's cache directory (created), or its subfolder ``sub``.

    ``IDRISK_CACHE_DIR`` when set, else the platform's user cache directory, else (not
    writable) ``<tempdir>/idrisk-cache-<user>``.

    Examples
    --------
    >>> cache_dir("numba").name
    'numba'
    """
    explicit = os.environ.get("IDRISK_CACHE_DIR")
    root = Path(explicit).expanduser() if explicit else _platform_cache()
    path = root / sub if sub else root
    if not _writable(path):
        user = os.environ.get("USER") or os.environ.get("USERNAME") or "user"
        root = Path(tempfile.gettempdir()) / f"idrisk-cache-{user}"
        path = root / sub if sub else root
        path.mkdir(parents=True, exist_ok=True)
    return path


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
