"""Compute the CE numbers of docs/guide/precision.md and write them into the page.

    python docs/guide/precision_numbers.py            # rewrite the block in the page
    python docs/guide/precision_numbers.py --check    # exit 1 if the page is out of date

Inputs: the CE sample (``$IDRISK_SHARED/data/CEdata.csv``, or ``../shared``) and synthpop's
four scenario files (``fixtures/synthpop/scenario{1..4}``, synthpop 1.9-3, seed 2021, m = 20).
The block between the markers is generated; nothing in it is typed by hand.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
PAGE = Path(__file__).with_name("precision.md")
START, END = "<!-- precision-numbers: start -->", "<!-- precision-numbers: end -->"
KNOWN = ["Age", "Urban", "Marital"]
SCENARIOS = {1: ["Income"], 2: ["Tenure", "Income"], 3: ["Expenditure", "Income"],
             4: ["Tenure", "Expenditure", "Income"]}
FACTORS = ["Urban", "Marital", "Tenure"]
R = 0.1


def shared() -> Path:
    for path in (os.environ.get("IDRISK_SHARED"), ROOT.parent / "shared", "/work/shared"):
        if path and (Path(path) / "data" / "CEdata.csv").exists():
            return Path(path)
    raise SystemExit("the CE data is not found: set IDRISK_SHARED to the shared folder")


def _md(df: pd.DataFrame, index: bool = False) -> str:
    df = df.reset_index() if index else df
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines)


def _f(v: float, digits: int = 2) -> str:
    return "–" if pd.isna(v) else f"{v:.{digits}f}"


def block() -> str:
    sys.path.insert(0, str(ROOT))
    from idrisk import identification_risk
    from idrisk.cli import read_table
    from idrisk.risk.precision import record_stability, required_m
    from idrisk.risk.whatif import what_if

    base = shared()
    conf = read_table(base / "data" / "CEdata.csv", FACTORS)
    syn_dir = base / "fixtures" / "synthpop"
    rows, advice = [], []
    scen1 = None
    for k, syn in SCENARIOS.items():
        frames = [read_table(p, FACTORS) for p in sorted((syn_dir / f"scenario{k}").glob(
            "syn_*.csv"))]
        if k == 1:
            scen1 = frames
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = identification_risk(conf, frames, KNOWN, syn, r=R)
        it = res.interval(0.95)
        e = it.loc["exp_risk"]
        st = record_stability(res)
        rows.append({"scenario": f"({k}) {' + '.join(syn)}", "m": res.m,
                     "expected risk": _f(e["mean"]), "se": _f(e["se"]),
                     "95% interval": f"[{_f(e['lower'])}, {_f(e['upper'])}]",
                     "true match rate (%)": _f(100 * it.loc["true_rate", "mean"], 3),
                     "its 95% interval (%)": f"[{_f(100 * it.loc['true_rate', 'lower'], 3)}, "
                                             f"{_f(100 * it.loc['true_rate', 'upper'], 3)}]",
                     "identified in all 20": int(st["every"].sum()),
                     "in some": int(((st["identified"] > 0) & ~st["every"]).sum())})
        first5 = res.exp_risk.iloc[:5]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res5 = identification_risk(conf, frames[:5], KNOWN, syn, r=R)
        assert (res5.exp_risk.to_numpy() == first5.to_numpy()).all()
        advice.append({"scenario": f"({k})",
                       "sd over datasets (20)": _f(res.exp_risk.std()),
                       "m for ±5% (from all 20)": required_m(res, relative=0.05),
                       "m for ±5% (pilot: first 5)": required_m(res5, relative=0.05),
                       "m for ±1 record (from all 20)": required_m(res, precision=1.0)})
    assert scen1 is not None
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wi = what_if(conf, scen1, KNOWN, SCENARIOS[1], r=R, radii=[0.2, 0.3, 0.5],
                     bands={"Income": 5000}, merge={"Marital": ["2", "3", "4"]})
    cpu = time.process_time() - t0
    t = wi.summary()
    table = pd.DataFrame({
        "change": t["change"], "variable": t["variable"], "setting": t["setting"],
        "expected risk": [_f(v) for v in t["exp_risk"]],
        "95% interval": [f"[{_f(a)}, {_f(b)}]" for a, b in zip(t["lower"], t["upper"],
                                                               strict=True)],
        "difference": [_f(v) for v in t["difference"]]})
    return "\n\n".join([
        START,
        "Expected risk (records identified, of n = 5571) at r = 10% for every continuous "
        "known and synthesized variable, known variables Age, Urban, Marital; synthpop's "
        "m = 20 datasets per scenario; t-intervals with 19 degrees of freedom. Stability: "
        "records with a unique true match in all 20 datasets, and in some but not all.",
        _md(pd.DataFrame(rows)),
        "The m advice: the m at which the 95% interval of the expected risk is within ±5% of "
        "the estimate, or within ±1 record, extrapolated from the spread of all 20 datasets "
        "and, as a user would from a pilot, of the first 5 only.",
        _md(pd.DataFrame(advice)),
        f"What drives the risk of scenario (1) (`what_if`, {len(t)} rows: the baseline, each "
        "known variable dropped, Age known only to 20%, 30% and 50%, Income released in bands "
        "of 5000, Marital's levels 2, 3 and 4 merged; every row an `identification_risk` "
        "call on the changed inputs):",
        _md(table),
        END,
    ]) + f"\n\n<!-- what_if took {cpu:.2f} s of CPU time when this block was written -->"


def m_experiment() -> str:
    """The numbers of the paragraph in vignettes/ce_section4.md: the m experiment's spread
    over repeats against the 1/sqrt(m) law and the m advice from its m = 1 spread."""
    sys.path.insert(0, str(ROOT))
    import math

    from idrisk.risk.precision import t_quantile

    lines = []
    for suffix, name in (("", "(1)"), ("_s2", "(2)"), ("_s3", "(3)"), ("_s4", "(4)")):
        d = pd.read_csv(ROOT / "vignettes" / "figures" / f"ce_m_experiment{suffix}.csv")
        g = d.groupby("m")["exp_risk"].agg(["mean", "std", "count"])
        sd1, mean1, reps = g.loc[1, "std"], g.loc[1, "mean"], int(g.loc[1, "count"])
        parts = [f"scenario {name}: sd at m = 1 {sd1:.2f} ({reps} repeats)"]
        for m in (10, 20):
            if m in g.index:
                parts.append(f"m = {m}: predicted sd {sd1 / math.sqrt(m):.2f}, observed "
                             f"{g.loc[m, 'std']:.2f} (se of an sd: "
                             f"{g.loc[m, 'std'] / math.sqrt(2 * (g.loc[m, 'count'] - 1)):.2f})")
        target = 0.05 * mean1
        m_needed = 2
        while t_quantile(0.95, m_needed - 1) * sd1 / math.sqrt(m_needed) > target:
            m_needed += 1
        observed = 1.959963984540054 * g.loc[20, "std"] / g.loc[20, "mean"]
        parts.append(f"m for ±5% from the m = 1 spread: {m_needed}; observed 95% half-width "
                     f"at m = 20: ±{100 * observed:.1f}%")
        lines.append("; ".join(parts))
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--check", action="store_true")
    p.add_argument("--m-experiment", action="store_true",
                   help="print the numbers of the m paragraph of vignettes/ce_section4.md")
    args = p.parse_args()
    if args.m_experiment:
        print(m_experiment())
        return 0
    text = PAGE.read_text()
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    tail = tail.split("-->", 1)[1] if tail.lstrip().startswith("<!-- what_if took") else tail
    new = head + block() + tail
    if args.check:
        def strip(s: str) -> str:
            return "\n".join(x for x in s.splitlines() if not x.startswith("<!-- what_if took"))

        return 0 if strip(new) == strip(text) else 1
    PAGE.write_text(new)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
