"""Errors of the user's input that name where to look: the argument (or CLI flag), the file and
the column.

The command line prints an :class:`InputError` as one line (no traceback) and exits with 2;
in Python it is an ordinary :class:`ValueError`.
"""

from __future__ import annotations

__all__ = ["ColumnTypeError", "InputError", "OutputError"]


class InputError(ValueError):
    """Bad input from the user: a file that cannot be read, a column that is not there.

    Attributes
    ----------
    flag : str or None
        The argument (CLI flag) concerned, e.g. ``"--categorical"``.
    file : str or None
        The file concerned.
    column : str or None
        The column concerned.

    Examples
    --------
    >>> err = InputError("conf.csv: column 'Income' appears twice", file="conf.csv",
    ...                  column="Income")
    >>> str(err), err.column
    ("conf.csv: column 'Income' appears twice", 'Income')
    """

    def __init__(self, message: str, *, flag: str | None = None, file: str | None = None,
                 column: str | None = None) -> None:
        super().__init__(message)
        self.flag, self.file, self.column = flag, file, column


class OutputError(InputError):
    """An output location that cannot be written as asked (exists, or is a file/folder)."""


class ColumnTypeError(InputError, TypeError):
    """A column holds values of the wrong type (text in a continuous column, numbers stored as
    text): a :class:`TypeError` in Python and an :class:`InputError` on the command line."""
