"""Reading the user's files for the command line, with messages that say what to do.

:func:`read_table` reads a CSV or Parquet file and turns every problem a new user meets into
an :class:`~idrisk.exceptions.InputError` naming the CLI flag, the file and the column:

* a folder or a missing path given as a file;
* an empty file, a file with a header but no rows;
* a delimiter other than a comma (semicolon, tab): a hint to pass ``--sep``;
* text that is not UTF-8: a hint to pass ``--encoding``;
* a column name that occurs twice (pandas would silently rename the second ``Income.1``);
* a ``--categorical`` / ``--continuous`` column that is not there (with close names).

pandas is imported when a file is read, not when this module is imported.
"""

from __future__ import annotations

import csv
import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ._interface import current, spell
from .exceptions import InputError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DEFAULT_NA", "natural_key", "read_table"]

#: cells read as missing values (``--na-values`` adds to them)
DEFAULT_NA = ("NA", "")
_SNIFF_BYTES = 64_000
_DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "vertical bar"}


def _sep_name(sep: str) -> str:
    return _DELIMITERS.get(sep, repr(sep))


def _header(path: Path, encoding: str, flag: str) -> str:
    """The first line of ``path`` (decoded), or an InputError on an encoding problem."""
    with open(path, "rb") as handle:
        head = handle.read(_SNIFF_BYTES)
    try:
        text = head.decode(encoding)
    except UnicodeDecodeError as err:
        if err.start >= len(head) - 4 and len(head) == _SNIFF_BYTES:
            text = head[: err.start].decode(encoding)  # a character cut by the sniff window
        else:
            bad = head[err.start : err.start + 1].hex()
            raise InputError(
                f"{flag}: {path} is not {encoding} text (byte 0x{bad} at position "
                f"{err.start}); pass {spell('encoding')} with the file's encoding, e.g. "
                f"{spell('encoding')} latin-1 or {spell('encoding')} cp1252",
                flag=flag, file=str(path)) from None
    except LookupError:
        raise InputError(f"{spell('encoding')}: unknown encoding {encoding!r}",
                         flag=spell("encoding"), file=str(path)) from None
    return text.lstrip("\ufeff").splitlines()[0] if text.strip() else ""


def _sep_flag(sep: str) -> str:
    """``sep=';'`` in Python, ``--sep ';'`` (quoted for the shell) on the command line."""
    if current() == "cli":
        return f"{spell('sep')} " + ("$'\\t'" if sep == "\t" else f"'{sep}'")
    return spell("sep", sep)


def _check_delimiter(header: str, sep: str, path: Path, flag: str, given: bool) -> None:
    fields = next(csv.reader([header], delimiter=sep)) if header else []
    if len(fields) > 1 or given:
        return
    counts = {d: len(next(csv.reader([header], delimiter=d))) for d in _DELIMITERS if d != sep}
    best = max(counts, key=lambda d: counts[d]) if counts else None
    if best is not None and counts[best] > 1:
        raise InputError(
            f"{flag}: {path} has one column when split at each {_sep_name(sep)} but "
            f"{counts[best]} when split at each {_sep_name(best)}; if it is "
            f"{_sep_name(best)}-separated, pass {_sep_flag(best)}",
            flag=flag, file=str(path))


def _check_duplicates(header: str, sep: str, path: Path, flag: str) -> None:
    names = next(csv.reader([header], delimiter=sep)) if header else []
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(
                f"{flag}: {path} has two columns named {name!r}; rename one (idrisk would "
                "otherwise have to guess which is meant)", flag=flag, file=str(path),
                column=name)
        seen.add(name)


def missing_columns_message(frame_columns: Sequence[str], names: Sequence[str], flag: str,
                            path: str) -> str | None:
    """``"FLAG: column(s) [...] not found in PATH (did you mean ...?)"`` or None."""
    missing = [c for c in names if c not in frame_columns]
    if not missing:
        return None
    hints = []
    for c in missing:
        close = difflib.get_close_matches(c, [str(x) for x in frame_columns], n=2)
        if close:
            hints.append(f"{c!r}: did you mean {' or '.join(map(repr, close))}?")
    hint = f" ({'; '.join(hints)})" if hints else ""
    return f"{flag}: column(s) {missing} not found in {path}{hint}"


