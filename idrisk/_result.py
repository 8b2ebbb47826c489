"""The one result convention of idrisk: frozen objects with the same four faces.

Every result class of the package derives from :class:`Result` and is a frozen dataclass:

* a readable ``repr`` -- one header line, then the :meth:`~Result.summary` table;
* ``_repr_html_`` -- the same for notebooks;
* :meth:`~Result.summary` -- always a :class:`pandas.DataFrame`;
* :meth:`~Result.to_frame` -- the tidy (long) data behind the result.

Attributes are typed (DataFrames, Series, numbers); nothing is read by string key.

Frozen for real: after ``__post_init__`` the arrays behind every attribute (NumPy arrays,
DataFrames, Series, Index objects, also inside dicts, lists and tuples) are made read-only in
place, without a copy, so ``res.risk.iloc[:, 0] = 0`` raises instead of letting one attribute
disagree with another. Work on a copy (``res.risk.copy()``) to change numbers.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Result"]


@dataclass(frozen=True, repr=False)
class Result:
    """Base of idrisk's result objects (see the module docstring).

    Subclasses are ``@dataclass(frozen=True, repr=False)`` and implement :meth:`summary` and
    :meth:`to_frame`; they may override :meth:`_header` (the first line of the ``repr``) and
    :meth:`_notes` (lines printed under the table), :meth:`_display` (the table, default the
    summary) and :meth:`_html_notes` (the notebook's lines, default the same notes). Their arrays
    are made read-only after ``__post_init__`` (a subclass's own ``__post_init__`` is wrapped to
    do so).
    """

    def __post_init__(self) -> None:
        freeze_arrays(self)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("__post_init__")
        if own is None or getattr(own, "_freezes", False):
            return

        @functools.wraps(own)
        def post_init(self: Any, *args: Any) -> None:
            own(self, *args)
            freeze_arrays(self)

        post_init._freezes = True  # type: ignore[attr-defined]
        cls.__post_init__ = post_init  # type: ignore[method-assign]

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


def _freeze_array(values: Any) -> None:
    """Make a NumPy array, or the arrays inside a pandas extension array, read-only."""
    if isinstance(values, np.ndarray):
        values.flags.writeable = False
        return
    for name in ("_ndarray", "_data", "_mask", "_codes"):  # Categorical, datetime, masked
        inner = getattr(values, name, None)
        if isinstance(inner, np.ndarray):
            inner.flags.writeable = False


def _own_blocks(frame: pd.DataFrame | pd.Series) -> None:
    """Give ``frame`` its own blocks when another pandas object shares them: under
    copy-on-write a write into shared blocks copies them first instead of failing on the
    read-only array (the only case in which freezing copies)."""
    try:
        shared = any(block.refs.has_reference() for block in frame._mgr.blocks)
    except AttributeError:  # another pandas: no reference tracking
        return
    if shared:
        frame._mgr = frame._mgr.copy(deep=True)


def _freeze(value: Any, seen: set[int]) -> None:
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        _freeze_array(value)
    elif isinstance(value, (pd.DataFrame, pd.Series)):
        _own_blocks(value)
        for block in value._mgr.blocks:
            _freeze_array(block.values)
        _freeze_array(value.index._values)
    elif isinstance(value, pd.Index):
        _freeze_array(value._values)
    elif isinstance(value, Mapping):
        for item in value.values():
            _freeze(item, seen)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _freeze(item, seen)
    elif is_dataclass(value) and not isinstance(value, type):
        freeze_arrays(value, seen)


def freeze_arrays(obj: Any, seen: set[int] | None = None) -> None:
    """Make the arrays behind ``obj``'s dataclass fields read-only in place (no copy).

    A field declared with ``metadata={"freeze": False}`` (the caller's own data, held by
    reference) is left as it is.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> @dataclass(frozen=True, repr=False)
    ... class R(Result):
    ...     table: pd.DataFrame
    >>> r = R(pd.DataFrame({"x": [1.0, 2.0]}))
    >>> r.table.iloc[0, 0] = 5.0
    Traceback (most recent call last):
    ...
    ValueError: assignment destination is read-only
    """
    seen = set() if seen is None else seen
    for f in fields(obj):
        if f.metadata.get("freeze", True):
            _freeze(getattr(obj, f.name, None), seen)
