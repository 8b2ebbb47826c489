"""Command line: ``idrisk risk``, ``idrisk demo``, ``idrisk check-r``.

Examples
--------
::

    idrisk risk conf.csv syn1.csv syn2.csv --known Age Urban Marital --syn Income \\
        --categorical Urban Marital -r 0.1 --out-dir risk-out
    idrisk demo --out-dir idrisk-demo-report
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from . import __version__
from .risk._prepare import is_categorical_dtype_like

__all__ = ["main", "read_table"]


def read_table(path: str | Path, categorical: Sequence[str] = ()) -> pd.DataFrame:
    """Read a CSV or Parquet file; text columns and ``categorical`` ones become categories.

    CSV files carry no types, so numeric-coded factors (e.g. CEdata's Urban ``1``/``2``) must be
    named in ``categorical``; Parquet keeps pandas' categorical dtype.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    if path.suffix.lower() in (".parquet", ".pq"):
        frame = pd.read_parquet(path)
    else:
        frame = pd.read_csv(path, keep_default_na=False, na_values=["NA", ""])
    missing = [c for c in categorical if c not in frame.columns]
    if missing:
        raise KeyError(f"--categorical: column(s) {missing} not found in {path}")
    for column in frame.columns:
        if column in categorical or is_categorical_dtype_like(frame[column]):
            values = frame[column].astype("string").astype(object).where(frame[column].notna())
            frame[column] = values.astype("category")
    return frame


def _radius(values: list[float] | None) -> float | list[float] | None:
    if not values:
        return None
    return values[0] if len(values) == 1 else values


def _add_risk_parser(sub) -> None:
    p = sub.add_parser(
        "risk",
        help="identification risk of synthetic files against a confidential file",
        description="Compute R's IdentificationRisk() for CSV/Parquet files and write record-level "
        "risk (records.csv) and the per-dataset summary (summary.csv).",
    )
    p.add_argument("confidential", help="confidential data (CSV or Parquet)")
    p.add_argument("synthetic", nargs="+", help="one or more synthetic files, same rows and order")
    p.add_argument("--known", nargs="*", default=[], help="known (unsynthesized) variables")
    p.add_argument("--syn", nargs="+", required=True, help="synthesized variables")
    p.add_argument(
        "-r",
        "--radius",
        nargs="+",
        type=float,
        default=None,
        help="radius: one value, or one per continuous known/syn column in file order; "
        "omit for exact matching of every variable",
    )
    p.add_argument("--absolute", action="store_true", help="radius is absolute (percentage=FALSE)")
    p.add_argument("--euclidean", action="store_true", help="R's euclideanDist = TRUE")
    p.add_argument("--categorical", nargs="*", default=[], help="numeric columns that are factors")
    p.add_argument(
        "--out-dir", default="idrisk-risk", help="output directory (default: %(default)s)"
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: on for large inputs)",
    )
    p.set_defaults(func=_run_risk)


def _run_risk(args: argparse.Namespace) -> int:
    from .risk import identification_risk

    confidential = read_table(args.confidential, args.categorical)
    synthetic = [read_table(p, args.categorical) for p in args.synthetic]
    result = identification_risk(
        confidential,
        synthetic,
        args.known,
        args.syn,
        r=_radius(args.radius),
        percentage=not args.absolute,
        euclidean_dist=args.euclidean,
        progress=args.progress,
    )
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    records = pd.concat(
        [
            result.record_risk,
            result.risk.add_prefix("risk_"),
            result.c.add_prefix("c_"),
            result.T.add_prefix("T_"),
        ],
        axis=1,
    )
    records.index.name = "record"
    records.to_csv(out / "records.csv")
    summary = result.to_frame()
    summary.to_csv(out / "summary.csv")
    print(result)
    print(f"\nwrote {out / 'records.csv'} and {out / 'summary.csv'}")
    return 0


def _add_demo_parser(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="synthesize the built-in dataset, measure risk over radii, write a report",
        description="The main job on built-in data: CART partial synthesis, identification risk "
        "over a grid of radii, utility, and a report with plots.",
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
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True)
    p.set_defaults(func=_run_demo)


def _run_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    report = run_demo(args.out_dir, seed=args.seed, m=args.m, rng=args.rng, progress=args.progress)
    print(f"report written to {report}")
    return 0


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
    p.set_defaults(func=run_check_r)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="idrisk", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"idrisk {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_risk_parser(sub)
    _add_demo_parser(sub)
    _add_check_r_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (KeyError, ValueError, TypeError, FileNotFoundError) as err:
        message = err.args[0] if isinstance(err, KeyError) and err.args else err
        print(f"idrisk {args.command}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
