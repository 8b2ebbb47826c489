"""Command line: ``idrisk risk``, ``idrisk report``, ``idrisk demo``, ``idrisk check-r``.

Examples
--------
::

    idrisk risk conf.csv syn1.csv syn2.csv --known Age Urban Marital --syn Income \\
        --categorical Urban Marital -r 0.1 --out-dir risk-out
    idrisk report conf.csv syn1.csv syn2.csv --known Age Urban Marital --syn Income \\
        --categorical Urban Marital -r 0.1 --out-dir my-report
    idrisk demo --out-dir idrisk-demo-report

One vocabulary across subcommands: ``--categorical`` (alias ``--factors``) and
``--continuous`` declare column types, ``--euclidean`` (alias ``--euclidean-dist``),
``--absolute``, ``-r/--radius`` (numbers, ``0.1,0.2`` or R's ``c(0.1, 0.2)``), ``--align``,
``--synthetic``/``--confidential`` (aliases of the positional files; ``--syndata``/``--orig``
too), ``--out-dir``, ``--progress/--no-progress``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from . import __version__
from ._interface import interface

__all__ = ["main", "parse_radius", "read_table"]

#: inputs larger than this (bytes, all files) get a reading progress bar on a terminal
PROGRESS_BYTES = 20_000_000


def read_table(
    path: str | Path,
    categorical: Sequence[str] = (),
    *,
    continuous: Sequence[str] = (),
) -> pd.DataFrame:
    """Read a CSV or Parquet file; ``categorical`` columns become categories.

    CSV files carry no types, so numeric-coded factors (e.g. CEdata's Urban ``1``/``2``) must be
    named in ``categorical``; Parquet keeps pandas' categorical dtype. Text columns stay text
    (factors for :func:`idrisk.identification_risk`, which names a text column of numbers such
    as incomes with a stray ``n/a``). The frame remembers its file in
    ``frame.attrs["source"]`` for messages. Only ``NA`` and empty cells are missing values.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    try:
        if path.suffix.lower() in (".parquet", ".pq"):
            frame = pd.read_parquet(path)
        else:
            frame = pd.read_csv(path, keep_default_na=False, na_values=["NA", ""])
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path} is empty (no header, no rows)") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, OSError) as err:
        raise ValueError(f"{path} could not be read: {err}") from None
    if frame.shape[1] == 0:
        raise ValueError(f"{path} has no columns")
    missing = [c for c in categorical if c not in frame.columns]
    if missing:
        raise KeyError(f"--categorical: column(s) {missing} not found in {path}")
    missing = [c for c in continuous if c not in frame.columns]
    if missing:
        raise KeyError(f"--continuous: column(s) {missing} not found in {path}")
    for column in categorical:
        values = frame[column].astype("string").astype(object).where(frame[column].notna())
        frame[column] = values.astype("category")
    frame.attrs["source"] = str(path)
    return frame


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
        raise ValueError(
            f"-r/--radius: cannot read {text!r}; write -r 0.1, -r 0.1 0.2, -r 0.1,0.2 or "
            "R's -r 'c(0.1, 0.2)' (quoted, so the shell passes it on)"
        )
    values = []
    for token in re.split(r"[,\s]+", text.strip()):
        if not token:
            continue
        if not _NUMBER.match(token):
            raise ValueError(
                f"-r/--radius: cannot read {token!r} as a number; write -r 0.1, -r 0.1 0.2, "
                "-r 0.1,0.2 or R's -r 'c(0.1, 0.2)'"
            )
        values.append(float(token[:-1]) / 100 if token.endswith("%") else float(token))
    if not values:
        raise ValueError("-r/--radius: no number given")
    return values[0] if len(values) == 1 else values


# --------------------------------------------------------------------------- shared options


