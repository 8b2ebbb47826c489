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

from collections.abc import Mapping, Sequence
from os import PathLike
from typing import Any, Literal

import pandas as pd

from .._interface import check_keywords
from ..risk.options import RiskOptions
from ._compute import DEFAULT_RADII, RiskReport, compute_report
from ._document import FILES
from ._render import ReportFiles, write_report

__all__ = ["DEFAULT_RADII", "FILES", "ReportFiles", "RiskReport", "compute_report", "report",
           "write_report"]


@check_keywords
def report(
    confidential: pd.DataFrame,
    synthetic: Any,
    known: Sequence[str],
    syn: Sequence[str] | Mapping[Any, Sequence[str]] | None = None,
    r: float | Sequence[float] | Mapping[str, float] | None = None,
    out_dir: str | PathLike = "idrisk-report",
    *,
    overwrite: bool = False,
    percentage: bool = True,
    euclidean_dist: bool = False,
    closed: bool = False,
    abs_radius: bool = False,
    ellipsoid: bool = False,
    na_matches: bool = True,
    categorical: str | Sequence[str] | None = None,
    continuous: str | Sequence[str] | None = None,
    align: Literal["position", "index"] | None = None,
    options: RiskOptions | None = None,
    radii: Sequence[float] | None = DEFAULT_RADII,
    utility: bool = True,
    maxorder: int = 1,
    top: int = 10,
    show_confidential_values: bool = False,
    title: str = "Identification risk of synthetic data",
    sources: Mapping[str, Any] | None = None,
    intro: Sequence[str] = (),
    progress: bool | None = None,
    n_jobs: int | None = None,
    disclosure_known: Sequence[str] | None = None,
    disclosure_syn: Sequence[str] | None = None,
    disclosure_ngroups: int = 5,
    what_if: bool = True,
) -> RiskReport:
    """Compute risk and utility of synthetic data and write an HTML and a Markdown report.

    :func:`compute_report` followed by :func:`write_report`.

    Parameters
    ----------
    confidential, synthetic, known, syn, r
        As :func:`compute_report` (``r`` defaults to None, as in
        :func:`idrisk.identification_risk`).
    out_dir
        The report folder: written beside it first, moved into place when complete.
    overwrite
        Replace an existing, non-empty ``out_dir`` (otherwise an error, before any work).
    percentage, euclidean_dist, closed, abs_radius, ellipsoid, na_matches, categorical, \
continuous, align, options
        The matching rules, as :func:`compute_report`.
    radii, utility, maxorder, top, show_confidential_values, title, sources, intro, \
progress, n_jobs, disclosure_known, disclosure_syn, disclosure_ngroups, what_if
        As :func:`compute_report`.

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
    >>> s = syn(d, m=2, syn=["Income"], seed=1, rng="numpy")
    >>> rep = report(d, s, ["Age", "Urban", "Marital"], ["Income"], r=0.1,
    ...              out_dir=tempfile.mkdtemp(), radii=[0.05, 0.1], maxorder=0)
    >>> rep.files.html.name, sorted(rep.results)
    ('report.html', [1])
    """
    from .._output import check_target

    check_target(out_dir, overwrite=overwrite)  # fail before the work, not after
    rep = compute_report(
        confidential, synthetic, known, syn, r, percentage=percentage,
        euclidean_dist=euclidean_dist, closed=closed, abs_radius=abs_radius,
        ellipsoid=ellipsoid, na_matches=na_matches, categorical=categorical,
        continuous=continuous, align=align, options=options, radii=radii, utility=utility,
        maxorder=maxorder, top=top, show_confidential_values=show_confidential_values,
        title=title, sources=sources, intro=intro, progress=progress, n_jobs=n_jobs,
        disclosure_known=disclosure_known, disclosure_syn=disclosure_syn,
        disclosure_ngroups=disclosure_ngroups, what_if=what_if,
    )
    return write_report(rep, out_dir, overwrite=overwrite, progress=progress)
