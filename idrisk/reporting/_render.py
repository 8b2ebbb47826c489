"""The rendering of a :class:`~idrisk.reporting.RiskReport`: HTML, Markdown, CSV and PNG files,
written atomically (:mod:`idrisk._output`). The figures come from
:mod:`idrisk.reporting._figures`, the document (HTML and Markdown) from
:mod:`idrisk.reporting._document`.
"""

from __future__ import annotations

import dataclasses
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._output import CSV_FLOAT_FORMAT, atomic_dir
from .._progress import progress_bar
from ._compute import RiskReport
from ._document import _CSV, _INDEXED, FILES, build_document
from ._figures import report_figures

#: tables written at every bit: R's IdentificationRisk results per dataset, compared with R's
#: doubles (stored with 17 digits) to the last bit; every other number at 15 significant
#: digits (CSV_FLOAT_FORMAT), so 0.1 + 0.05 is written 0.15 (issue 29)
_FULL_PRECISION = frozenset({"datasets"})

__all__ = ["FILES", "ReportFiles", "write_report"]

@dataclass(frozen=True)
class ReportFiles:
    """Paths of a written report.

    Attributes
    ----------
    folder, html, markdown : Path
    tables : dict of str -> Path
        Table name (as in ``RiskReport.tables``) -> CSV file.
    figures : dict of str -> Path
        Figure name -> PNG file.
    """

    folder: Path
    html: Path
    markdown: Path
    tables: dict[str, Path] = field(default_factory=dict)
    figures: dict[str, Path] = field(default_factory=dict)


def write_report(rep: RiskReport, out_dir: Any = "idrisk-report", *, overwrite: bool = False,
                 progress: bool | None = None) -> RiskReport:
    """Write ``rep`` into ``out_dir``: ``report.html`` (self-contained), ``report.md``, CSV
    tables and PNG figures.

    The files are written into a temporary folder beside ``out_dir`` and moved into place when
    all are complete: on failure nothing new is left and an existing ``out_dir`` is untouched.
    An existing, non-empty ``out_dir`` is replaced only when ``overwrite`` is true.

    Returns
    -------
    RiskReport
        ``rep`` with ``files`` (a :class:`ReportFiles`).
    """
    figures = report_figures(rep)
    with atomic_dir(out_dir, overwrite=overwrite) as tmp:
        final = Path(out_dir)
        png_bytes: dict[str, bytes] = {}
        for key, (fig, _) in progress_bar(figures.items(), desc="figures", unit="figure",
                                          show=bool(progress)):
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=100)
            png_bytes[key] = buf.getvalue()
            (tmp / f"fig_{key}.png").write_bytes(png_bytes[key])
        tables = {}
        for key, table in rep.tables.items():
            if key not in _CSV:
                continue
            table.to_csv(tmp / _CSV[key], index=key in _INDEXED,
                         float_format=None if key in _FULL_PRECISION else CSV_FLOAT_FORMAT)
            tables[key] = final / _CSV[key]
        doc = build_document(rep, figures, png_bytes)
        (tmp / "report.html").write_text(doc.html(), encoding="utf-8")
        (tmp / "report.md").write_text(doc.markdown(), encoding="utf-8")
    files = ReportFiles(folder=final, html=final / "report.html",
                        markdown=final / "report.md", tables=tables,
                        figures={k: final / f"fig_{k}.png" for k in png_bytes})
    return dataclasses.replace(rep, files=files)