def read_table(
    path: str | Path,
    categorical: Sequence[str] = (),
    *,
    continuous: Sequence[str] = (),
    na_values: Sequence[str] = (),
    encoding: str | None = None,
    sep: str | None = None,
    flag: str = "input",
) -> pd.DataFrame:
    """Read a CSV, Parquet, SAS, Stata, SPSS or R file; ``categorical`` columns become
    categories.

    SAS (``.sas7bdat``, ``.xpt``), Stata (``.dta``), SPSS (``.sav``, ``.zsav``) and R
    (``.rds``, ``.RData``) files need the optional extra ``formats`` (:mod:`idrisk._formats`):
    value labels and R factors become categories, user-defined missing values NA, reported
    as a ``FormatNote`` warning.

    CSV files carry no types, so numeric-coded factors (e.g. CEdata's Urban ``1``/``2``) must be
    named in ``categorical`` (their levels are then ordered by value: 1, 2, 10); Parquet keeps
    pandas' categorical dtype. Text columns stay text. Only ``NA`` and empty cells are missing
    values, plus ``na_values`` (e.g. ``-8``). The frame remembers its file in
    ``frame.attrs["source"]`` for messages.

    Parameters
    ----------
    flag
        How the file was given (``"the confidential file"``, ``"--synthetic"``), for messages.

    Raises
    ------
    InputError
        The file cannot be read as a table, or a named column is not in it (see the module
        docstring).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
    >>> _ = p.write_text("Age;Sex\\n30;F\\n")
    >>> try:
    ...     read_table(p)
    ... except InputError as err:
    ...     print(str(err).split("; ")[-1])
    if it is semicolon-separated, pass sep=';'
    >>> read_table(p, sep=";").columns.tolist()
    ['Age', 'Sex']
    """
    import pandas as pd

    path = Path(path)
    if path.is_dir():
        raise InputError(f"{flag}: {path} is a folder; give a CSV or Parquet file (e.g. "
                         f"{path / '*.csv'} to pass every CSV file in it)",
                         flag=flag, file=str(path))
    if not path.exists():
        raise InputError(f"{flag}: no such file: {path}", flag=flag, file=str(path))
    na = list(dict.fromkeys([*DEFAULT_NA, *map(str, na_values)]))
    from ._formats import AGENCY_SUFFIXES, read_agency

    if path.suffix.lower() in AGENCY_SUFFIXES:
        frame = read_agency(path, flag)
        if na_values:
            frame = frame.mask(frame.astype("string").isin([str(v) for v in na_values]))
    elif path.suffix.lower() in (".parquet", ".pq"):
        try:
            frame = pd.read_parquet(path)
        except (OSError, ValueError, ImportError) as err:
            raise InputError(f"{flag}: {path} could not be read as Parquet: {err}",
                             flag=flag, file=str(path)) from None
        if na_values:
            frame = frame.mask(frame.astype("string").isin([str(v) for v in na_values]))
    else:
        encoding = encoding or "utf-8"
        if path.stat().st_size == 0:
            raise InputError(f"{flag}: {path} is empty (no header, no rows)", flag=flag,
                             file=str(path))
        header = _header(path, encoding, flag)
        delimiter = sep or ","
        _check_delimiter(header, delimiter, path, flag, given=sep is not None)
        _check_duplicates(header, delimiter, path, flag)
        try:
            frame = pd.read_csv(path, keep_default_na=False, na_values=na, sep=delimiter,
                                encoding=encoding)
        except pd.errors.EmptyDataError:
            raise InputError(f"{flag}: {path} is empty (no header, no rows)", flag=flag,
                             file=str(path)) from None
        except UnicodeDecodeError as err:
            raise InputError(
                f"{flag}: {path} is not {encoding} text ({err.reason} at byte {err.start}); "
                f"pass {spell('encoding')} with the file's encoding, e.g. "
                f"{spell('encoding')} latin-1", flag=flag, file=str(path)) from None
        except (pd.errors.ParserError, ValueError, OSError) as err:
            text = str(err).strip().splitlines()[-1] if str(err).strip() else type(err).__name__
            raise InputError(f"{flag}: {path} could not be read as CSV: {text}",
                             flag=flag, file=str(path)) from None
    if frame.shape[1] == 0:
        raise InputError(f"{flag}: {path} has no columns", flag=flag, file=str(path))
    if len(frame) == 0:
        raise InputError(f"{flag}: {path} has a header but no rows", flag=flag,
                         file=str(path))
    if not frame.columns.is_unique:
        name = str(frame.columns[frame.columns.duplicated()][0])
        raise InputError(f"{flag}: {path} has two columns named {name!r}", flag=flag,
                         file=str(path), column=name)
    for argument, names in (("categorical", categorical), ("continuous", continuous)):
        message = missing_columns_message(list(frame.columns), names, spell(argument), str(path))
        if message:
            missing = [c for c in names if c not in frame.columns]
            raise InputError(message, flag=spell(argument), file=str(path), column=missing[0])
    for column in categorical:
        col = frame[column]
        if pd.api.types.is_float_dtype(col.dtype) and bool(
                (col.dropna() == col.dropna().round()).all()):
            # integer codes of a column with missing values (read as floats): 1, not 1.0
            col = col.astype("Int64")
        values = col.astype("string").astype(object).where(col.notna())
        levels = sorted(values.dropna().unique(), key=natural_key)
        frame[column] = pd.Categorical(values, categories=levels)
    frame.attrs["source"] = str(path)
    return frame


def natural_key(text: str) -> tuple:
    """Numbers by value (``"2"`` before ``"10"``), then text."""
    try:
        return (0, float(text), text)
    except ValueError:
        return (1, 0.0, text)
