"""Command line: ``idrisk risk``, ``idrisk whatif``, ``idrisk report``, ``idrisk disclosure``,
``idrisk demo``, ``idrisk survey-table``, ``idrisk check-r`` (``python -m idrisk`` is the same
command).

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
too), ``--na-values``, ``--encoding``, ``--sep``, ``--out-dir``, ``--overwrite``,
``--progress/--no-progress``.

Outputs are atomic: a command writes into a temporary folder beside ``--out-dir`` and moves
it into place when complete; an existing output is replaced only with ``--overwrite``. Bad
input ends with one line naming the flag, the file and the column, and exit status 2.

The parser is plain argparse and imports neither numpy nor pandas: ``idrisk --help``,
``--version`` and argument errors are quick; each subcommand imports what it uses.
"""

from __future__ import annotations

import argparse
import gc
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from . import __version__
from ._cli_common import (
    _add_input_arguments,
    _add_output_arguments,
    _add_reading_arguments,
    _engine_progress,
    _inputs,
    _library_input_error,
    _progress,
    _read_all,
    _risk_options,
    _write_csv,
    parse_radius,
)
from ._interface import interface
from ._output import CSV_FLOAT_FORMAT
from ._read import read_table
from .exceptions import InputError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["build_parser", "main", "parse_radius", "read_table", "records_table"]


def _add_risk_parser(sub: Any) -> None:
    p = sub.add_parser(
        "risk",
        help="identification risk of synthetic files against a confidential file",
        description="Compute R's IdentificationRisk() for CSV/Parquet files and write "
        "record-level risk (records.csv: one row per confidential record, numbered from 1; "
        "for the data custodian, as the row numbers point into the confidential file) and the "
        "per-dataset summary (summary.csv: counts and rates, no record-level data). Neither "
        "file holds a confidential value.",
    )
    _add_input_arguments(p, synthetic_required=True)
    _add_precision_arguments(p)
    _add_output_arguments(p, "idrisk-risk")
    p.set_defaults(func=_run_risk)


def records_table(result: Any) -> pd.DataFrame:
    """records.csv: ``record`` (1..n), record_risk, then risk, c, T, K, F per dataset."""
    import pandas as pd

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


def _roles(conf_path: str, syn_paths: Sequence[str]) -> list[str]:
    return ["the confidential file"] + ["--synthetic"] * len(syn_paths)


def _run_risk(args: argparse.Namespace) -> int:
    from ._output import atomic_dir, check_target

    conf_path, syn_paths = _inputs(args)
    if not syn_paths:
        raise InputError("no synthetic file given (after the confidential file, or "
                         "--synthetic)", flag="--synthetic")
    _check_level(args.level)
    from ._precision_cli import check_precision_flags

    check_precision_flags(args, len(syn_paths))
    check_target(args.out_dir, overwrite=args.overwrite)
    radius = parse_radius(args.radius)
    show = _progress(args, [conf_path, *syn_paths])
    confidential, *synthetic = _read_all(args, [conf_path, *syn_paths], show,
                                         _roles(conf_path, syn_paths))
    import pandas as pd

    from .risk import identification_risk

    try:
        result = identification_risk(
            confidential, synthetic, args.known, args.syn, r=radius, **_risk_options(args),
            progress=_engine_progress(args),
        )
    except (KeyError, ValueError) as err:  # the engine's checks of columns and arguments
        raise _library_input_error(err) from None
    summary = result.to_frame()
    if result.checks is not None:
        summary = pd.concat([summary, result.checks], axis=1)
    summary.insert(0, "file", syn_paths)
    from ._precision_cli import interval_lines, interval_output, records_stability

    interval_csv = interval_output(result, args.level)
    advice = interval_lines(result, args)  # after the checks, before any file is written
    with atomic_dir(args.out_dir, overwrite=args.overwrite) as tmp:
        _write_csv(records_stability(records_table(result), result), tmp / "records.csv", show)
        summary.to_csv(tmp / "summary.csv")  # R's results: every bit (FULL_PRECISION_CSV)
        interval_csv.to_csv(tmp / "interval.csv", float_format=CSV_FLOAT_FORMAT)
    out = Path(args.out_dir)
    print(result)
    print("\ndatasets: " + ", ".join(f"{j} = {p}" for j, p in enumerate(syn_paths, start=1)))
    print("\n" + "\n".join(advice))
    print(f"wrote {out / 'records.csv'} (record-level risk: for the data custodian), "
          f"{out / 'summary.csv'} (per dataset) and {out / 'interval.csv'} (Monte-Carlo "
          "interval over the datasets)")
    return 0


