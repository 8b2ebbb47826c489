"""CE risk-weighted synthesis: the c/g weight adjustments and the top-10 / top-coding tables.

Companion of ``ce_risk_weighted.py`` (same 1,000-record subsample, seed 2022, same model,
MCMC and priors). Two parts:

* cheap (no MCMC): the weight distributions for c = 1.5 and g = 0.1 (Marginal and
  Pairwise, ``idrisk.weighted.risk_weights``), and the record-level risk of a top-coded
  release (incomes above the 94th percentile, about 6% as in the paper, replaced by the mean
  of the top-coded incomes), for the top 10 risky records and the top 10 incomes;
* MCMC, one fit at a time, results written after each fit: Pairwise c = 1.5, Pairwise
  g = 0.1, Unweighted and Marginal refits (their per-record risks fill the Synthesizer and
  Marginal columns of the top-10 tables), Marginal c = 1.5, Marginal g = 0.1.

Run:  python vignettes/ce_rw_adjustments.py [--cheap-only] [--quick]
Writes vignettes/figures/rw_ce_adjustments.json and rw_ce_record_risks.csv.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ce_risk_weighted import (  # noqa: E402
    ADAPT_DELTA,
    KNOWN,
    MCMC,
    PREDICTORS,
    PRIORS,
    QUICK_MCMC,
    SLOPES,
    load_ce,
)

from idrisk.weighted.diagnostics import ecdf_table, regression_utility, utility_table  # noqa: E402
from idrisk.weighted.synthesizer import RiskWeightedSynthesizer  # noqa: E402
from idrisk.weighted.weights import (  # noqa: E402
    confidential_marginal_risk,
    risk_weights,
    synthetic_marginal_risk,
)

FIG = HERE / "figures"
R = 0.20
TOPCODE_Q = 0.94
# (label, weighting, c, g, seed offset) in the order they are fitted
FITS = [
    ("Pairwise c=1.5", "pairwise", 1.5, 0.0, 0),
    ("Pairwise g=0.1", "pairwise", 1.0, 0.1, 0),
    ("Unweighted", "none", 1.0, 0.0, 0),
    ("Marginal", "marginal", 1.0, 0.0, 0),
    ("Marginal c=1.5", "marginal", 1.5, 0.0, 0),
    ("Marginal g=0.1", "marginal", 1.0, 0.1, 0),
]


def topcode(income: pd.Series, q: float = TOPCODE_Q) -> tuple[pd.Series, float]:
    """Incomes above the q-quantile replaced by the mean of those incomes."""
    thr = float(income.quantile(q))
    top = income > thr
    out = income.astype(float).copy()
    out[top] = income[top].mean()
    return out, thr


def cheap(df: pd.DataFrame) -> dict:
    pattern = df[KNOWN]
    y = df["Income"]
    w = {}
    for kind in ("marginal", "pairwise"):
        for lab, c, g in (("c=1, g=0", 1.0, 0.0), ("c=1.5, g=0", 1.5, 0.0), ("c=1, g=0.1", 1.0, 0.1)):
            a = risk_weights(y, pattern, R, kind=kind, c=c, g=g)
            w[f"{kind} {lab}"] = {"mean": float(a.mean()), "min": float(a.min()),
                                  "median": float(a.median()), "max": float(a.max()),
                                  "share_at_1": float((a >= 1).mean())}
    tc, thr = topcode(y)
    risk = pd.DataFrame({
        "Income": y,
        "Data": confidential_marginal_risk(y, pattern, R).to_numpy(),
        "Topcoding": synthetic_marginal_risk(y, pattern, [tc], R).record_risk.to_numpy(),
    })
    return {"weights": w, "topcode_threshold": thr, "topcoded_share": float((y > thr).mean()),
            "risk_mean": {k: float(risk[k].mean()) for k in ("Data", "Topcoding")}}, risk


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(HERE.parents[1] / "shared" / "data" / "CEdata.csv"))
    ap.add_argument("--seed", type=int, default=2022)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--cheap-only", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated fit labels to run")
    args = ap.parse_args(argv)
    df = load_ce(args.data).sample(n=args.n, random_state=args.seed).reset_index(drop=True)
    out_json = FIG / f"rw_ce_adjustments{'_quick' if args.quick else ''}.json"
    out_csv = FIG / f"rw_ce_record_risks{'_quick' if args.quick else ''}.csv"
    res = json.loads(out_json.read_text()) if out_json.exists() else {}
    res["cheap"], risk = cheap(df)
    if out_csv.exists():
        old = pd.read_csv(out_csv)
        for col in old.columns:
            if col not in risk.columns:
                risk[col] = old[col].to_numpy()
    risk.to_csv(out_csv, index=False)
    out_json.write_text(json.dumps(res, indent=2, default=float))
    print(json.dumps(res["cheap"], indent=2), flush=True)
    if args.cheap_only:
        return
    mcmc = dict(QUICK_MCMC if args.quick else MCMC)
    L = 5 if args.quick else 20
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    fits = res.setdefault("fits", {})
    pattern = df[KNOWN]
    for label, weighting, c, g, off in FITS:
        if only and label not in only:
            continue
        t0 = time.time()
        s = RiskWeightedSynthesizer("mixture", weighting=weighting, r=R, known=KNOWN, c=c, g=g,
                                    seed=args.seed + off, progress=False,
                                    adapt_delta=ADAPT_DELTA, priors=PRIORS, slopes=SLOPES,
                                    **mcmc)
        s.fit(df, "Income", predictors=PREDICTORS)
        sets = s.synthesize(L, seed=args.seed + off + 1)
        inc = [d["Income"].to_numpy() for d in sets]
        rr = synthetic_marginal_risk(df["Income"], pattern, inc, R).record_risk
        risk[label] = rr.to_numpy()
        risk.to_csv(out_csv, index=False)
        ut = utility_table(df["Income"].to_numpy(), {label: inc}, B=500, seed=args.seed)
        reg = regression_utility(df.assign(LogInc=np.log(df["Income"])),
                                 {label: [d.assign(LogInc=np.log(d["Income"])) for d in sets]},
                                 "LogInc ~ LogExp + Age + C(Urban)", "LogExp")
        ecdf = ecdf_table(np.log(df["Income"]), {label: [np.log(x) for x in inc]})
        fits[label] = {
            "weighting": weighting, "c": c, "g": g,
            "seconds": round(time.time() - t0, 1), "divergent": s.fit_.n_divergent,
            "diagnostics": s.fit_.diagnostics.round(3).to_dict(orient="index"),
            "alpha": {"mean": float(s.alpha_.mean()), "min": float(s.alpha_.min()),
                      "max": float(s.alpha_.max())},
            "utility": {st: ut.loc[(label, st)].round(1).to_dict()
                        for st in ("mean", "median", "q90")},
            "regression_LogExp": reg.loc[label].round(4).to_dict(),
            "ecdf": ecdf.loc[label].round(4).to_dict(),
            "risk": {"mean": float(rr.mean()), "median": float(rr.median()),
                     "q90": float(rr.quantile(0.9)), "max": float(rr.max())},
        }
        out_json.write_text(json.dumps(res, indent=2, default=float))
        print(label, json.dumps(fits[label], default=float), flush=True)


if __name__ == "__main__":
    main()
