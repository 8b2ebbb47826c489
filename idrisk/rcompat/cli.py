"""``idrisk check-r``: cross-check idrisk against the R package.

Exit codes: 0 all checks agree, 1 a numerical difference, 2 R or an R package is missing,
3 an internal error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..exceptions import RNotAvailableError

__all__ = [
    "add_check_r_arguments",
    "run_check_r",
    "CE_SCENARIOS",
    "EXIT_AGREE",
    "EXIT_DIFFER",
    "EXIT_NO_R",
    "EXIT_INTERNAL",
]

#: synthpop visit sequences of the CE scenarios (known = Age, Urban, Marital)
CE_SCENARIOS = {
    1: ["Income"],
    2: ["Tenure", "Income"],
    3: ["Expenditure", "Income"],
    4: ["Tenure", "Expenditure", "Income"],
}
CE_KNOWN = ["Age", "Urban", "Marital"]
CE_FACTORS = ["Urban", "Tenure", "Marital"]


def add_check_r_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``check-r`` options to ``parser``."""
    parser.epilog = (
        "exit codes: 0 every check agrees (both sides refusing an input counts as agreement), "
        "1 a numerical difference, 2 R, rpy2 or an R package is missing, 3 an internal error"
    )
    src = parser.add_argument_group("what to check (combine freely; default: --ce)")
    src.add_argument(
        "cases",
        nargs="*",
        type=Path,
        help="case directories (orig.csv, syn_<j>.csv, args.json, optional expected.json: "
        "R's stored answer, compared with when IdentificationRiskCalculation is not "
        "installed) or folders of them; the format is described in idrisk.rcompat.cases",
    )
    src.add_argument("--orig", type=Path, help="confidential data CSV")
    src.add_argument(
        "--syndata", nargs="+", type=Path, metavar="CSV", help="synthetic data CSVs (with --orig)"
    )
    src.add_argument("--known", nargs="+", help="known variables (with --orig)")
    src.add_argument("--syn", nargs="+", help="synthesized variables (with --orig)")
    src.add_argument(
        "--factors",
        nargs="*",
        default=[],
        help="columns to read as factors (with --orig; strings always are)",
    )
    src.add_argument(
        "--ce",
        action="store_true",
        help="the CE scenarios: CEdata from IdentificationRiskCalculation, "
        "synthetic data from synthpop::syn (or --ce-syn-dir)",
    )
    opts = parser.add_argument_group("options")
    opts.add_argument(
        "-r",
        "--radius",
        nargs="+",
        type=float,
        default=None,
        help="radius (one number, or one per continuous column); with --ce the "
        "radii to try, each used for every continuous column (default 0.1)",
    )
    opts.add_argument("--absolute", action="store_true", help="percentage = FALSE")
    opts.add_argument("--euclidean-dist", action="store_true", help="euclideanDist = TRUE")
    opts.add_argument(
        "--scenarios",
        nargs="+",
        type=int,
        default=[1, 2, 3, 4],
        choices=sorted(CE_SCENARIOS),
        help="CE scenarios (default all)",
    )
    opts.add_argument("--m", type=int, default=3, help="synthetic datasets per CE scenario")
    opts.add_argument("--seed", type=int, default=2021, help="synthpop seed for --ce")
    opts.add_argument(
        "--ce-syn-dir",
        type=Path,
        help="read CE synthetic data from <dir>/scenario<k>/syn_<NN>.csv instead "
        "of running synthpop",
    )
    opts.add_argument("--atol", type=float, default=0.0, help="tolerance (default exact)")
    opts.add_argument("-q", "--quiet", action="store_true", help="print only differing checks")
    opts.add_argument(
        "--traceback", action="store_true", help="print the traceback of internal errors"
    )


def _case_dirs(paths: list[Path]) -> list[Path]:
    out = []
    for p in paths:
        if (p / "args.json").is_file():
            out.append(p)
        elif p.is_dir():
            out.extend(sorted(q for q in p.iterdir() if (q / "args.json").is_file()))
        else:
            raise FileNotFoundError(f"{p}: neither a case directory nor a folder of cases")
    return out