def _add_precision_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--level", type=float, default=0.95,
                   help="confidence level of the Monte-Carlo interval over the synthetic "
                   "datasets (default: %(default)s)")
    p.add_argument("--precision", type=float, default=None, metavar="RECORDS",
                   help="print the m (number of synthetic files) at which the interval of the "
                   "expected risk is within ± this many records (an estimate; needs 2+ files)")
    p.add_argument("--relative", type=float, default=None, metavar="SHARE",
                   help="as --precision, as a share of the estimate (0.05 = ±5%%)")


# --------------------------------------------------------------------------- whatif


def _add_whatif_parser(sub: Any) -> None:
    p = sub.add_parser(
        "whatif",
        help="what drives the risk: expected risk when a known variable is dropped, known to a "
        "coarser radius, or coarsened before release",
        description="The expected risk and its Monte-Carlo interval for the baseline and for "
        "one change at a time: each known variable not known (drop), each continuous known "
        "variable known only to the radii of --radii (radius), a continuous variable released "
        "in bands (--bands Income=5000) and levels of a categorical variable merged before "
        "release (--merge Marital=2,3,4), applied to the confidential and synthetic files "
        "alike. Every row is an ordinary identification-risk computation on the transformed "
        "data. Writes whatif.csv (one row per change), whatif_datasets.csv (per synthetic "
        "file) and fig_whatif.png; none holds a confidential value. Needs 2 or more synthetic "
        "files.",
    )
    _add_input_arguments(p, synthetic_required=True)
    p.add_argument("--radii", nargs="+", type=float, default=None, metavar="R",
                   help="coarser radii of each continuous known variable (default: 2, 3 and 5 "
                   "times its radius)")
    p.add_argument("--bands", nargs="+", default=[], metavar="VAR=WIDTH",
                   help="release a continuous variable in bands of WIDTH, e.g. "
                   "--bands Income=5000 Age=5")
    p.add_argument("--merge", nargs="+", default=[], metavar="VAR=LEVEL,LEVEL",
                   help="merge levels of a categorical variable before release, e.g. "
                   "--merge Marital=2,3,4 (repeat VAR=... for several groups)")
    p.add_argument("--level", type=float, default=0.95,
                   help="confidence level of the intervals (default: %(default)s)")
    _add_output_arguments(p, "idrisk-whatif")
    p.set_defaults(func=_run_whatif)


def _run_whatif(args: argparse.Namespace) -> int:
    from ._output import check_target
    from ._precision_cli import parse_bands, parse_merge, run_whatif

    conf_path, syn_paths = _inputs(args)
    if len(syn_paths) < 2:
        raise InputError(f"--synthetic: {len(syn_paths)} synthetic file(s); a what-if table "
                         "needs 2 or more (m >= 2) for its Monte-Carlo intervals",
                         flag="--synthetic")
    _check_level(args.level)
    bands, merge = parse_bands(args.bands), parse_merge(args.merge)
    check_target(args.out_dir, overwrite=args.overwrite)
    radius = parse_radius(args.radius)
    show = _progress(args, [conf_path, *syn_paths])
    confidential, *synthetic = _read_all(args, [conf_path, *syn_paths], show,
                                         _roles(conf_path, syn_paths))
    return run_whatif(args, confidential, synthetic, radius, bands, merge,
                      _risk_options(args), syn_paths)


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise InputError(f"--level must lie strictly between 0 and 1 (e.g. 0.95), got {level}",
                         flag="--level")


