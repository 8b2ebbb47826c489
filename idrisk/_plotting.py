"""The one plotting convention of idrisk: palette, new axes, readable labels.

Every ``plot_*`` function of the package (:mod:`idrisk.plots`, :mod:`idrisk.weighted.plots`,
:mod:`idrisk.categorical.plots`)

* takes an optional ``ax`` and draws into it (a new figure with ``constrained_layout`` and a
  minimum size otherwise);
* returns the :class:`~matplotlib.axes.Axes` it drew on, or the
  :class:`~matplotlib.figure.Figure` for multi-panel plots (documented per function);
* never calls ``matplotlib.use``: the backend is the user's choice;
* colours a scenario, synthesizer or method by :func:`colors_for`, so that a name keeps its
  colour in every figure given the same list of names.

matplotlib is imported when a figure is made, not when this module is imported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "CONFIDENTIAL_COLOR",
    "MIN_FIGSIZE",
    "PALETTE",
    "colors_for",
    "figure_grid",
    "new_axes",
    "wrap_label",
]

#: colour-blind-safe palette (Okabe & Ito), one colour per scenario/method in order
PALETTE = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#f0e442",
           "#000000")
#: the colour of the confidential data in every figure
CONFIDENTIAL_COLOR = "#555555"
#: the smallest figure the package makes (inches): titles and legends fit at 100 dpi
MIN_FIGSIZE = (6.4, 4.4)


def colors_for(names: Iterable[Any], colors: Mapping | None = None) -> dict:
    """One colour per name, by position in ``names`` (pass the full list everywhere).

    ``colors`` (name -> colour) overrides the palette; a name it lacks is an error.

    Examples
    --------
    >>> colors_for([1, 2])
    {1: '#0072b2', 2: '#e69f00'}
    >>> colors_for(["Data", "Marginal"], {"Data": "grey", "Marginal": "red"})["Data"]
    'grey'
    """
    names = list(dict.fromkeys(names))
    if colors is None:
        return {s: PALETTE[k % len(PALETTE)] for k, s in enumerate(names)}
    missing = [s for s in names if s not in colors]
    if missing:
        raise KeyError(f"colors has no colour for {missing}")
    return {s: colors[s] for s in names}


def new_axes(ax: Any = None, figsize: Sequence[float] = MIN_FIGSIZE) -> Any:
    """``ax`` itself, or the axes of a new figure (``constrained_layout``, at least
    :data:`MIN_FIGSIZE`)."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    size = (max(figsize[0], MIN_FIGSIZE[0]), max(figsize[1], MIN_FIGSIZE[1]))
    _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def figure_grid(width: float, height: float, nrows: int = 1, ncols: int = 1,
                **subplots: Any) -> tuple[Any, Any]:
    """A new :class:`~matplotlib.figure.Figure` (``constrained`` layout, made without
    ``pyplot``'s global state: nothing is left open) and its ``nrows x ncols`` grid of axes
    (a 2-D array, also for one panel). ``subplots`` go to ``Figure.subplots`` (``sharey=``).
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots(nrows, ncols, squeeze=False, **subplots)


def wrap_label(text: Any, width: int = 14) -> str:
    """A long level label on several lines (so tick labels do not overprint).

    Examples
    --------
    >>> wrap_label("SECONDARY SCHOOL OR EQUIVALENT", 14)
    'SECONDARY\\nSCHOOL OR\\nEQUIVALENT'
    >>> wrap_label("VOCATIONAL/GRAMMAR", 12)
    'VOCATIONAL/\\nGRAMMAR'
    """
    text = str(text)
    if len(text) <= width:
        return text
    # break after spaces, slashes and hyphens; never inside a word
    pieces = [p for p in re.split(r"(?<=[\s/-])", text) if p]
    lines, line = [], ""
    for piece in pieces:
        if line and len(line + piece.rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        line += piece
    lines.append(line.rstrip())
    return "\n".join(lines)