def _add_input_arguments(p: argparse.ArgumentParser, *, synthetic_required: bool) -> None:
    p.add_argument("confidential", nargs="?", help="confidential data (CSV or Parquet)")
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
        "unless --absolute",
    )
    p.add_argument("--absolute", action="store_true",
                   help="absolute radius (R's percentage = FALSE)")
    p.add_argument("--euclidean", "--euclidean-dist", dest="euclidean", action="store_true",
                   help="R's euclideanDist = TRUE")
    p.add_argument("--categorical", "--factors", dest="categorical", nargs="*", default=[],
                   help="columns that are categories even if they hold numbers (e.g. codes)")
    p.add_argument("--continuous", nargs="*", default=[],
                   help="columns matched within the radius even if stored as text")
    p.add_argument(
        "--align", choices=["position", "index"], default=None,
        help="Parquet files that keep an index with different labels: pair rows by 'position' "
        "(R's rule) or reorder them by 'index' (CSV files carry no index: by position)",
    )
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bars (default: on a terminal, for large inputs)")


def _inputs(args: argparse.Namespace) -> tuple[str, list[str]]:
    files = ([args.confidential] if args.confidential else []) + list(args.synthetic)
    if args.confidential_opt:
        files.insert(0, args.confidential_opt)
    files += list(args.synthetic_opt)
    if not files:
        raise ValueError("no confidential file given (first argument or --confidential)")
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


def _read_all(args: argparse.Namespace, paths: Sequence[str], show: bool) -> list[pd.DataFrame]:
    from tqdm.auto import tqdm

    frames = []
    for path in tqdm(paths, desc="reading", unit="file", disable=not show):
        frames.append(read_table(path, args.categorical, continuous=args.continuous))
    return frames


def _write_csv(frame: pd.DataFrame, path: Path, show: bool, index: bool = False) -> None:
    from tqdm.auto import tqdm

    chunk = 100_000
    if not show or len(frame) <= chunk:
        frame.to_csv(path, index=index)
        return
    with open(path, "w", newline="") as handle:
        for k in tqdm(range(0, len(frame), chunk), desc=f"writing {path.name}", unit="chunk"):
            frame.iloc[k : k + chunk].to_csv(handle, header=k == 0, index=index)


# --------------------------------------------------------------------------- risk


def _add_risk_parser(sub) -> None:
    p = sub.add_parser(
        "risk",
        help="identification risk of synthetic files against a confidential file",
        description="Compute R's IdentificationRisk() for CSV/Parquet files and write record-level "
        "risk (records.csv: one row per record, numbered from 1) and the per-dataset summary "
        "(summary.csv).",
    )
    _add_input_arguments(p, synthetic_required=True)
    p.add_argument(
        "--out-dir", default="idrisk-risk", help="output directory (default: %(default)s)"
    )
    p.set_defaults(func=_run_risk)


def records_table(result) -> pd.DataFrame:
    """records.csv: ``record`` (1..n), record_risk, then risk, c, T, K, F per dataset."""
    parts = [result.record_risk.reset_index(drop=True)]
    for name in ("risk", "c", "T", "K", "F"):
        block = getattr(result, name).reset_index(drop=True)
        parts.append(block.add_prefix(f"{name}_"))
    records = pd.concat(parts, axis=1)
    index = result.c.index
    if not (isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1):
        records.insert(0, "index", index.to_numpy())
    records.insert(0, "record", range(1, len(records) + 1))
    return records


def _run_risk(args: argparse.Namespace) -> int:
    from .risk import identification_risk

    conf_path, syn_paths = _inputs(args)
    if not syn_paths:
        raise ValueError("no synthetic file given (after the confidential file, or --synthetic)")
    show = _progress(args, [conf_path, *syn_paths])
    confidential, *synthetic = _read_all(args, [conf_path, *syn_paths], show)
    result = identification_risk(
        confidential,
        synthetic,
        args.known,
        args.syn,
        r=parse_radius(args.radius),
        percentage=not args.absolute,
        euclidean_dist=args.euclidean,
        categorical=args.categorical or None,
        continuous=args.continuous or None,
        align=args.align,
        progress=_engine_progress(args),
    )
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _write_csv(records_table(result), out / "records.csv", show)
    summary = result.to_frame()
    if result.checks is not None:
        summary = pd.concat([summary, result.checks], axis=1)
    summary.insert(0, "file", syn_paths)
    summary.to_csv(out / "summary.csv")
    print(result)
    print("\ndatasets: " + ", ".join(f"{j} = {p}" for j, p in enumerate(syn_paths, start=1)))
    print(f"wrote {out / 'records.csv'} and {out / 'summary.csv'}")
    return 0