# --------------------------------------------------------------------------- report


def _add_report_parser(sub: Any) -> None:
    p = sub.add_parser(
        "report",
        help="an HTML + Markdown report on risk and utility of your synthetic files",
        description="Risk per synthetic file (s, expected risk as a count and a share of n, "
        "true and false match rates), record-level risk and the highest-risk records (by "
        "record number, risk and match counts: no confidential value unless "
        "--show-confidential-values), a radius sweep with the maximising radius, and utility "
        "(U_p, ECDFs); report.html is self-contained. The report lists its files and who may "
        "see each.",
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
    p.add_argument("--no-whatif", action="store_true",
                   help="skip the what-if table (known variables dropped, coarser radii) of "
                   "the first scenario")
    p.add_argument("--maxorder", type=int, default=1,
                   help="interaction order of a logit U_p model (0 = main effects, 1 = + "
                        "two-way, default); the report's U_p uses synthpop's default CART "
                        "model, which has none")
    p.add_argument("--top", type=int, default=10, help="highest-risk records listed")
    p.add_argument("--show-confidential-values", action="store_true",
                   help="list the confidential values of the highest-risk records (the report "
                   "then says on its first line that it holds confidential data)")
    p.add_argument("--title", default="Identification risk of synthetic data")
    p.add_argument("--disclosure-known", nargs="+", default=None, metavar="VAR",
                   help="add synthpop's disclosure measures (repU, DiSCO and the 1-way/2-way "
                   "checks) from these known variables (synthpop's keys)")
    p.add_argument("--disclosure-syn", nargs="+", default=None, metavar="VAR",
                   help="synthesized variables of the disclosure measures (synthpop's "
                   "targets; default: each scenario's synthesized variables)")
    _add_output_arguments(p, "idrisk-report")
    p.set_defaults(func=_run_report)


def _run_report(args: argparse.Namespace) -> int:
    from ._output import check_target

    conf_path, syn_paths = _inputs(args)
    scenarios: dict[str, tuple[list[str], list[str]]] = {}
    if syn_paths:
        if not args.syn:
            raise InputError("--syn: name the synthesized variables of the synthetic files",
                             flag="--syn")
        scenarios["1"] = (list(args.syn), syn_paths)
    for spec in args.scenario:
        head, files = spec[0], spec[1:]
        if ":" not in head or not files:
            raise InputError(
                f"--scenario {' '.join(spec)}: write NAME:VAR1,VAR2 followed by the files, "
                "e.g. --scenario 2:Tenure,Income s2_1.csv s2_2.csv", flag="--scenario"
            )
        name, variables = head.split(":", 1)
        if name in scenarios:
            raise InputError(f"--scenario: the name {name!r} is used twice", flag="--scenario")
        scenarios[name] = ([v for v in variables.split(",") if v], files)
    if not scenarios:
        raise InputError("no synthetic file given (after the confidential file, --synthetic "
                         "or --scenario)", flag="--synthetic")
    if args.top < 0:
        raise InputError(f"--top must be 0 or more, got {args.top}", flag="--top")
    check_target(args.out_dir, overwrite=args.overwrite)
    radius = parse_radius(args.radius) if args.radius else None  # the library's default
    all_paths = [conf_path] + [p for _, files in scenarios.values() for p in files]
    roles = ["the confidential file"] + [
        "--synthetic" if name == "1" else f"--scenario {name}"
        for name, (_, files) in scenarios.items() for _ in files]
    show = _progress(args, all_paths)
    frames = _read_all(args, all_paths, show, roles)
    confidential, rest = frames[0], frames[1:]
    synthetic, syn_vars, k = {}, {}, 0
    for name, (variables, files) in scenarios.items():
        synthetic[name] = rest[k : k + len(files)]
        syn_vars[name] = variables
        k += len(files)
    from .reporting import compute_report, write_report

    try:
        rep = compute_report(
            confidential, synthetic, args.known, syn_vars, r=radius,
            radii=None if args.no_sweep else args.radii, **_risk_options(args),
            utility=not args.no_utility, maxorder=args.maxorder, top=args.top,
            show_confidential_values=args.show_confidential_values, title=args.title,
            sources={"confidential": conf_path,
                     "synthetic": {name: files for name, (_, files) in scenarios.items()}},
            progress=show, disclosure_known=args.disclosure_known,
            disclosure_syn=args.disclosure_syn, what_if=not args.no_whatif,
        )
    except (KeyError, ValueError) as err:  # the engine's checks of columns and arguments
        raise _library_input_error(err) from None
    rep = write_report(rep, args.out_dir, overwrite=args.overwrite, progress=show)
    print(rep.summary().to_string(float_format=lambda v: f"{v:.6g}", na_rep="–"))
    print(f"\nwrote {rep.files.html} and {rep.files.markdown}"
          + (" (they hold confidential values)" if args.show_confidential_values else ""))
    return 0


# --------------------------------------------------------------------------- disclosure


def _add_disclosure_parser(sub: Any) -> None:
    p = sub.add_parser(
        "disclosure",
        help="synthpop's disclosure measures (identity, attribute, CAPs) as CSV tables",
        description="synthpop 1.9-3's disclosure() for CSV/Parquet files, value for value: "
        "measures.csv (UiO, UiS, UiOiS, repU, Dorig, Dsyn, iS, DiS, DiSCO, DiSDiO, max_denom, "
        "mean_denom, baseCAPd, CAPd, CAPs, DCAP, TCAP per target and synthetic file), "
        "summary.csv (one row per target), exclusions.csv, and the flagged checks "
        "check_1way.csv and check_2way.csv (these name target and key levels and count "
        "confidential records: for the data custodian). Synthetic files need not be row-"
        "paired with the confidential file.",
    )
    p.add_argument("confidential",
                   help="confidential data (CSV, Parquet, SAS, Stata, SPSS or R file)")
    p.add_argument("synthetic", nargs="+", help="synthetic files (m = their number)")
    p.add_argument("--known", nargs="+", required=True,
                   help="the intruder's known variables (synthpop's keys, quasi-identifiers)")
    p.add_argument("--syn", nargs="+", required=True,
                   help="synthesized variable(s) whose disclosure is measured (synthpop's "
                   "targets)")
    p.add_argument("--categorical", "--factors", dest="categorical", nargs="*", default=[],
                   help="columns that are categories even if they hold numbers (e.g. codes)")
    p.add_argument("--continuous", nargs="*", default=[],
                   help="columns read as numbers even if stored as text")
    p.add_argument("--cont-na", nargs="+", default=[], metavar="COLUMN=CODE[,CODE]",
                   help="missing-value codes of numeric columns, kept out of the grouping "
                   "(synthpop's cont.na), e.g. --cont-na income=-8 nociga=-8")
    p.add_argument("--ngroups-syn", type=int, default=None,
                   help="group a numeric --syn variable into this many quantile classes")
    p.add_argument("--ngroups-known", type=int, nargs="+", default=None,
                   help="group numeric --known variables (one value, or one per variable; "
                   "0 = no grouping)")
    p.add_argument("--not-syn-levels", nargs="+", default=None, metavar="LEVEL",
                   help="levels of the --syn variable left out of the attribute measures")
    p.add_argument("--no-syn-na", action="store_true",
                   help="leave records with a missing --syn value out (synthpop: usetargetNA)")
    p.add_argument("--no-known-na", action="store_true",
                   help="leave records with a missing --known value out (synthpop: "
                   "usekeysNA)")
    p.add_argument("--exclude-over-denom-lim", action="store_true",
                   help="leave out table cells of more than --denom-lim records")
    p.add_argument("--denom-lim", type=int, default=5, help="(default: %(default)s)")
    p.add_argument("--thresh-1way", type=float, nargs=2, default=[50, 90], metavar=("N", "PCT"),
                   help="1-way check thresholds (default: 50 90)")
    p.add_argument("--thresh-2way", type=float, nargs=2, default=[4, 80], metavar=("N", "PCT"),
                   help="2-way check thresholds (default: 4 80)")
    p.add_argument("--quirks", choices=["synthpop", "corrected"], default="synthpop",
                   help="synthpop's numbers (default) or with its quirks corrected")
    _add_reading_arguments(p)
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bars (default: on a terminal, for large inputs)")
    _add_output_arguments(p, "idrisk-disclosure")
    p.set_defaults(func=_run_disclosure)


def _cont_na(specs: Sequence[str]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for spec in specs:
        column, sep, codes = spec.partition("=")
        try:
            values = [float(c) for c in codes.split(",") if c]
        except ValueError:
            values = []
        if not sep or not column or not values:
            raise InputError(f"--cont-na {spec}: write COLUMN=CODE or COLUMN=CODE1,CODE2, "
                             "e.g. --cont-na income=-8", flag="--cont-na")
        out[column] = values
    return out


def _run_disclosure(args: argparse.Namespace) -> int:
    from ._output import atomic_dir, check_target

    check_target(args.out_dir, overwrite=args.overwrite)
    paths = [args.confidential, *args.synthetic]
    show = _progress(args, paths)
    cont_na = _cont_na(args.cont_na)
    confidential, *synthetic = _read_all(args, paths, show, _roles(args.confidential,
                                                                   args.synthetic))
    import pandas as pd

    from .risk.disclosure_measures import disclosure, disclosure_summary

    options = dict(cont_na=cont_na, ngroups_known=args.ngroups_known,
                   use_known_na=not args.no_known_na,
                   exclude_over_denom_lim=args.exclude_over_denom_lim,
                   denom_lim=args.denom_lim, thresh_1way=args.thresh_1way,
                   thresh_2way=args.thresh_2way, quirks=args.quirks)
    try:
        results = {t: disclosure(confidential, synthetic, args.known, t,
                                 ngroups_syn=args.ngroups_syn,
                                 not_syn_levels=args.not_syn_levels,
                                 use_syn_na=not args.no_syn_na, **options)
                   for t in args.syn}
        summary = disclosure_summary(confidential, synthetic, args.known, args.syn,
                                     ngroups_syn=args.ngroups_syn,
                                     use_syn_na=not args.no_syn_na, **options)
    except (KeyError, ValueError, TypeError) as err:  # the engine's checks
        raise _library_input_error(err) from None
    files = pd.Series(args.synthetic, index=pd.RangeIndex(1, len(synthetic) + 1),
                      name="file")

    def stacked(name: str) -> pd.DataFrame:
        parts = []
        for t, res in results.items():
            table = res.summary().join(files) if name == "measures" else getattr(res, name)
            table = table.reset_index() if name == "measures" else table
            parts.append(table.assign(target=t))
        out = pd.concat(parts, ignore_index=True)
        return out[["target"] + [c for c in out.columns if c != "target"]]

    with atomic_dir(args.out_dir, overwrite=args.overwrite) as tmp:
        stacked("measures").to_csv(tmp / "measures.csv", index=False,
                                   float_format=CSV_FLOAT_FORMAT)
        summary.table.to_csv(tmp / "summary.csv", float_format=CSV_FLOAT_FORMAT)
        stacked("exclusions").to_csv(tmp / "exclusions.csv", index=False,
                                     float_format=CSV_FLOAT_FORMAT)
        stacked("check_1way").to_csv(tmp / "check_1way.csv", index=False,
                                     float_format=CSV_FLOAT_FORMAT)
        stacked("check_2way").to_csv(tmp / "check_2way.csv", index=False,
                                     float_format=CSV_FLOAT_FORMAT)
    print(summary.table.to_string(float_format=lambda v: f"{v:.6g}"))
    print(f"\nwrote measures.csv, summary.csv, exclusions.csv, check_1way.csv and "
          f"check_2way.csv to {Path(args.out_dir)} (the checks name levels and count "
          "confidential records: for the data custodian)")
    return 0


# --------------------------------------------------------------------------- demo


def _add_demo_parser(sub: Any) -> None:
    p = sub.add_parser(
        "demo",
        help="synthesize the built-in dataset, measure risk over radii, write a report",
        description="The main job on built-in data: CART partial synthesis, identification risk "
        "over a grid of radii, utility, and the report of `idrisk report` (HTML + Markdown).",
    )
    _add_output_arguments(p, "idrisk-demo-report")
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


def _is_demo_output(path: Path) -> bool:
    """Whether ``path`` is a folder an earlier ``idrisk demo`` wrote (its report names the
    built-in data) and holds nothing else but report files."""
    md = path / "report.md"
    try:
        if not md.is_file() or "idrisk.datasets.load_demo" not in md.read_text("utf-8"):
            return False
        return all(p.suffix in (".md", ".html", ".csv", ".png") for p in path.iterdir())
    except OSError:
        return False


def _run_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    if args.m < 1:
        raise InputError(f"--m must be 1 or more, got {args.m}", flag="--m")
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    # a second `idrisk demo` replaces the demo's own earlier output (and nothing else)
    overwrite = args.overwrite or _is_demo_output(Path(args.out_dir))
    report = run_demo(args.out_dir, seed=args.seed, m=args.m, rng=args.rng, progress=progress,
                      overwrite=overwrite)
    print(f"report written to {report} and {report.with_suffix('.html')}")
    return 0


# --------------------------------------------------------------------------- survey-table


def _add_survey_parser(sub: Any) -> None:
    p = sub.add_parser(
        "survey-table",
        help="private survey tables (FBS, FBP, Laplace)",
        description="A survey table (direct, FBS, FBP or Laplace) written as CSV. The direct "
        "table is not private (design-based estimates of the confidential sample); the "
        "Laplace, FBS and FBP tables hold no exact cell size (--sample-counts adds it, "
        "labelled not private); the Laplace table's columns are the noised statistics and "
        "their noise scales.",
    )
    p.add_argument("data", help="CSV file of the confidential sample")
    p.add_argument("--y", required=True, help="outcome column")
    p.add_argument("--weight", required=True, help="survey weight column")
    p.add_argument("--strata", default=None, help="stratum column (default: none)")
    p.add_argument("--by", nargs="+", required=True, help="grouping columns of the table")
    p.add_argument("--method", choices=("direct", "fbs", "fbp", "laplace"), default="direct",
                   help="direct (design-based, no protection), fbs, fbp or laplace")
    p.add_argument("--epsilon", type=float, default=None,
                   help="privacy budget: required for laplace; for fbs/fbp the target "
                        "Delta_alpha is epsilon / (2 m)")
    p.add_argument("-m", type=int, default=3, dest="m",
                   help="number of synthetic datasets (fbs, fbp; default 3)")
    p.add_argument("--variance", choices=("taylor", "replicate"), default="taylor",
                   help="direct method: Taylor linearization or half-sample replicates")
    p.add_argument("--replicates", type=int, default=10,
                   help="number of half-sample replicates (laplace, replicate variance)")
    p.add_argument("--lonely-psu", default="fail",
                   choices=("fail", "remove", "certainty", "adjust", "average"),
                   help="rule for a stratum with one unit (R's survey.lonely.psu)")
    p.add_argument("--sample-counts", action="store_true",
                   help="laplace, fbs, fbp: add the exact number of sample units per cell "
                        "(n_not_private); not protected by the mechanism")
    _add_reading_arguments(p)
    p.add_argument("--out", default=None,
                   help="output CSV, written whole or not at all (default: standard output)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.set_defaults(func=_run_survey_table)


def _run_survey_table(args: argparse.Namespace) -> int:
    from .survey.cli import run

    return run(args)


# --------------------------------------------------------------------------- check-r


def _add_check_r_parser(sub: Any) -> None:
    # the options are R's (idrisk.rcompat), added when the command runs: importing
    # rcompat for `idrisk --help` would import pandas
    sub.add_parser(
        "check-r", add_help=False,
        help="cross-check idrisk against the R package (needs R, rpy2 and the R packages; "
        "idrisk check-r --help lists its options)",
    ).set_defaults(func=_run_check_r)


def _check_r_parser() -> argparse.ArgumentParser:
    from .rcompat import add_check_r_arguments

    p = argparse.ArgumentParser(prog="idrisk check-r",
                                description="cross-check idrisk against the R package")
    add_check_r_arguments(p)
    # the shared vocabulary as aliases of check-r's own option names
    aliases: list[tuple[list[str], dict[str, Any]]] = [
        (["--confidential"], {"dest": "orig", "type": Path, "help": "alias of --orig"}),
        (["--synthetic"], {"dest": "syndata", "nargs": "+", "type": Path,
                           "help": "alias of --syndata"}),
        (["--categorical"], {"dest": "factors", "nargs": "*", "help": "alias of --factors"}),
        (["--euclidean"], {"dest": "euclidean_dist", "action": "store_true",
                           "help": "alias of --euclidean-dist"}),
    ]
    for flags, kwargs in aliases:
        try:
            p.add_argument(*flags, **kwargs)
        except argparse.ArgumentError:  # check-r already has this option
            pass
    return p


def _run_check_r(args: argparse.Namespace) -> int:
    from .rcompat import run_check_r

    return int(run_check_r(_check_r_parser().parse_args(args.rest)) or 0)


# --------------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    """The ``idrisk`` parser (plain argparse; builds without importing numpy or pandas)."""
    parser = argparse.ArgumentParser(
        prog="idrisk",
        description="Disclosure risk of synthetic microdata, as the R package "
        "IdentificationRiskCalculation measures it: risk tables, a report, a demo, private "
        "survey tables and a cross-check against R.",
        epilog="Run 'idrisk COMMAND --help' for a command's options. 'python -m idrisk' is the "
        "same command. Bad input ends with one line naming the flag, the file and the column "
        "(exit status 2); outputs are written whole or not at all.",
    )
    parser.add_argument("--version", action="version", version=f"idrisk {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_risk_parser(sub)
    _add_whatif_parser(sub)
    _add_report_parser(sub)
    _add_disclosure_parser(sub)
    _add_demo_parser(sub)
    _add_survey_parser(sub)
    _add_check_r_parser(sub)
    return parser


@contextmanager
def _warnings_once(command: str) -> Iterator[None]:
    """Print each warning once as ``idrisk COMMAND: warning: ...``; hide deprecations and
    numba's notes to developers."""
    seen: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None):  # noqa: ARG001
        if category.__module__.split(".")[0] == "numba":
            return
        text = str(message)
        if text not in seen:
            seen.add(text)
            print(f"idrisk {command}: warning: {text}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        for category in (DeprecationWarning, PendingDeprecationWarning, FutureWarning):
            warnings.filterwarnings("ignore", category=category)
        warnings.showwarning = show
        yield


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``idrisk`` command; returns the exit status (2 for bad input)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "check-r":
        args.rest = extra
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    with interface("cli"), _warnings_once(args.command):
        try:
            return int(args.func(args) or 0)
        except InputError as err:
            print(f"idrisk {args.command}: error: {err}", file=sys.stderr)
            return 2


def run() -> NoReturn:
    """The ``idrisk`` command as a process (the console script, and ``python -m idrisk``).

    Runs :func:`main` and exits with its status. Before exiting it freezes the garbage
    collector (:func:`gc.freeze`): the interpreter's last collection would otherwise walk every
    object numba and pandas created, about 0.1 s of a 0.5 s command, to free memory the
    operating system takes back anyway. Files are closed and written before this point, and
    exit handlers still run.
    """
    status = main()
    gc.freeze()
    sys.exit(status)


if __name__ == "__main__":  # pragma: no cover
    run()
