"""Benchmark: synthpop's disclosure measures on SD2011 (5,000 x 9), m = 5.

The data and the 5 synthetic sets come from ``synthpop::syn`` in R (seed 2021, not timed);
then ``idrisk.r.disclosure`` and, in the same run, ``synthpop::disclosure`` for the same call,
timed inside R with ``system.time`` (R's start-up and ``library(synthpop)`` excluded). Keys
sex, age, region, edu; target marital; R with ``LC_COLLATE=C``. The run also checks that
both give the same ident/attrib/allCAPs tables.

The machine may be shared: besides the wall times (min over rounds) the run records CPU
times (R's user + system time of the call, Python's ``time.process_time``) and both ratios.

Run: python -m pytest benchmarks/bench_disclosure.py --benchmark-enable \
        --benchmark-json benchmarks/results/disclosure.json
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _data import machine_load

ROUNDS = 5
KEYS = ["sex", "age", "region", "edu"]
TARGET = "marital"
COLUMNS = ["sex", "age", "region", "placesize", "edu", "marital", "income", "depress", "smoke"]
_timings: dict[str, float] = {}
_cpu: list[float] = []

_R = """
invisible(Sys.setlocale("LC_COLLATE", "C"))
suppressMessages(library(synthpop))
out <- "{out}"
ods <- SD2011[, c({cols})]
s <- syn(ods, m = 5, seed = 2021, print.flag = FALSE, cont.na = list(income = -8))
write_set <- function(d, name) {{
  write.csv(d, file.path(out, paste0(name, ".csv")), row.names = FALSE, na = "")
}}
write_set(ods, "orig")
for (j in 1:5) write_set(s$syn[[j]], paste0("syn", j))
levs <- lapply(ods[sapply(ods, is.factor)], levels)
writeLines(jsonlite::toJSON(levs), file.path(out, "levels.json"))
for (i in seq_len({rounds})) {{
  st <- system.time(d <- disclosure(s, ods, keys = c({keys}), target = "{target}",
                                    print.flag = FALSE))
  cat(sprintf("%.6f %.6f\\n", st[["elapsed"]], st[["user.self"]] + st[["sys.self"]]))
}}
write.csv(cbind(d$ident, d$attrib, d$allCAPs), file.path(out, "r_measures.csv"))
"""


def _have_synthpop() -> bool:
    if shutil.which("Rscript") is None:
        return False
    check = subprocess.run(["Rscript", "-e", "library(synthpop); library(jsonlite)"],
                           capture_output=True)
    return check.returncode == 0


@pytest.fixture(scope="module")
def sd2011(tmp_path_factory):
    """SD2011's 9 columns and 5 syntheses from R, plus synthpop's own timings."""
    if not _have_synthpop():
        pytest.skip("Rscript with the R packages synthpop and jsonlite not found")
    out = tmp_path_factory.mktemp("sd2011")
    q = ", ".join(f'"{c}"' for c in COLUMNS)
    code = _R.format(out=out, cols=q, rounds=ROUNDS, keys=", ".join(f'"{k}"' for k in KEYS),
                     target=TARGET)
    res = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, check=True)
    levels = json.loads((Path(out) / "levels.json").read_text())

    def read(name: str) -> pd.DataFrame:
        d = pd.read_csv(Path(out) / f"{name}.csv", keep_default_na=False,
                        na_values=[""])
        for col, lv in levels.items():
            d[col] = pd.Categorical(d[col], categories=lv)
        return d

    times = [line.split() for line in res.stdout.splitlines() if len(line.split()) == 2]
    return {
        "orig": read("orig"),
        "syn": [read(f"syn{j}") for j in range(1, 6)],
        "r_times": [float(t[0]) for t in times],
        "r_cpu": [float(t[1]) for t in times],
        "r_measures": pd.read_csv(Path(out) / "r_measures.csv", index_col=0),
    }


def _ours(sd2011):
    from idrisk.r import disclosure

    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = disclosure(sd2011["syn"], sd2011["orig"], KEYS, TARGET, print_flag=False,
                         cont_na={"income": [-8]})
    _cpu.append(time.process_time() - start)
    return out


def test_disclosure_sd2011_m5(benchmark, sd2011):
    res = benchmark.pedantic(_ours, args=(sd2011,), rounds=ROUNDS, iterations=1)
    ours = pd.concat([res["ident"], res["attrib"], res["allCAPs"]], axis=1)
    theirs = sd2011["r_measures"]
    np.testing.assert_allclose(ours.to_numpy(float), theirs.to_numpy(float), rtol=1e-12)
    _timings["idrisk"] = benchmark.stats.stats.min
    _timings["idrisk_cpu"] = min(_cpu)
    benchmark.extra_info.update(load=machine_load(), cpu_seconds=list(_cpu),
                                cpu_min_seconds=min(_cpu))


def test_disclosure_sd2011_m5_synthpop(benchmark, sd2011):
    """synthpop::disclosure for the same call, in the same run (min over rounds, in R)."""
    times = benchmark.pedantic(lambda: sd2011["r_times"], rounds=1, iterations=1)
    best, best_cpu = min(times), min(sd2011["r_cpu"])
    benchmark.extra_info.update(load=machine_load(), synthpop_seconds=times,
                                synthpop_min_seconds=best, synthpop_cpu_seconds=sd2011["r_cpu"],
                                synthpop_cpu_min_seconds=best_cpu)
    if "idrisk" in _timings:
        benchmark.extra_info["idrisk_min_seconds"] = _timings["idrisk"]
        benchmark.extra_info["speedup_vs_synthpop"] = best / _timings["idrisk"]
        benchmark.extra_info["idrisk_cpu_min_seconds"] = _timings["idrisk_cpu"]
        benchmark.extra_info["cpu_speedup_vs_synthpop"] = best_cpu / _timings["idrisk_cpu"]
