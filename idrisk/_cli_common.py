"""The command line's shared pieces: the flags every subcommand reads its inputs with, the
radius parser, reading with a progress bar, CSV writing and the translation of the library's
input errors into the CLI's words (:mod:`idrisk.cli` builds the subcommands from them).

Imports neither numpy nor pandas at module level, so ``idrisk --help`` stays quick.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._progress import progress_bar
from ._read import read_table
from .exceptions import InputError

if TYPE_CHECKING:
    import pandas as pd

#: inputs larger than this (bytes, all files) get a reading progress bar on a terminal
PROGRESS_BYTES = 20_000_000

_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?%?$")


def parse_radius(tokens: Sequence[str] | None) -> float | list[float] | None:
    """The radius from the command line: ``0.1``, ``0.1 0.2``, ``0.1,0.2``, ``c(0.1, 0.2)`` or
    ``10%`` (= 0.1).

    Examples
    --------
    >>> parse_radius(["c(0.05,", "0.2)"]), parse_radius(["0.1"]), parse_radius(["10%"])
    ([0.05, 0.2], 0.1, 0.1)
    """
    if not tokens:
        return None
    text = " ".join(tokens).strip()
    if text.startswith("c(") and text.endswith(")"):
        text = text[2:-1]
    elif text.startswith(("c(", "(")) or text.endswith(")"):
        raise InputError(
            f"-r/--radius: cannot read {text!r}; write -r 0.1, -r 0.1 0.2, -r 0.1,0.2 or "
            "R's -r 'c(0.1, 0.2)' (quoted, so the shell passes it on)", flag="-r/--radius"
        )
    values = []
    for token in re.split(r"[,\s]+", text.strip()):
        if not token:
            continue
        if not _NUMBER.match(token):
            raise InputError(
                f"-r/--radius: cannot read {token!r} as a number; write -r 0.1, -r 0.1 0.2, "
                "-r 0.1,0.2 or R's -r 'c(0.1, 0.2)'", flag="-r/--radius"
            )
        values.append(float(token[:-1]) / 100 if token.endswith("%") else float(token))
    if not values:
        raise InputError("-r/--radius: no number given", flag="-r/--radius")
    return values[0] if len(values) == 1 else values


# --------------------------------------------------------------------------- shared options


def _add_reading_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--na-values", nargs="+", default=[], metavar="VALUE",
                   help="cell values read as missing besides NA and empty cells, e.g. "
                   "--na-values -8 -9 (a survey's missing-value codes)")
    p.add_argument("--encoding", default=None,
                   help="text encoding of CSV files (default utf-8; e.g. latin-1, cp1252)")
    p.add_argument("--sep", default=None,
                   help="CSV delimiter (default ','; e.g. --sep ';' or --sep $'\\t')")


def _add_output_arguments(p: argparse.ArgumentParser, default: str) -> None:
    p.add_argument("--out-dir", default=default,
                   help="output folder, written whole or not at all (default: %(default)s)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an existing output folder (otherwise an error)")


def _add_input_arguments(p: argparse.ArgumentParser, *, synthetic_required: bool) -> None:
    p.add_argument("confidential", nargs="?",
                   help="confidential data (CSV, Parquet, SAS, Stata, SPSS or R file)")
    p.add_argument(
        "synthetic", nargs="*", help="synthetic files: row i of each is the synthetic record i"
    )
    p.add_argument("--confidential", "--orig", dest="confidential_opt", metavar="FILE",
                   help="the confidential file (instead of the first positional argument)")
    p.add_argument("--synthetic", "--syndata", dest="synthetic_opt", nargs="+", default=[],
                   metavar="FILE", help="synthetic files (in addition to positional ones)")
    p.add_argument("--known", nargs="*", default=[], help="known (unsynthesized) variables")
    p.add_argument("--syn", nargs="+", required=synthetic_required,
                   help="synthesized variables")
    p.add_argument(
        "-r", "--radius", nargs="+", default=None, metavar="R",
        help="radius: one value for every continuous known/syn column, or one per column in "
        "file order (0.1 0.2, 0.1,0.2 or R's 'c(0.1, 0.2)'; 10%% = 0.1); a percentage radius "
        "unless --absolute; default: none, every variable matched exactly (R's r = NULL)",
    )
    p.add_argument("--absolute", action="store_true",
                   help="absolute radius (R's percentage = FALSE)")
    p.add_argument("--euclidean", "--euclidean-dist", dest="euclidean", action="store_true",
                   help="R's euclideanDist = TRUE")
    p.add_argument("--abs-radius", action="store_true",
                   help="percentage radius from |x|, so that values <= 0 can be matched "
                   "(R: never matched)")
    p.add_argument("--closed", action="store_true",
                   help="match on the boundary of the radius too (R: strictly inside)")
    p.add_argument("--na-never-matches", action="store_true",
                   help="a missing value never matches (R: NA matches anything)")
    p.add_argument("--categorical", "--factors", dest="categorical", nargs="*", default=[],
                   help="columns that are categories even if they hold numbers (e.g. codes)")
    p.add_argument("--continuous", nargs="*", default=[],
                   help="columns matched within the radius even if stored as text")
    p.add_argument(
        "--align", choices=["position", "index"], default=None,
        help="Parquet files that keep an index with different labels: pair rows by 'position' "
        "(R's rule) or reorder them by 'index' (CSV files carry no index: by position)",
    )
    _add_reading_arguments(p)
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bars (default: on a terminal, for large inputs)")


def _inputs(args: argparse.Namespace) -> tuple[str, list[str]]:
    files = ([args.confidential] if args.confidential else []) + list(args.synthetic)
    if args.confidential_opt:
        files.insert(0, args.confidential_opt)
    files += list(args.synthetic_opt)
    if not files:
        raise InputError("no confidential file given (first argument or --confidential)",
                         flag="--confidential")
    return files[0], files[1:]


def _progress(args: argparse.Namespace, paths: Sequence[str]) -> bool:
    if args.progress is not None:
        return bool(args.progress)
    if not sys.stderr.isatty():
        return False
    size = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
    return size >= PROGRESS_BYTES


def _engine_progress(args: argparse.Namespace) -> bool | None:
    """--progress / --no-progress, else the engine's own rule on a terminal, else off."""
    if args.progress is not None:
        return bool(args.progress)
    return None if sys.stderr.isatty() else False


