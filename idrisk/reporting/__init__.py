"""The risk report: compute (:class:`RiskReport`) and render (HTML, Markdown, CSV, PNG).

* :func:`compute_report` -- risk at the radius, the radius sweep, record-level risk, the
  highest-risk records and the utility, as a :class:`RiskReport` (reusable in Python: its
  ``tables``, ``results`` and ``notes``); nothing is written.
* :func:`write_report` -- ``report.html`` (self-contained:
  figures embedded, nothing fetched from the network), ``report.md`` with PNG figures, and
  the tables as CSV; written atomically into the output folder.
* :func:`report` -- both (``idrisk report`` on the command line).

By default no confidential value appears in any output file: the highest-risk records are
listed by record number, risk and match counts (``show_confidential_values=True`` adds their
values and puts a notice on the report's first line). Every report lists its files and who may
see them. Every figure has a title, axis labels with units and a legend for every mark; a
scenario has one colour in all figures, and panels that are compared share their y-scale.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from os import PathLike
from typing import Any

import pandas as pd

from ._compute import DEFAULT_RADII, RiskReport, compute_report
from ._document import FILES
from ._render import ReportFiles, write_report

__all__ = ["DEFAULT_RADII", "FILES", "ReportFiles", "RiskReport", "compute_report", "report",
           "write_report"]


def report(
    confidential: pd.DataFrame,
    synthetic: Any,
    known: Sequence[str],
    syn: Sequence[str] | Mapping[Any, Sequence[str]] | None = None,
    r: float | Sequence[float] | Mapping[str, float] = 0.1,
    out_dir: str | PathLike = "idrisk-report",
    *,
    overwrite: bool = False,
    **options: Any,
) -> RiskReport:
    """Compute risk and utility of synthetic data and write an HTML and a Markdown report.

    :func:`compute_report` followed by :func:`write_report`.

    Parameters
    ----------
    confidential, synthetic, known, syn, r
        As :func:`compute_report`.
    out_dir
        The report folder: written beside it first, moved into place when complete.
    overwrite
        Replace an existing, non-empty ``out_dir`` (otherwise an error, before any work).
    **options
        The keyword options of :func:`compute_report` (``radii``, ``percentage``,
        ``categorical``, ``utility``, ``maxorder``, ``top``, ``show_confidential_values``,
        ``title``, ``progress``, ...); ``help(report)`` shows them in the signature.

    Returns
    -------
    RiskReport
        The computed report; ``files`` holds the paths written.

    Examples
    --------
    >>> import tempfile
    >>> from idrisk.datasets import load_demo
    >>> from idrisk import syn
    >>> d = load_demo(n=300, seed=1)
    >>> s = syn(d, m=2, visit_sequence=["Income"], seed=1, rng="numpy")
    >>> rep = report(d, s, ["Age", "Urban", "Marital"], ["Income"], r=0.1,
    ...              out_dir=tempfile.mkdtemp(), radii=[0.05, 0.1], maxorder=0)
    >>> rep.files.html.name, sorted(rep.results)
    ('report.html', [1])
    """
    from .._output import check_target

    check_target(out_dir, overwrite=overwrite)  # fail before the work, not after
    rep = compute_report(confidential, synthetic, known, syn, r, **options)
    return write_report(rep, out_dir, overwrite=overwrite, progress=options.get("progress"))


def _report_signature() -> inspect.Signature:
    """compute_report's parameters with ``out_dir`` and ``overwrite``: one list to keep."""
    own = inspect.signature(report).parameters
    params = list(inspect.signature(compute_report).parameters.values())
    at = [p.name for p in params].index("r") + 1
    params[at:at] = [own["out_dir"], own["overwrite"]]
    return inspect.signature(report).replace(parameters=params)


report.__signature__ = _report_signature()  # type: ignore[attr-defined]
