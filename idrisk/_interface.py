"""Messages in the words of the interface the user called: Python arguments or CLI flags.

Library code that tells the user what to pass writes ``spell("abs_radius", True)``; in Python
this reads ``abs_radius=True``, and while the command line runs (``with interface("cli")``)
it reads ``--absolute``. The CLI registers its flags in :data:`CLI_FLAGS`; nothing matches
message texts afterwards.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar, cast

__all__ = ["CLI_FLAGS", "check_keywords", "current", "did_you_mean", "interface", "spell"]

F = TypeVar("F", bound=Callable[..., Any])

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


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest of ``choices`` to ``word`` (or ``""``).

    Examples
    --------
    >>> did_you_mean("percentge", ["percentage", "closed"])
    "; did you mean 'percentage'?"
    >>> did_you_mean("zzz", ["percentage"])
    ''
    """
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def check_keywords(func: F, name: str | None = None) -> F:
    """Report a misspelt keyword under ``func``'s name (or ``name``) with the closest right one.

    Python says ``report() got an unexpected keyword argument 'percentge'``; the wrapper adds
    ``; did you mean 'percentage'?``. Only unknown keywords are looked at (one set difference
    per call); everything else is Python's own binding.

    Examples
    --------
    >>> @check_keywords
    ... def f(x, *, percentage=True):
    ...     return x
    >>> f(1, percentge=False)
    Traceback (most recent call last):
    ...
    TypeError: f() got an unexpected keyword argument 'percentge'; did you mean 'percentage'?
    """
    names = frozenset(
        p.name for p in inspect.signature(func).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY)
    )

    shown = name or func.__name__

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        unknown = kwargs.keys() - names
        if unknown:
            word = sorted(unknown)[0]
            raise TypeError(f"{shown}() got an unexpected keyword argument {word!r}"
                            + did_you_mean(word, names))
        return func(*args, **kwargs)

    return cast(F, wrapper)