def _checks(args: argparse.Namespace):
    """Yield (label, callable returning a CrossCheckReport)."""
    import pandas as pd

    from .cases import read_case, read_typed_csv
    from .crosscheck import check_case, cross_check

    percentage = not args.absolute
    state: dict[str, bool] = {}

    def live() -> bool:
        """R and IdentificationRiskCalculation are there (else stored answers are used)."""
        if "live" not in state:
            from ._session import r_package_available
            from .run_r import IRC

            try:
                state["live"] = r_package_available(IRC)
            except RNotAvailableError:
                state["live"] = False
        return state["live"]

    for d in _case_dirs(args.cases):

        def run(d=d):
            c = read_case(d)
            if c.expected is not None and not live():  # R's stored answer: no R needed
                return check_case(c, atol=args.atol)
            return cross_check(
                c.orig,
                c.syn,
                c.known,
                c.syn_vars,
                c.r,
                c.percentage,
                c.euclidean_dist,
                atol=args.atol,
                label=c.name,
            )

        yield d.name, run
    if args.orig is not None:
        if not (args.syndata and args.known and args.syn):
            raise ValueError("--orig needs --syndata, --known and --syn")

        def read(path):
            frame = pd.read_csv(path, keep_default_na=False, na_values=["NA", ""])
            types = {c: "factor" for c in args.factors}
            types.update(
                {c: "factor" for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])}
            )
            types.update(
                {
                    c: ("double" if pd.api.types.is_float_dtype(frame[c]) else "integer")
                    for c in frame.columns
                    if c not in types
                }
            )
            return read_typed_csv(path, types)

        def run_files():
            r = args.radius[0] if args.radius and len(args.radius) == 1 else args.radius
            return cross_check(
                read(args.orig),
                [read(p) for p in args.syndata],
                args.known,
                args.syn,
                r,
                percentage,
                args.euclidean_dist,
                atol=args.atol,
                label=args.orig.name,
            )

        yield args.orig.name, run_files
    if args.ce or not (args.cases or args.orig):
        yield from _ce_checks(args)


def _ce_checks(args: argparse.Namespace):
    from .cases import read_typed_csv
    from .crosscheck import cross_check
    from .run_r import load_r_dataset
    from .synthpop import synthpop_syn

    state: dict = {}

    def ce():
        if "ce" not in state:
            # Urban, Tenure and Marital become factors, as in the package's documented example
            state["ce"] = load_r_dataset("CEdata", "IdentificationRiskCalculation")
        return state["ce"]

    def synthetic(k):
        if k not in state:
            if args.ce_syn_dir is not None:
                types = {
                    c: (
                        "factor"
                        if c in CE_FACTORS
                        else "integer"
                        if c in ("Age", "Educ")
                        else "double"
                    )
                    for c in ce().columns
                }
                files = sorted((args.ce_syn_dir / f"scenario{k}").glob("syn_*.csv"))[: args.m]
                state[k] = [read_typed_csv(f, types) for f in files]
            else:
                state[k] = synthpop_syn(
                    ce(), m=args.m, visit_sequence=CE_SCENARIOS[k], seed=args.seed, print_flag=False
                ).syn
        return state[k]

    for k in args.scenarios:
        for r in args.radius or [0.1]:

            def run(k=k, r=r):
                data = ce()
                used = set(CE_KNOWN) | set(CE_SCENARIOS[k])
                n_cont = sum(1 for c in data.columns if c in used and c not in CE_FACTORS)
                return cross_check(
                    data,
                    synthetic(k),
                    CE_KNOWN,
                    CE_SCENARIOS[k],
                    [r] * n_cont if n_cont > 1 else r,
                    not args.absolute,
                    args.euclidean_dist,
                    atol=args.atol,
                    label=f"CE scenario {k}, r={r:g}",
                )

            yield f"CE scenario {k}, r={r:g}", run


#: exit codes of ``idrisk check-r``
EXIT_AGREE, EXIT_DIFFER, EXIT_NO_R, EXIT_INTERNAL = 0, 1, 2, 3


def run_check_r(args: argparse.Namespace) -> int:
    """Run the checks and return the exit code.

    0: every check agrees (both sides refusing an input counts as agreement); 1: a numerical
    difference (or only one side refused an input); 2: R, rpy2 or an R package is missing (the
    message says what to install); 3: an internal error (a bad case directory, an R error
    outside the compared call, a bug) - never reported as a difference.
    """
    import traceback

    failures = internal = total = 0
    try:
        for label, run in _checks(args):
            total += 1
            try:
                report = run()
            except RNotAvailableError:
                raise
            except Exception as exc:  # noqa: BLE001 - reported, exit code 3
                internal += 1
                print(f"{label}: INTERNAL ERROR {type(exc).__name__}: {exc}", flush=True)
                if getattr(args, "traceback", False):
                    traceback.print_exc()
                continue
            if not report:
                failures += 1
                print(report, flush=True)
                print()
            elif not args.quiet:
                if report.both_refused:
                    print(f"{label}: AGREE (both refused the input)", flush=True)
                    for side in (report.left, report.right):
                        print(f"  {side:>8}: {report.errors[side]}", flush=True)
                else:
                    print(f"{label}: AGREE", flush=True)
    except RNotAvailableError as exc:
        print(f"check-r: {exc}", file=sys.stderr)
        return EXIT_NO_R
    except (OSError, ValueError, KeyError) as exc:  # bad paths or case files
        print(f"check-r: error: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    agree = total - failures - internal
    summary = f"check-r: {agree} of {total} checks agree with R"
    if failures:
        summary += f", {failures} differ"
    if internal:
        summary += f", {internal} failed with an internal error"
    print(summary)
    if internal:
        return EXIT_INTERNAL
    return EXIT_DIFFER if failures else EXIT_AGREE
