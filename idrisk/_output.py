"""Atomic outputs: a report folder or a table file appears complete or not at all.

Every command writes into a temporary folder (or file) **beside** the target and moves it into
place only when everything has been written. On failure nothing new is left and an existing
output is untouched; an existing output is replaced only when ``overwrite`` is true
(``--overwrite`` on the command line), otherwise an :class:`~idrisk.exceptions.OutputError`
says so before any work is done (:func:`check_target`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ._interface import spell
from .exceptions import OutputError

__all__ = ["CSV_FLOAT_FORMAT", "atomic_dir", "atomic_file", "check_target"]

#: Numbers in the CSV tables (``idrisk disclosure``, the report's tables, ``interval.csv``,
#: ``whatif.csv``): 15 significant digits, the precision a double holds for any decimal, so
#: 27.9 is written 27.9, not 27.900000000000002, and 0.1 + 0.05 is written 0.15 (issue 29).
#: Kept at every bit (the shortest decimal that reads back as the same double): the files that
#: hold R's ``IdentificationRisk`` results and are compared with R's doubles to the last bit
#: (R's values are stored with 17 digits): ``idrisk risk``'s records.csv and summary.csv and
#: the report's datasets.csv.
CSV_FLOAT_FORMAT = "%.15g"


def check_target(target: str | os.PathLike, *, overwrite: bool, kind: str = "folder",
                 argument: str = "out_dir") -> Path:
    """Check that ``target`` can receive a new ``kind`` (``"folder"`` or ``"file"``).

    Raises
    ------
    OutputError
        ``target`` is of the other kind, or exists (not an empty folder) and ``overwrite`` is
        false.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> (d / "report").mkdir(); (d / "report" / "report.html").write_text("old")
    3
    >>> check_target(d / "report", overwrite=False)
    Traceback (most recent call last):
    ...
    idrisk.exceptions.OutputError: ... exists; pass overwrite=True to replace it
    """
    path = Path(target)
    where = spell(argument)
    if kind == "folder" and path.exists() and not path.is_dir():
        raise OutputError(f"{where}: {path} is a file; name a folder for the output",
                          flag=where, file=str(path))
    if kind == "file" and path.is_dir():
        raise OutputError(f"{where}: {path} is a folder; name a file for the output",
                          flag=where, file=str(path))
    exists = path.exists() and (kind == "file" or any(path.iterdir()))
    if exists and not overwrite:
        raise OutputError(f"{where}: {path} exists; pass {spell('overwrite', True)} to "
                          "replace it", flag=where, file=str(path))
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        raise OutputError(f"{where}: {parent} is a file, not a folder", flag=where,
                          file=str(parent))
    return path


@contextmanager
def atomic_dir(target: str | os.PathLike, *, overwrite: bool = False,
               argument: str = "out_dir") -> Iterator[Path]:
    """Yield a temporary folder beside ``target``; move it to ``target`` when the block ends
    without an error (replacing an existing ``target`` only if ``overwrite``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_dir(d / "out") as tmp:
    ...     _ = (tmp / "a.csv").write_text("x\\n1\\n")
    >>> sorted(p.name for p in d.iterdir()), (d / "out" / "a.csv").exists()
    (['out'], True)
    """
    path = check_target(target, overwrite=overwrite, argument=argument)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent))
    try:
        yield tmp
        _replace(tmp, path)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


@contextmanager
def atomic_file(target: str | os.PathLike, *, overwrite: bool = False,
                argument: str = "out") -> Iterator[Path]:
    """Yield a temporary file path beside ``target``; rename it to ``target`` when the block
    ends without an error."""
    path = check_target(target, overwrite=overwrite, kind="file", argument=argument)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    os.close(handle)
    tmp = Path(name)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _replace(tmp: Path, path: Path) -> None:
    """Move the finished folder ``tmp`` to ``path``; an old ``path`` is removed only after."""
    if not path.exists():
        os.replace(tmp, path)
        return
    old = path.with_name(f".{path.name}.old-{uuid.uuid4().hex[:8]}")
    os.replace(path, old)
    try:
        os.replace(tmp, path)
    except BaseException:
        os.replace(old, path)
        raise
    shutil.rmtree(old, ignore_errors=True)
