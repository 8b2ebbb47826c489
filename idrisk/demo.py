"""The README demo: the article's Section 4 pipeline on the built-in simulated CE-like data.

:func:`run_demo` synthesises the four scenarios with idrisk's CART synthesizer and writes the
report of :func:`idrisk.reporting.report` (the one ``idrisk report`` writes for your own files):
``report.html`` (self-contained) and ``report.md`` with PNG figures, risk at r = 10%, the
radius sweep with each scenario's maximising radius, record-level risk and utility.
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Literal

import pandas as pd

from idrisk.analysis import Scenario
from idrisk.datasets import load_demo

__all__ = ["DEMO_KNOWN", "DEMO_SCENARIOS", "markdown_table", "run_demo"]

DEMO_KNOWN = ["Age", "Urban", "Marital"]
DEMO_SCENARIOS = {
    1: ["Income"],
    2: ["Tenure", "Income"],
    3: ["Expenditure", "Income"],
    4: ["Tenure", "Expenditure", "Income"],
}


def markdown_table(df: pd.DataFrame, floatfmt: str = ".4g") -> str:
    """A GitHub-flavoured Markdown table of ``df`` (index included).

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"a": [1.5]}, index=["x"])))
    |  | a |
    | --- | --- |
    | x | 1.5 |
    """
    def cell(v) -> str:
        if isinstance(v, float):
            return format(v, floatfmt)
        return str(v)

    head = "| " + " | ".join([str(df.index.name or "")] + [str(c) for c in df.columns]) + " |"
    sep = "| " + " | ".join(["---"] * (df.shape[1] + 1)) + " |"
    body = [
        "| " + " | ".join([cell(i)] + [cell(v) for v in row]) + " |"
        for i, row in zip(df.index, df.itertuples(index=False), strict=True)
    ]
    return "\n".join([head, sep, *body])


def run_demo(
    out_dir: str | PathLike = "idrisk-demo",
    *,
    seed: int = 2021,
    m: int = 5,
    radii: Sequence[float] = (0.01, 0.025, 0.05, 0.1, 0.2, 0.3),
    progress: bool | None = None,
    rng: Literal["r", "numpy"] = "numpy",
    n: int = 5571,
    data: pd.DataFrame | None = None,
    r: float = 0.1,
    maxorder: int = 1,
    overwrite: bool = False,
) -> Path:
    """Run the Section 4 pipeline on the demo data and write the report.

    Parameters
    ----------
    out_dir : path
        Created if needed; receives ``report.html``, ``report.md``, ``risk_by_radius.csv``,
        ``risk_utility.csv``, the other tables and the PNG figures.
    seed : int
        Seed of the synthesis (each scenario uses it).
    m : int
        Synthetic datasets per scenario.
    radii : sequence of float
        Percentage radii of the sweep, applied to every continuous known/synthesised variable.
    progress : bool, optional
        Progress bars.
    rng : {"numpy", "r"}
        idrisk's synthesizer stream: fast numpy or R-identical.
    n : int
        Rows of the simulated data (:func:`idrisk.datasets.load_demo`).
    data : DataFrame, optional
        Use this instead of the simulated data (CE columns required).
    r : float
        Radius of the risk and utility tables.
    maxorder : int
        Interactions in the U_p propensity model (1: two-way, as the article).
    overwrite : bool
        Replace an existing report folder (otherwise an error).

    Returns
    -------
    pathlib.Path of ``report.md`` (``report.html`` is beside it).

    Examples
    --------
    >>> import tempfile
    >>> p = run_demo(tempfile.mkdtemp(), m=2, n=400, radii=[0.05, 0.1])  # doctest: +SKIP
    >>> p.name  # doctest: +SKIP
    'report.md'
    """
    import warnings

    from idrisk._output import check_target
    from idrisk.reporting import report
    from idrisk.synthesis import syn

    if m < 1:
        raise ValueError(f"m must be >= 1, got {m}")
    check_target(out_dir, overwrite=overwrite)  # before the synthesis, not after
    data = load_demo(n=n) if data is None else data
    scenarios = {
        k: Scenario(v, syn(data, m=m, syn=v, seed=seed, rng=rng, progress=progress))
        for k, v in DEMO_SCENARIOS.items()
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # they are listed in the report
        rep = report(
            data, scenarios, DEMO_KNOWN, r=r, out_dir=out_dir, radii=radii, maxorder=maxorder,
            progress=progress, overwrite=overwrite,
            sources={"confidential": "simulated CE-like sample (idrisk.datasets.load_demo)"},
            title="idrisk demo: identification risk and utility of CART partial synthesis",
            intro=[
                f"Data: simulated CE-like sample (`idrisk.datasets.load_demo`, n = {len(data)}); "
                f"m = {m} synthetic datasets per scenario (idrisk CART synthesizer, rng = "
                f"{rng!r}, seed = {seed}), as in Hornby & Hu (2021), Section 4."
            ],
        )
    return rep.files.markdown
