"""Live synthpop 1.9-3: ``synthpop::syn`` run by Rscript on a data frame, for the exactness tests.

:func:`synthpop_syn` writes the data to a CSV file (factors as labels with their levels,
numbers with 17 digits), calls ``syn(data, m, visit.sequence, seed, ...)`` in R and returns
every synthesised dataset as a float array (one row per column): numbers as they are, factors
as 1-based level codes, NA as NaN. :func:`as_codes` gives idrisk's datasets the same shape.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

needs_synthpop = [
    pytest.mark.needs_r,
    pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript (R) not found"),
]

_R = r"""
suppressMessages(library(synthpop))
a <- commandArgs(TRUE)
info <- read.csv(a[2], colClasses = c("logical", "character"), na.strings = character(0))
d <- read.csv(a[1], colClasses = ifelse(info$factor, "character", "numeric"),
              na.strings = "NA")
for (i in which(info$factor)) {
  d[[i]] <- factor(d[[i]], levels = strsplit(info$levels[i], "\t", fixed = TRUE)[[1]])
}
opts <- eval(parse(text = a[3]))
s <- do.call(syn, c(list(d), opts, list(print.flag = FALSE)))
ss <- if (s$m == 1) list(s$syn) else s$syn
out <- unlist(lapply(ss, function(o) unlist(lapply(o, function(v)
  if (is.factor(v)) as.integer(v) else as.numeric(v)))))
cat("\n@@values@@\n", ifelse(is.na(out), "NA", sprintf("%.17g", out)))
"""


def _r_value(v: object) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, str):
        return '"' + v + '"'
    if isinstance(v, np.ndarray):  # a matrix, row by row
        return (f"matrix(c({', '.join(str(x) for x in v.ravel().tolist())}), "
                f"nrow = {v.shape[0]}, byrow = TRUE)")
    if isinstance(v, dict):
        return "list(" + ", ".join(f"{k} = {_r_value(x)}" for k, x in v.items()) + ")"
    if isinstance(v, (list, tuple)):
        return "c(" + ", ".join(_r_value(x) for x in v) + ")"
    return repr(v)


def synthpop_syn(tmp_path: Path, data: pd.DataFrame, m: int, seed: int,
                 **options: object) -> np.ndarray:
    """``synthpop::syn(data, m = m, seed = seed, <options>)`` in R: an array
    ``(m, columns, rows)`` of floats (factor columns as 1-based level codes, NA as NaN).
    Option names are R's with ``_`` for ``.`` (``visit_sequence``)."""
    factor = [isinstance(data[c].dtype, pd.CategoricalDtype) for c in data.columns]
    levels = ["\t".join(map(str, data[c].cat.categories)) if f else ""
              for c, f in zip(data.columns, factor)]
    pd.DataFrame({"factor": ["TRUE" if f else "FALSE" for f in factor],
                  "levels": levels}).to_csv(tmp_path / "info.csv", index=False)
    data.to_csv(tmp_path / "data.csv", index=False, na_rep="NA", float_format="%.17g")
    opts = {"m": m, "seed": seed, **{k.replace("_", "."): v for k, v in options.items()}}
    code = "list(" + ", ".join(f"{k} = {_r_value(v)}" for k, v in opts.items()) + ")"
    r = subprocess.run(["Rscript", "-e", _R, str(tmp_path / "data.csv"),
                        str(tmp_path / "info.csv"), code],
                       capture_output=True, text=True, check=False)
    if r.returncode:
        raise RuntimeError(f"synthpop::syn failed: {r.stderr[-2000:]}")
    # syn prints some notes even with print.flag = FALSE: the values follow a marker
    text = r.stdout.rsplit("@@values@@", 1)[-1]
    vals = np.array([np.nan if t == "NA" else float(t) for t in text.split()])
    return vals.reshape(m, data.shape[1], len(data))


def as_codes(frame: pd.DataFrame) -> np.ndarray:
    """A dataset as :func:`synthpop_syn` returns one: (columns, rows) floats."""
    out = np.empty((frame.shape[1], len(frame)))
    for j, c in enumerate(frame.columns):
        col = frame[c]
        if isinstance(col.dtype, pd.CategoricalDtype):
            codes = col.cat.codes.to_numpy().astype(float) + 1
            codes[codes == 0] = np.nan
            out[j] = codes
        else:
            out[j] = col.to_numpy(dtype=float)
    return out


def match_rate(ours: list[pd.DataFrame], ref: np.ndarray) -> float:
    """The share of values (NA equal to NA) where idrisk's datasets equal R's."""
    same = total = 0
    for i, frame in enumerate(ours):
        a, b = as_codes(frame), ref[i]
        eq = (a == b) | (np.isnan(a) & np.isnan(b))
        same += int(eq.sum())
        total += eq.size
    return same / total
