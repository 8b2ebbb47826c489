"""idrisk's cache directory: compiled kernels (numba) and compiled Stan programs.

* ``IDRISK_CACHE_DIR`` when set;
* else the platform's user cache directory: ``$XDG_CACHE_HOME/idrisk`` or ``~/.cache/idrisk``
  (Linux), ``~/Library/Caches/idrisk`` (macOS), ``%LOCALAPPDATA%\\idrisk\\Cache`` (Windows);
* a folder under the system's temporary directory if that one cannot be written.

Subfolders: ``numba`` (:mod:`idrisk._numba`), ``stan`` (CmdStan executables and PyStan's
build folder, :mod:`idrisk.stan.backend`). Nothing is written to the current directory or
next to the installed sources. Deleting the folder is safe: it is rebuilt on demand.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

__all__ = ["cache_dir"]


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
