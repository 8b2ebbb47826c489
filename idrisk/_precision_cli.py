"""The command line's precision and what-if parts: ``idrisk risk --level/--precision/--relative``
and ``idrisk whatif`` (:mod:`idrisk.risk.precision`, :mod:`idrisk.risk.whatif`).

Every check of the user's flags runs before any file is written; outputs go through
:mod:`idrisk._output` (atomic).
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ._output import CSV_FLOAT_FORMAT
from .exceptions import InputError

__all__ = ["check_precision_flags", "interval_lines", "interval_output", "parse_bands",
           "parse_merge", "records_stability", "run_whatif"]

_SPEC = re.compile(r"^([^=]+)=(.+)$")


def check_precision_flags(args: argparse.Namespace, m: int) -> None:
    """``--precision``/``--relative``: one of them, > 0, and m >= 2 files."""
    given = [(flag, value) for flag, value in (("--precision", args.precision),
                                               ("--relative", args.relative))
             if value is not None]
    if len(given) == 2:
        raise InputError("--precision and --relative: give one of them (records, or a share "
                         "of the estimate)", flag="--precision")
    for flag, value in given:
        if not (math.isfinite(value) and value > 0):
            raise InputError(f"{flag} must be > 0, got {value:g}", flag=flag)
        if m < 2:
            raise InputError(f"{flag}: {m} synthetic file: the number of files needed is "
                             "estimated from the spread over 2 or more files (5 or more give a "
                             "steadier estimate)", flag=flag)


def interval_output(result: Any, level: float) -> pd.DataFrame:
    """interval.csv: mean, se, lower, upper per measure; empty cells and a note for m = 1."""
    table = result.interval(level)
    table["note"] = table.attrs.get("note", "")
    return table


def interval_lines(result: Any, args: argparse.Namespace) -> list[str]:
    """The printed interval (or why there is none) and the m advice."""
    from .risk.precision import m_advice_text, required_m

    table = result.interval(args.level)
    level = f"{100 * args.level:g}%"
    if table.attrs.get("note"):
        lines = [f"Monte-Carlo interval: {table.attrs['note']}"]
    else:
        shown = table[["mean", "se", "lower", "upper"]]
        lines = [f"Monte-Carlo {level} interval over the m = {result.m} synthetic datasets "
                 "(covers the randomness of synthesis, not the sampling of the confidential "
                 "data):", shown.to_string(float_format=lambda v: f"{v:.6g}")]
    for value, relative in ((args.precision, False), (args.relative, True)):
        if value is not None:
            m = required_m(result, precision=None if relative else value,
                           relative=value if relative else None, level=args.level)
            lines.append(m_advice_text(result, m, value, relative=relative, level=args.level))
    return lines


def records_stability(records: pd.DataFrame, result: Any) -> pd.DataFrame:
    """records.csv with ``datasets_identified``: in how many datasets the record is a unique
    true match (K = 1)."""
    from .risk.precision import record_stability

    out = records.copy()
    at = list(out.columns).index("record_risk") + 1
    out.insert(at, "datasets_identified", record_stability(result)["identified"].to_numpy())
    return out


def parse_bands(specs: Sequence[str]) -> dict[str, float]:
    """``--bands Income=5000 Age=5`` -> ``{"Income": 5000.0, "Age": 5.0}``.

    Examples
    --------
    >>> parse_bands(["Income=5000", "Age=5"])
    {'Income': 5000.0, 'Age': 5.0}
    """
    out: dict[str, float] = {}
    for spec in specs:
        found = _SPEC.match(spec)
        try:
            width = float(found.group(2)) if found else math.nan
        except ValueError:
            width = math.nan
        if not found or math.isnan(width):
            raise InputError(f"--bands {spec}: write VARIABLE=WIDTH, e.g. --bands Income=5000",
                             flag="--bands")
        if not (math.isfinite(width) and width > 0):
            raise InputError(f"--bands {spec}: the band width must be > 0", flag="--bands",
                             column=found.group(1))
        out[found.group(1)] = width
    return out


def parse_merge(specs: Sequence[str]) -> dict[str, list[list[str]]]:
    """``--merge Marital=2,3 Marital=4,5`` -> ``{"Marital": [["2", "3"], ["4", "5"]]}``.

    Examples
    --------
    >>> parse_merge(["Marital=2,3", "Marital=4,5"])
    {'Marital': [['2', '3'], ['4', '5']]}
    """
    out: dict[str, list[list[str]]] = {}
    for spec in specs:
        found = _SPEC.match(spec)
        levels = [x for x in found.group(2).split(",") if x] if found else []
        if not found or len(levels) < 2:
            raise InputError(f"--merge {spec}: write VARIABLE=LEVEL,LEVEL (two or more levels), "
                             "e.g. --merge Marital=2,3,4", flag="--merge")
        out.setdefault(found.group(1), []).append(levels)
    return out


def run_whatif(args: argparse.Namespace, confidential: pd.DataFrame,
               synthetic: list[pd.DataFrame], radius: Any, bands: dict, merge: dict,
               risk_options: dict, syn_paths: Sequence[str]) -> int:
    """Compute the what-if table and write whatif.csv, whatif_datasets.csv, fig_whatif.png."""
    import io

    from ._output import atomic_dir
    from .risk.options import RiskOptions
    from .risk.whatif import what_if

    try:
        options = RiskOptions(known=args.known, syn=args.syn, r=radius, **risk_options)
        result = what_if(confidential, synthetic, r=radius, radii=args.radii, bands=bands,
                         merge=merge, level=args.level, options=options)
    except (KeyError, ValueError) as err:  # unknown variables, bad widths, levels, radii
        message = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
        raise InputError(str(message)) from None
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9.0, max(4.4, 1.2 + 0.32 * len(result.table))), layout="constrained")
    result.plot(ax=fig.subplots())
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=100)
    datasets = result.to_frame().copy()
    datasets.insert(4, "file", [syn_paths[j - 1] for j in datasets["dataset"]])
    with atomic_dir(args.out_dir, overwrite=args.overwrite) as tmp:
        result.table.to_csv(tmp / "whatif.csv", index=False, float_format=CSV_FLOAT_FORMAT)
        datasets.to_csv(tmp / "whatif_datasets.csv", index=False,
                        float_format=CSV_FLOAT_FORMAT)
        (tmp / "fig_whatif.png").write_bytes(png.getvalue())
    out = Path(args.out_dir)
    print(result)
    print(f"\nwrote {out / 'whatif.csv'}, {out / 'whatif_datasets.csv'} and "
          f"{out / 'fig_whatif.png'} ({result.seconds:.2f} s)")
    return 0
