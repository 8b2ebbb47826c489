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


def _weights_figure(df: pd.DataFrame, pattern) -> None:
    """The papers' weight plots (000 Figures 10-12, supplement Figures 6-8): alpha against log
    income for c = 1, c = 1.5 and g = 0.1; also redraws rw_ce_weights.png with a title."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.log(df["Income"].to_numpy(dtype=float))
    fig, axes = plt.subplots(2, 3, figsize=(14, 7), sharex=True, sharey=True)
    for i, kind in enumerate(("marginal", "pairwise")):
        for j, (lab, c, g) in enumerate((("c = 1, g = 0", 1.0, 0.0), ("c = 1.5, g = 0", 1.5, 0.0),
                                         ("c = 1, g = 0.1", 1.0, 0.1))):
            a = risk_weights(df["Income"], pattern, R, weighting=kind, c=c, g=g)
            ax = axes[i, j]
            ax.scatter(x, a, s=5, alpha=0.6, color="tab:blue" if i == 0 else "tab:orange")
            ax.set_title(f"{kind.capitalize()}, {lab} (mean {a.mean():.3f})", fontsize=10)
            if i == 1:
                ax.set_xlabel("log income (log US$)")
            if j == 0:
                ax.set_ylabel("record weight alpha (0-1)")
    fig.suptitle("Risk weights of the 1,000 CE records, r = 20%, with the local adjustments "
                 "alpha* = min(c alpha + g, 1)")
    fig.tight_layout()
    fig.savefig(FIG / "rw_ce_weights_adjusted.png", dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4))
    for kind, col in (("marginal", "tab:blue"), ("pairwise", "tab:orange")):
        ax.scatter(x, risk_weights(df["Income"], pattern, R, weighting=kind), s=5, alpha=0.7,
                   color=col, label=kind.capitalize())
    ax.set_xlabel("log income (log US$)")
    ax.set_ylabel("record weight alpha (0-1)")
    ax.set_title("Risk weights of the 1,000 CE records, r = 20%")
    ax.legend()
    fig.tight_layout()
    fig.savefig(FIG / "rw_ce_weights.png", dpi=110)
    plt.close(fig)


def cheap(df: pd.DataFrame) -> dict:
    pattern = df[KNOWN]
    y = df["Income"]
    w = {}
    for kind in ("marginal", "pairwise"):
        for lab, c, g in (("c=1, g=0", 1.0, 0.0), ("c=1.5, g=0", 1.5, 0.0),
                          ("c=1, g=0.1", 1.0, 0.1)):
            a = risk_weights(y, pattern, R, weighting=kind, c=c, g=g)
            w[f"{kind} {lab}"] = {"mean": float(a.mean()), "min": float(a.min()),
                                  "median": float(a.median()), "max": float(a.max()),
                                  "share_at_1": float((a >= 1).mean())}
    _weights_figure(df, pattern)
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
    ap.add_argument("--tag", default="", help="suffix of the output files (parallel runs)")
    args = ap.parse_args(argv)
    df = load_ce(args.data).sample(n=args.n, random_state=args.seed).reset_index(drop=True)
    sfx = ("_quick" if args.quick else "") + args.tag
    out_json = FIG / f"rw_ce_adjustments{sfx}.json"
    out_csv = FIG / f"rw_ce_record_risks{sfx}.csv"
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
        s = RiskWeightedSynthesizer(syn="Income", predictors=PREDICTORS, model="mixture",
                                    weighting=weighting, r=R, known=KNOWN, c=c, g=g,
                                    seed=args.seed + off, progress=False,
                                    adapt_delta=ADAPT_DELTA, priors=PRIORS, slopes=SLOPES,
                                    **mcmc)
        s.fit(df)
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


if __name__ == "__main__" and "--tables" not in sys.argv:
    main()


# ---------------------------------------------------------------- tables for the vignette
PUBLISHED_ADJ = {  # preprint Tables 6-7 (Pairwise) and supplement Tables 1-4 (Marginal)
    "Data": {"mean": 72090.26, "median": 50225.15, "q90": 153916.30, "earner2": -45826.20},
    "Synthesizer": {"mean": 72377.12, "median": 50538.50, "q90": 152597.10,
                    "earner2": -46017.29},
    "Pairwise": {"mean": 73184.83, "median": 51692.10, "q90": 145968.90, "earner2": -44028.77},
    "Pairwise c=1.5": {"mean": 71695.49, "median": 51791.43, "q90": 145299.70,
                       "earner2": -43544.92},
    "Pairwise g=0.1": {"mean": 72421.46, "median": 51403.06, "q90": 149157.80,
                       "earner2": -44827.57},
    "Marginal": {"mean": 76641.95, "median": 54229.08, "q90": 134582.40, "earner2": -34738.85},
    "Marginal c=1.5": {"mean": 71527.38, "median": 54376.32, "q90": 132463.70,
                       "earner2": -37687.76},
    "Marginal g=0.1": {"mean": 72950.40, "median": 52664.07, "q90": 142526.50,
                       "earner2": -40759.53},
}
PUBLISHED_T2 = [  # Table 2 (top 10 risky records): Data, Synthesizer, Marginal, Topcoding
    ("(-10K, 50K)", 0.9944, 0.0000, 0.0000, 0.9894), ("(100K, 1000K)", 0.9944, 0.0995, 0.0, 0.0),
    ("(-10K, 50K)", 0.9921, 0.1454, 0.0000, 0.9582), ("(-10K, 50K)", 0.9915, 0.0, 0.0496, 0.9926),
    ("(100K, 1000K)", 0.9913, 0.0498, 0.0, 0.0), ("(-10K, 50K)", 0.9913, 0.1469, 0.0, 0.9852),
    ("(-10K, 50K)", 0.9913, 0.0491, 0.0, 0.9707), ("(100K, 1000K)", 0.9910, 0.0, 0.0, 0.0),
    ("(-10K, 50K)", 0.9910, 0.1471, 0.0, 0.9894), ("(1000K, 2000K)", 0.9910, 0.0, 0.0, 0.0),
]
PUBLISHED_T3 = [  # Table 3 (top 10 incomes)
    ("(1000K, 2000K)", 0.9910, 0.0, 0.0, 0.0), ("(1000K, 2000K)", 0.9643, 0.0499, 0.0, 0.0),
    ("(1000K, 2000K)", 0.9600, 0.0, 0.0, 0.0), ("(100K, 1000K)", 0.9820, 0.0, 0.0, 0.0),
    ("(100K, 1000K)", 0.9913, 0.0498, 0.0, 0.0), ("(100K, 1000K)", 0.9565, 0.0995, 0.0, 0.9955),
    ("(100K, 1000K)", 0.9910, 0.0, 0.0, 0.0), ("(100K, 1000K)", 0.9872, 0.0994, 0.0, 0.0),
    ("(100K, 1000K)", 0.9944, 0.0995, 0.0, 0.0), ("(100K, 1000K)", 0.9908, 0.0, 0.0482, 0.0),
]


def _band(v: float) -> str:
    for lo, hi, lab in ((-1e9, 50e3, "(-10K, 50K)"), (50e3, 100e3, "(50K, 100K)"),
                        (100e3, 1e6, "(100K, 1000K)"), (1e6, 1e12, "(1000K, 2000K)")):
        if lo <= v < hi:
            return lab
    return "?"


def tables(fig: Path = FIG) -> str:
    """Markdown: Tables 2-3 (ours beside the paper's) and the c/g adjustment tables."""
    risk = pd.read_csv(fig / "rw_ce_record_risks.csv")
    res = json.loads((fig / "rw_ce_adjustments.json").read_text())
    for extra in sorted(fig.glob("rw_ce_adjustments_*.json")):  # parallel runs (--tag)
        if "quick" in extra.name:
            continue
        res.setdefault("fits", {}).update(json.loads(extra.read_text()).get("fits", {}))
        csv = fig / extra.name.replace("rw_ce_adjustments", "rw_ce_record_risks").replace(
            ".json", ".csv")
        if csv.exists():
            other = pd.read_csv(csv)
            for col in other.columns:
                if col not in risk.columns:
                    risk[col] = other[col].to_numpy()
    main = json.loads((fig / "rw_ce_results.json").read_text())
    cols = [c for c in ("Unweighted", "Marginal") if c in risk.columns]
    out = []
    for title, order, pub in (
            ("Table 2: the 10 riskiest records (by Data risk; ties by income)",
             risk.sort_values(["Data", "Income"], ascending=False), PUBLISHED_T2),
            ("Table 3: the 10 largest incomes", risk.sort_values("Income", ascending=False),
             PUBLISHED_T3)):
        head = ["income band", "Data"] + [("Synthesizer" if c == "Unweighted" else c)
                                          for c in cols] + ["Topcoding", "paper: band", "Data",
                                                            "Synthesizer", "Marginal",
                                                            "Topcoding"]
        out.append(f"{title}\n\n| " + " | ".join(head) + " |\n|" + "---|" * len(head))
        for (_, row), p in zip(order.head(10).iterrows(), pub, strict=True):
            cells = [_band(row["Income"]), f"{row['Data']:.4f}"]
            cells += [f"{row[c]:.4f}" for c in cols]
            cells += [f"{row['Topcoding']:.4f}", p[0]] + [f"{x:.4f}" for x in p[1:]]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    # c/g utility tables
    data_est = {st: main["utility"][f"Data | {st}"]["estimate"] for st in ("mean", "median",
                                                                         "q90")}
    data_est["reg"] = main["regression_LogExp"]["Data"]["estimate"]
    noise = {st: abs(main["utility"][f"Unweighted | {st}"]["estimate"]
                     - main["utility"][f"Unweighted (seed 2) | {st}"]["estimate"])
             for st in ("mean", "median", "q90")}
    noise["reg"] = abs(main["regression_LogExp"]["Unweighted"]["estimate"]
                       - main["regression_LogExp"]["Unweighted (seed 2)"]["estimate"])
    noise["U_m"] = abs(main["ecdf_log_income"]["Unweighted"]["U_m"]
                       - main["ecdf_log_income"]["Unweighted (seed 2)"]["U_m"])

    def ours(label, refit=False):
        base = label.split(" ")[0]
        if label in res.get("fits", {}) and (refit or label != base):
            f = res["fits"][label]
            return ({st: f["utility"][st]["estimate"] for st in ("mean", "median", "q90")}
                    | {"reg": f["regression_LogExp"]["estimate"], "U_m": f["ecdf"]["U_m"],
                       "risk": f["risk"]["mean"]})
        if label == base and base in main["fits"]:
            return ({st: main["utility"][f"{base} | {st}"]["estimate"]
                     for st in ("mean", "median", "q90")}
                    | {"reg": main["regression_LogExp"][base]["estimate"],
                       "U_m": main["ecdf_log_income"][base]["U_m"],
                       "risk": main["risk_summary"][base]["mean"]})
        return None

    head = ("| synthesizer | alpha mean | mean | median | q90 | log-Exp coef. | U_m | mean risk "
            "| paper: mean | median | q90 | Earner 2 |\n|" + "---|" * 12)
    for kind in ("Pairwise", "Marginal"):
        out.append(f"{kind}: c/g adjustments (ours: estimate; distance to our Data in "
                   "brackets as a multiple of the unweighted-pair noise)\n\n" + head)
        rows_ = [(kind, "c=1, g=0", False)]
        if kind in res.get("fits", {}):
            rows_.append((kind, "c=1, g=0", True))
        rows_ += [(f"{kind} c=1.5", "c=1.5, g=0", False), (f"{kind} g=0.1", "c=1, g=0.1", False)]
        for lab, key, refit in rows_:
            o = ours(lab, refit)
            w = res["cheap"]["weights"][f"{kind.lower()} {key}"]["mean"]
            p = PUBLISHED_ADJ[lab]
            if o is None:
                cells = ["not fitted"] * 6
            else:
                cells = [f"{o[st]:,.0f} ({abs(o[st] - data_est[st]) / noise[st]:.1f})"
                         for st in ("mean", "median", "q90")]
                cells += [f"{o['reg']:.3f} ({abs(o['reg'] - data_est['reg']) / noise['reg']:.1f})",
                          f"{o['U_m']:.4f}", f"{o['risk']:.4f}"]
            tag = ", refit" if refit else (", main run" if lab == kind else "")
            out.append(f"| {lab} ({key}{tag}) | {w:.3f} | " + " | ".join(cells) + " | "
                       + " | ".join(f"{p[k]:,.0f}" for k in ("mean", "median", "q90", "earner2"))
                       + " |")
        out.append("")
    out.append("Noise (|Unweighted 2022 - Unweighted 2023|): " + ", ".join(
        f"{k} {v:,.4g}" for k, v in noise.items()))
    return "\n".join(out)


if __name__ == "__main__" and "--tables" in sys.argv:
    print(tables())