# --------------------------------------------------------------------------- report


def _add_report_parser(sub) -> None:
    p = sub.add_parser(
        "report",
        help="an HTML + Markdown report on risk and utility of your synthetic files",
        description="Risk per synthetic file (s, expected risk as a count and a share of n, "
        "true and false match rates), record-level risk and the highest-risk records, a radius "
        "sweep with the maximising radius, and utility (U_p, ECDFs); report.html is "
        "self-contained.",
    )
    _add_input_arguments(p, synthetic_required=False)
    p.add_argument(
        "--scenario", nargs="+", action="append", default=[], metavar="NAME:VARS FILE",
        help="another scenario: NAME:VAR1,VAR2 then its synthetic files, e.g. "
        "--scenario 2:Tenure,Income s2/*.csv (repeatable)",
    )
    p.add_argument("--radii", nargs="+", type=float, default=[0.01, 0.025, 0.05, 0.1, 0.2, 0.3],
                   help="radii of the sweep (default: %(default)s)")
    p.add_argument("--no-sweep", action="store_true", help="skip the radius sweep")
    p.add_argument("--no-utility", action="store_true", help="skip U_p and the ECDFs")
    p.add_argument("--maxorder", type=int, default=1,
                   help="U_p model: 0 = main effects, 1 = + two-way interactions (default)")
    p.add_argument("--top", type=int, default=10, help="highest-risk records listed")
    p.add_argument("--title", default="Identification risk of synthetic data")
    p.add_argument("--out-dir", default="idrisk-report",
                   help="output directory (default: %(default)s)")
    p.set_defaults(func=_run_report)


def _run_report(args: argparse.Namespace) -> int:
    from .report import report

    conf_path, syn_paths = _inputs(args)
    scenarios: dict[str, tuple[list[str], list[str]]] = {}
    if syn_paths:
        if not args.syn:
            raise ValueError("--syn: name the synthesized variables of the synthetic files")
        scenarios["1"] = (list(args.syn), syn_paths)
    for spec in args.scenario:
        head, files = spec[0], spec[1:]
        if ":" not in head or not files:
            raise ValueError(
                f"--scenario {' '.join(spec)}: write NAME:VAR1,VAR2 followed by the files, "
                "e.g. --scenario 2:Tenure,Income s2_1.csv s2_2.csv"
            )
        name, variables = head.split(":", 1)
        if name in scenarios:
            raise ValueError(f"--scenario: the name {name!r} is used twice")
        scenarios[name] = ([v for v in variables.split(",") if v], files)
    if not scenarios:
        raise ValueError("no synthetic file given (after the confidential file, --synthetic or "
                         "--scenario)")
    all_paths = [conf_path] + [p for _, files in scenarios.values() for p in files]
    show = _progress(args, all_paths)
    frames = _read_all(args, all_paths, show)
    confidential, rest = frames[0], frames[1:]
    synthetic, syn_vars, k = {}, {}, 0
    for name, (variables, files) in scenarios.items():
        synthetic[name] = rest[k : k + len(files)]
        syn_vars[name] = variables
        k += len(files)
    rep = report(
        confidential,
        synthetic,
        args.known,
        syn_vars,
        r=parse_radius(args.radius) if args.radius else 0.1,
        out_dir=args.out_dir,
        radii=None if args.no_sweep else args.radii,
        percentage=not args.absolute,
        euclidean_dist=args.euclidean,
        categorical=args.categorical or None,
        continuous=args.continuous or None,
        align=args.align,
        utility=not args.no_utility,
        maxorder=args.maxorder,
        top=args.top,
        title=args.title,
        sources={"origdata": conf_path,
                 "synthetic": {name: files for name, (_, files) in scenarios.items()}},
        progress=show,
    )
    print(rep.tables["summary"].to_string(float_format=lambda v: f"{v:.6g}"))
    print(f"\nwrote {rep.html} and {rep.markdown}")
    return 0


