"""``idrisk survey-table``: a survey table (direct, FBS, FBP or Laplace) written as CSV.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="idrisk survey-table")
>>> add_arguments(parser)
>>> args = parser.parse_args(["s.csv", "--y", "salary", "--weight", "w", "--strata", "field",
...                           "--by", "field", "gender", "--method", "laplace"])
>>> args.method, args.by, args.epsilon, args.m
('laplace', ['field', 'gender'], None, 3)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

__all__ = ["add_arguments", "run"]

METHODS = ("direct", "fbs", "fbp", "laplace")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``survey-table`` arguments to ``parser``."""
    parser.add_argument("data", help="CSV file of the confidential sample")
    parser.add_argument("--y", required=True, help="outcome column")
    parser.add_argument("--weight", required=True, help="survey weight column")
    parser.add_argument("--strata", default=None, help="stratum column (default: none)")
    parser.add_argument("--by", nargs="+", required=True, help="grouping columns of the table")
    parser.add_argument("--method", choices=METHODS, default="direct",
                        help="direct (design-based, no protection), fbs, fbp or laplace")
    parser.add_argument("--epsilon", type=float, default=None,
                        help="privacy budget: required for laplace; for fbs/fbp the target "
                             "Delta_alpha is epsilon / (2 m)")
    parser.add_argument("-m", type=int, default=3, dest="m",
                        help="number of synthetic datasets (fbs, fbp; default 3)")
    parser.add_argument("--variance", choices=("taylor", "replicate"), default="taylor",
                        help="direct method: Taylor linearization or half-sample replicates")
    parser.add_argument("--replicates", type=int, default=10,
                        help="number of half-sample replicates (laplace, replicate variance)")
    parser.add_argument("--lonely-psu", default="fail",
                        choices=("fail", "remove", "certainty", "adjust", "average"),
                        help="rule for a stratum with one unit (R's survey.lonely.psu)")
    parser.add_argument("--out", default=None, help="output CSV (default: standard output)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")


def run(args: argparse.Namespace) -> int:
    """Run the command; returns the exit status."""
    from . import FBP, FBS, design_table, half_sample_replicates, laplace_table

    path = Path(args.data)
    if not path.is_file():
        print(f"idrisk survey-table: data file {str(path)!r} not found", file=sys.stderr)
        return 2
    data = pd.read_csv(path)
    for col in [args.y, args.weight, *args.by, *([args.strata] if args.strata else [])]:
        if col not in data.columns:
            print(f"idrisk survey-table: column {col!r} not in {path.name} "
                  f"({', '.join(data.columns)})", file=sys.stderr)
            return 2
    try:
        if args.method == "direct":
            reps = None
            if args.variance == "replicate":
                reps = half_sample_replicates(data, args.strata, args.weight,
                                              R=args.replicates, seed=args.seed)
            table = design_table(data, args.y, args.weight, args.strata, args.by,
                                 variance=args.variance, replicate_weights=reps,
                                 lonely_psu=args.lonely_psu)
        elif args.method == "laplace":
            if args.epsilon is None:
                print("idrisk survey-table: --method laplace needs --epsilon", file=sys.stderr)
                return 2
            table = laplace_table(data, args.y, args.weight, args.strata, args.by,
                                  epsilon=args.epsilon, replicates=args.replicates,
                                  seed=args.seed)
        else:
            cls = FBS if args.method == "fbs" else FBP
            target = None if args.epsilon is None else args.epsilon / (2 * args.m)
            synth = cls(target_delta=target, seed=args.seed)
            synth.fit(data, y=args.y, weight=args.weight, design=args.by, strata=args.strata)
            table = synth.synthesize(args.m, seed=args.seed).tables(args.by)
            print(f"idrisk survey-table: {args.method} delta_alpha="
                  f"{synth.delta_alpha_:.4g}, epsilon={table.epsilon:.4g}",
                  file=sys.stderr)
    except (ValueError, KeyError, TypeError) as exc:
        print(f"idrisk survey-table: {exc}", file=sys.stderr)
        return 2
    frame = table.to_frame()
    if args.out:
        frame.to_csv(args.out, index=False)
        print(f"idrisk survey-table: wrote {len(frame)} rows to {args.out}", file=sys.stderr)
    else:
        frame.to_csv(sys.stdout, index=False)
    return 0
