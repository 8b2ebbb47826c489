"""The one result convention of idrisk: frozen objects with the same four faces.

Every result class of the package derives from :class:`Result` and is a frozen dataclass:

* a readable ``repr`` -- one header line, then the :meth:`~Result.summary` table;
* ``_repr_html_`` -- the same for notebooks;
* :meth:`~Result.summary` -- always a :class:`pandas.DataFrame`;
* :meth:`~Result.to_frame` -- the tidy (long) data behind the result.

Attributes are typed (DataFrames, Series, numbers); nothing is read by string key.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, fields
from typing import Any

import pandas as pd

__all__ = ["Result"]


@dataclass(frozen=True, repr=False)
class Result:
    """Base of idrisk's result objects (see the module docstring).

    Subclasses are ``@dataclass(frozen=True, repr=False)`` and implement :meth:`summary` and
    :meth:`to_frame`; they may override :meth:`_header` (the first line of the ``repr``) and
    :meth:`_notes` (lines printed under the table), :meth:`_display` (the table, default the
    summary) and :meth:`_html_notes` (the notebook's lines, default the same notes).
    """

    def summary(self) -> pd.DataFrame:
        """The result's main table."""
        raise NotImplementedError

    def to_frame(self) -> pd.DataFrame:
        """The tidy data behind the result: one row per observation."""
        raise NotImplementedError

    # ------------------------------------------------------------------ display
    def _header(self) -> str:
        """``ClassName(key=value, ...)`` of the scalar attributes."""
        parts = []
        for f in fields(self):
            if not f.repr or f.name.startswith("_"):
                continue
            value = getattr(self, f.name)
            if isinstance(value, (bool, int, float, str)) or value is None:
                parts.append(f"{f.name}={value!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def _notes(self) -> list[str]:
        """Lines shown under the summary table (units, checks)."""
        return []

    def _display(self) -> pd.DataFrame:
        """The table the ``repr`` shows (default: :meth:`summary`)."""
        return self.summary()

    def _html_notes(self) -> list[str]:
        """Lines shown under the table in notebooks (default: :meth:`_notes`)."""
        return self._notes()

    def __repr__(self) -> str:
        table = self._display()
        body = table.to_string(float_format=lambda v: f"{v:.6g}")
        notes = self._notes()
        return "\n".join([self._header(), body, *notes])

    def _repr_html_(self) -> str:
        table = self._display().to_html(
            float_format=lambda v: f"{v:.6g}", border=0, na_rep="NaN"
        )
        notes = "".join(f"<p><small>{html.escape(n)}</small></p>" for n in self._html_notes())
        return (
            f"<div class='idrisk-result'><p><b>{html.escape(self._header())}</b></p>"
            f"{table}{notes}</div>"
        )


def frozen_update(obj: Any, **values: Any) -> None:
    """Set attributes of a frozen dataclass while it is being built (``__post_init__``)."""
    for key, value in values.items():
        object.__setattr__(obj, key, value)
