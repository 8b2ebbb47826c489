"""The user's line for warnings: :func:`user_stacklevel` (issue 29)."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["user_stacklevel"]

_PACKAGE = str(Path(__file__).resolve().parent)


def user_stacklevel() -> int:
    """The ``stacklevel`` of a ``warnings.warn`` call made by the caller of this function that
    points at the first frame outside the idrisk package (the user's line)."""
    frame = sys._getframe(1)  # the function that will call warnings.warn
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level