def _read_all(args: argparse.Namespace, paths: Sequence[str], show: bool,
              roles: Sequence[str]) -> list[pd.DataFrame]:
    frames = []
    for path, role in progress_bar(list(zip(paths, roles, strict=True)), desc="reading",
                                   unit="file", show=show):
        frames.append(read_table(path, args.categorical, continuous=args.continuous,
                                 na_values=args.na_values, encoding=args.encoding,
                                 sep=args.sep, flag=role))
    return frames


def _write_csv(frame: pd.DataFrame, path: Path, show: bool, index: bool = False) -> None:
    chunk = 100_000
    if not show or len(frame) <= chunk:
        frame.to_csv(path, index=index)
        return
    with open(path, "w", newline="") as handle:
        for k in progress_bar(range(0, len(frame), chunk), desc=f"writing {path.name}",
                              unit="chunk", show=True):
            frame.iloc[k : k + chunk].to_csv(handle, header=k == 0, index=index)


def _risk_options(args: argparse.Namespace) -> dict[str, Any]:
    """The matching rules of :func:`idrisk.identification_risk` from the flags."""
    return {"percentage": not args.absolute, "euclidean_dist": args.euclidean,
            "abs_radius": args.abs_radius, "closed": args.closed,
            "na_matches": not args.na_never_matches, "categorical": args.categorical or None,
            "continuous": args.continuous or None, "align": args.align}


def _library_input_error(err: Exception) -> InputError:
    """The library's check of the user's columns/arguments, as the CLI's one-line error."""
    message = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
    return InputError(str(message))


# --------------------------------------------------------------------------- risk
