"""``idrisk survey-table``: a survey table (direct, FBS, FBP or Laplace) written as CSV.

The arguments are defined with the other commands in :mod:`idrisk.cli` (so that
``idrisk --help`` imports no numerics); :func:`run` does the work. Bad input is an
:class:`~idrisk.exceptions.InputError` naming the flag, the file and the column; the table is
written whole or not at all (:func:`idrisk._output.atomic_file`).

What each method's CSV may be shared with:

* ``direct`` -- design-based estimates of the confidential sample: not private; as the
  confidential data.
* ``laplace`` -- noised counts and means with their noise scales: released under the
  budget ``--epsilon``. ``--sample-counts`` adds the exact cell sizes
  (``n_not_private``), which are not protected: that file is not for release.
* ``fbs``, ``fbp`` -- estimates combined over m synthetic datasets: released under the
  synthesizer's budget (printed). The exact number of sample units per cell is left out
  (``--sample-counts`` adds it as ``n_not_private``, not for release).

Examples
--------
>>> from idrisk.cli import build_parser
>>> args = build_parser().parse_args(["survey-table", "s.csv", "--y", "salary", "--weight",
...                                   "w", "--by", "field", "gender", "--method", "laplace"])
>>> args.method, args.by, args.epsilon, args.m
('laplace', ['field', 'gender'], None, 3)
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._read import read_table
from ..exceptions import InputError

__all__ = ["run"]

#: columns of each method's released table besides the ``by`` columns
RELEASED = {
    "laplace": ("count", "count_se", "mean", "mean_se", "count_scale", "mean_scale"),
}


def _check_weights(data: Any, weight: str, by: list[str], path: str) -> None:
    """All-zero weights (overall or in one group of ``--by``) are an error naming the group."""
    import numpy as np
    import pandas as pd

    w = pd.to_numeric(data[weight], errors="coerce")
    if w.isna().any():
        row = int(np.flatnonzero(w.isna().to_numpy())[0]) + 2
        raise InputError(f"--weight: column {weight!r} of {path} has a missing or non-numeric "
                         f"value (line {row})", flag="--weight", file=path, column=weight)
    if (w < 0).any():
        raise InputError(f"--weight: column {weight!r} of {path} has negative weights",
                         flag="--weight", file=path, column=weight)
    if (w == 0).all():
        raise InputError(f"--weight: every weight in column {weight!r} of {path} is 0; a "
                         "table of weighted counts and means needs positive weights",
                         flag="--weight", file=path, column=weight)
    for column in by:
        sums = w.groupby(data[column].astype("string"), dropna=False, observed=True).sum()
        zero = sums.index[sums.to_numpy() == 0]
        if len(zero):
            raise InputError(
                f"--weight: every weight in the group {column} = {zero[0]!r} of {path} is 0 "
                f"(column {weight!r}); its count would be 0 and its mean undefined. Drop the "
                "group or fix its weights", flag="--weight", file=path, column=weight)


def run(args: argparse.Namespace) -> int:
    """Run ``idrisk survey-table``; returns the exit status.

    Raises
    ------
    InputError
        The file cannot be read, a column is missing, weights are all zero (overall or in a
        group), a method lacks its options, or ``--out`` cannot be written.
    """
    from .._output import atomic_file, check_target

    if args.out:
        check_target(args.out, overwrite=args.overwrite, kind="file", argument="out")
    path = str(args.data)
    data = read_table(path, na_values=args.na_values, encoding=args.encoding, sep=args.sep,
                      flag="the survey file")
    columns = {"--y": [args.y], "--weight": [args.weight], "--by": list(args.by),
               "--strata": [args.strata] if args.strata else []}
    for flag, names in columns.items():
        for col in names:
            if col not in data.columns:
                raise InputError(f"{flag}: column {col!r} not in {path} (columns: "
                                 f"{', '.join(map(str, data.columns))})", flag=flag, file=path,
                                 column=col)
    _check_weights(data, args.weight, list(args.by), path)
    if args.method == "laplace" and args.epsilon is None:
        raise InputError("--method laplace needs --epsilon (the privacy budget)",
                         flag="--epsilon")
    if args.sample_counts and args.method == "direct":
        raise InputError("--sample-counts applies to --method laplace, fbs and fbp (the "
                         "direct table is not private and shows n)", flag="--method")
    from . import FBP, FBS, design_table, half_sample_replicates, laplace_table

    try:  # the library's checks of the columns (numeric y, finite weights, ...)
        if args.method == "direct":
            reps = None
            if args.variance == "replicate":
                reps = half_sample_replicates(data, args.strata, args.weight,
                                              R=args.replicates, seed=args.seed)
            table = design_table(data, args.y, args.weight, args.strata, args.by,
                                 variance=args.variance, replicate_weights=reps,
                                 lonely_psu=args.lonely_psu)
        elif args.method == "laplace":
            table = laplace_table(data, args.y, args.weight, args.strata, args.by,
                                  epsilon=args.epsilon, replicates=args.replicates,
                                  seed=args.seed, sample_counts=args.sample_counts)
        else:
            cls = FBS if args.method == "fbs" else FBP
            target = None if args.epsilon is None else args.epsilon / (2 * args.m)
            synth = cls(syn=args.y, weight=args.weight, known=args.by, strata=args.strata,
                        target_delta=target, seed=args.seed)
            synth.fit(data)
            table = synth.synthesize(args.m, seed=args.seed).tables(
                args.by, sample_counts=args.sample_counts)
            print(f"idrisk survey-table: {args.method} delta_alpha="
                  f"{synth.delta_alpha_:.4g}, epsilon={table.epsilon:.4g}",
                  file=sys.stderr)
    except (ValueError, KeyError, TypeError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        raise InputError(f"{path}: {message}", file=path) from None
    frame = table.to_frame()
    if args.method in RELEASED and not args.sample_counts:
        frame = frame[[*args.by, *RELEASED[args.method]]]
    if args.out:
        with atomic_file(args.out, overwrite=args.overwrite, argument="out") as tmp:
            frame.to_csv(tmp, index=False)
        note = (" (n_not_private is not protected: not for release)"
                if args.sample_counts else "")
        print(f"idrisk survey-table: wrote {len(frame)} rows to {args.out}{note}",
              file=sys.stderr)
    else:
        frame.to_csv(sys.stdout, index=False)
    return 0