# --------------------------------------------------------------------------- demo


def _add_demo_parser(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="synthesize the built-in dataset, measure risk over radii, write a report",
        description="The main job on built-in data: CART partial synthesis, identification risk "
        "over a grid of radii, utility, and the report of `idrisk report` (HTML + Markdown).",
    )
    p.add_argument("--out-dir", default="idrisk-demo-report", help="report directory")
    p.add_argument("--seed", type=int, default=2021)
    p.add_argument("--m", type=int, default=5, help="number of synthetic datasets")
    p.add_argument(
        "--rng",
        choices=["numpy", "r"],
        default="numpy",
        help="random stream: numpy (fast) or r (synthpop-identical draws)",
    )
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bars (default: on a terminal)")
    p.set_defaults(func=_run_demo)


def _run_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    progress = sys.stderr.isatty() if args.progress is None else args.progress
    report = run_demo(args.out_dir, seed=args.seed, m=args.m, rng=args.rng, progress=progress)
    print(f"report written to {report} and {report.with_suffix('.html')}")
    return 0


# --------------------------------------------------------------------------- check-r


def _add_check_r_parser(sub) -> None:
    p = sub.add_parser(
        "check-r",
        help="cross-check idrisk against the R package (needs R, rpy2 and the R packages)",
    )
    try:
        from .rcompat import add_check_r_arguments, run_check_r
    except ImportError as err:  # pragma: no cover - only when the module itself is broken
        reason = str(err)

        def unavailable(_args: argparse.Namespace) -> int:
            print(f"idrisk check-r is unavailable: {reason}", file=sys.stderr)
            return 2

        p.set_defaults(func=unavailable)
        return
    add_check_r_arguments(p)
    # the shared vocabulary as aliases of check-r's own option names
    aliases = [
        (["--confidential"], {"dest": "orig", "type": Path, "help": "alias of --orig"}),
        (["--synthetic"], {"dest": "syndata", "nargs": "+", "type": Path,
                           "help": "alias of --syndata"}),
        (["--categorical"], {"dest": "factors", "nargs": "*", "help": "alias of --factors"}),
        (["--euclidean"], {"dest": "euclidean_dist", "action": "store_true",
                           "help": "alias of --euclidean-dist"}),
    ]
    existing = {s for a in p._actions for s in a.option_strings}
    for flags, kwargs in aliases:
        if not set(flags) & existing:
            p.add_argument(*flags, **kwargs)
    p.set_defaults(func=run_check_r)


def _add_survey_parser(sub) -> None:
    """``idrisk survey-table`` from :mod:`idrisk.survey.cli`, when that module exists."""
    if importlib.util.find_spec("idrisk.survey.cli") is None:
        return
    from .survey import cli as survey_cli

    p = sub.add_parser(
        "survey-table",
        help="private survey tables (FBS, FBP, Laplace)",
        description=(survey_cli.__doc__ or "").split("\n\n")[0] or None,
    )
    survey_cli.add_arguments(p)
    p.set_defaults(func=survey_cli.run)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="idrisk", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"idrisk {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_risk_parser(sub)
    _add_report_parser(sub)
    _add_demo_parser(sub)
    _add_check_r_parser(sub)
    _add_survey_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    seen: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None):  # noqa: ARG001
        text = str(message)
        if text not in seen:
            seen.add(text)
            print(f"idrisk {args.command}: warning: {text}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        for category in (DeprecationWarning, PendingDeprecationWarning, FutureWarning):
            warnings.filterwarnings("ignore", category=category)
        warnings.showwarning = show
        try:
            with interface("cli"):
                return int(args.func(args) or 0)
        except (KeyError, ValueError, TypeError, FileNotFoundError) as err:
            message = err.args[0] if isinstance(err, KeyError) and err.args else err
            print(f"idrisk {args.command}: error: {message}", file=sys.stderr)
            return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
