"""idrisk's progress bars: tqdm's when shown, a silent stand-in that imports nothing when not.

tqdm (``tqdm.auto``: the notebook widget in Jupyter, text elsewhere) costs about 15 ms to
import, a tenth of a quick call's whole time; a bar that is not shown should not pay it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any


class _Silent:
    """What idrisk uses of a tqdm bar, doing nothing."""

    def __init__(self, iterable: Iterable[Any] | None) -> None:
        self._iterable = iterable

    def __iter__(self) -> Iterator[Any]:
        return iter(self._iterable if self._iterable is not None else ())

    def __enter__(self) -> _Silent:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: float = 1) -> None:
        """Count ``n`` steps (nothing to show)."""

    def close(self) -> None:
        """End the bar (nothing to close)."""


def progress_bar(iterable: Iterable[Any] | None = None, *, show: bool, **kwargs: Any) -> Any:
    """A ``tqdm.auto`` bar over ``iterable`` (``kwargs`` as tqdm's) if ``show``, else a silent one.

    Examples
    --------
    >>> from idrisk._progress import progress_bar
    >>> sum(progress_bar(range(4), show=False, desc="adding"))
    6
    """
    if not show:
        return _Silent(iterable)
    from tqdm.auto import tqdm

    return tqdm(iterable, **kwargs)
