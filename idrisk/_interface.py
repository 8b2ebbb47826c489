"""Messages in the words of the interface the user called: Python arguments or CLI flags.

Library code that tells the user what to pass writes ``spell("abs_radius", True)``; in Python
this reads ``abs_radius=True``, and while the command line runs (``with interface("cli")``)
it reads ``--absolute``. The CLI registers its flags in :data:`CLI_FLAGS`; nothing matches
message texts afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["CLI_FLAGS", "current", "interface", "spell"]

_CURRENT: ContextVar[str] = ContextVar("idrisk_interface", default="python")

#: Python argument -> CLI flag. A value of ``{value: flag}`` maps argument values to flags
#: (``percentage=False`` is ``--absolute``).
CLI_FLAGS: dict[str, str | dict[Any, str]] = {
    "r": "-r/--radius",
    "known": "--known",
    "syn": "--syn",
    "abs_radius": {True: "--abs-radius"},
    "percentage": {False: "--absolute"},
    "categorical": "--categorical",
    "continuous": "--continuous",
    "na_matches": {False: "--na-never-matches"},
    "na_values": "--na-values",
    "closed": {True: "--closed"},
    "align": "--align",
    "lonely_psu": "--lonely-psu",
    "encoding": "--encoding",
    "sep": "--sep",
    "out_dir": "--out-dir",
    "out": "--out",
    "overwrite": {True: "--overwrite"},
    "show_confidential_values": {True: "--show-confidential-values"},
    "sample_counts": {True: "--sample-counts"},
    "radii": "--radii",
    "top": "--top",
    "weight": "--weight",
    "by": "--by",
    "y": "--y",
    "strata": "--strata",
    "epsilon": "--epsilon",
    "bands": "--bands",
    "merge": "--merge",
    "level": "--level",
    "precision": "--precision",
    "relative": "--relative",
}


def current() -> str:
    """``"python"`` or ``"cli"``."""
    return _CURRENT.get()


@contextmanager
def interface(name: str) -> Iterator[None]:
    """Spell messages for ``name`` (``"python"`` or ``"cli"``) inside the block."""
    if name not in ("python", "cli"):
        raise ValueError(f"interface must be 'python' or 'cli', got {name!r}")
    token = _CURRENT.set(name)
    try:
        yield
    finally:
        _CURRENT.reset(token)


_UNSET = object()


def spell(argument: str, value: Any = _UNSET) -> str:
    """How the user passes ``argument`` (with ``value``) in the current interface.

    Examples
    --------
    >>> spell("abs_radius", True)
    'abs_radius=True'
    >>> with interface("cli"):
    ...     spell("abs_radius", True), spell("categorical", ["Urban"])
    ('--abs-radius', '--categorical Urban')
    >>> spell("categorical", ["Urban"])
    "categorical=['Urban']"
    """
    if current() == "cli" and argument in CLI_FLAGS:
        flag = CLI_FLAGS[argument]
        if isinstance(flag, dict):
            if value in flag:
                return flag[value]
        elif value is _UNSET:
            return flag
        else:
            shown = " ".join(map(str, value)) if isinstance(value, (list, tuple)) else value
            return f"{flag.split('/')[-1]} {shown}"
    if value is _UNSET:
        return argument
    return f"{argument}={value!r}"
