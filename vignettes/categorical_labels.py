"""Synthesizing a many-level categorical label with inherent risk bounds (Hu & Savitsky).

The CE county data are confidential, so the findings are reproduced on
(A) the public CE sample (``shared/data/CEdata.csv``, n = 5,571): label Educ x Tenure (the
    synthesized variable), kept Urban, Marital and banded Age (50 patterns); and
(B) simulated data shaped like the paper's: 40 patterns of the supplement's Table 1 sizes
    (n = 6,208), Gender x Income x Age, with a 130-level label.

For each: DPMPM (K = 40, 10,000 iterations, 5,000 burn-in, m = 20, ``z="kept"``; also
``z="gibbs"``, NPBayesImputeCat's behaviour) and DP-areal (K = 50, Gibbs sampler, 2,000
sweeps, 1,000 burn-in, m = 20; the paper ran 4,000 HMC iterations); the inherent Min/Max
bounds (S = 100); identification risk for two intruder-knowledge cases; attribute risk;
one-/two-/three-way table deviations; the ordered logit of the income category.

Run:  python vignettes/categorical_labels.py [--ci]
Writes vignettes/figures/categorical_*.png and categorical_results[_ci].json.
``--ci``: 800 records of each dataset, 300 DPMPM iterations (150 burn-in), 100 DP-areal
sweeps (50 burn-in), m = 2, S = 5 -- a check that the whole pipeline runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from idrisk.categorical import DPMPM, DPAreal, ce_label_data, simulate_label_data
from idrisk.categorical.plots import plot_bounds, plot_table_deviations
from idrisk.risk.bounds import inherent_bounds, label_risk
from idrisk.utility.ordered_logit import ordered_logit_utility
from idrisk.utility.tables import table_deviations

FIG = Path(__file__).resolve().parent / "figures"

# Published numbers (Hu & Savitsky, CE county data, n = 6,208).
PAPER_T2 = {"one-way": (9.087, 17.105), "two-way": (47.908, 64.165),
            "three-way": (80.826, 88.843)}             # DPMPM, DP-areal; sums / 100
PAPER_T4 = {  # known case -> measure -> (DPMPM, DP-areal, Max)
    "case i": {"exp_risk": (2.497, 0.952, 4.708), "true_rate": (0.000, 0.0, 0.000),
               "false_rate": (0.997, 1.0, 0.989)},
    "case ii": {"exp_risk": (10.474, 0.851, 20.073), "true_rate": (0.000, 0.000, 0.001),
                "false_rate": (0.991, 1.000, 0.978)},
}
PAPER_T5 = {"count": (47.25, 115.25, 88.15, 175.33),   # Min, DPMPM, DP-areal, Max
            "share": (0.0076, 0.0186, 0.0142, 0.0282)}


def settings(ci: bool) -> dict:
    if ci:
        return {"n": 800, "dpmpm_iter": 300, "dpmpm_burn": 150, "areal_iter": 100,
                "areal_burn": 50, "m": 2, "S": 5, "train": 0.8}
    return {"n": None, "dpmpm_iter": 10_000, "dpmpm_burn": 5_000, "areal_iter": 2_000,
            "areal_burn": 1_000, "m": 20, "S": 100, "train": 0.8}


def datasets(ce_path: str, ci: bool, n: int | None) -> dict:
    from idrisk.datasets import read_ce

    ce = ce_label_data(read_ce(ce_path))
    sim = simulate_label_data(n_labels=130, seed=2022)
    if n is not None:
        ce = ce.sample(n, random_state=1).reset_index(drop=True)
        sim = sim.sample(n, random_state=1).reset_index(drop=True)
    return {
        "ce": {"data": ce, "label": "Label", "kept": ["Urban", "Marital", "AgeBand"],
               "known": {"case i": ["Urban"], "case ii": ["Urban", "AgeBand"]},
               "model_cols": ["Urban", "Marital", "AgeBand", "Label"],
               "ologit": ("IncomeQ", ["Label", "AgeBand", "Urban", "Marital"])},
        "sim": {"data": sim, "label": "County", "kept": ["Gender", "Income", "Age"],
                "known": {"case i": ["Gender"], "case ii": ["Gender", "Age"]},
                "model_cols": ["Gender", "Income", "Age", "County"],
                "ologit": ("Income", ["County", "Age", "Gender"])},
    }


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def run_one(name: str, spec: dict, st: dict, seed: int) -> dict:
    d, label, kept = spec["data"], spec["label"], spec["kept"]
    out: dict = {"n": len(d), "labels": int(d[label].nunique()),
                 "patterns": int(d.groupby(kept, observed=True).ngroups)}
    t0 = time.time()
    model = DPMPM(K=40, n_iter=st["dpmpm_iter"], burn=st["dpmpm_burn"], keep=st["m"],
                  seed=seed, progress=False).fit(d[spec["model_cols"]], label)
    out["dpmpm_seconds"] = time.time() - t0
    _log(f"{name}: DPMPM {out['dpmpm_seconds']:.0f} s")
    out["dpmpm_kstar"] = model.kstar_summary().to_dict()
    syn = {"DPMPM": list(model.set_params(z="kept").synthesize(st["m"], seed=seed)),
           "DPMPM (z=gibbs)": list(model.set_params(z="gibbs").synthesize(st["m"], seed=seed))}
    syn = {k: [s.assign(**{c: d[c] for c in d.columns if c not in s}) for s in v]
           for k, v in syn.items()}
    t0 = time.time()
    areal = DPAreal(K=50, n_iter=st["areal_iter"], burn=st["areal_burn"], keep=st["m"],
                    seed=seed, progress=False).fit(d, label, kept)
    out["areal_seconds"] = time.time() - t0
    out["areal_accept"] = float(areal.sampler_diagnostics_["eta_accept"])
    _log(f"{name}: DP-areal {out['areal_seconds']:.0f} s")
    syn["DP-areal"] = list(areal.synthesize(st["m"], seed=seed))
    # utility: table deviations (Table 2)
    devs = {k: table_deviations(d, v, label, kept) for k, v in syn.items()}
    out["table2"] = {k: (v.summary()["mean_abs_deviation"] / 100).round(3).to_dict()
                     for k, v in devs.items()}
    # risk: bounds and synthesizers per knowledge case (Tables 4 and 5)
    out["risk"] = {}
    for case, known in spec["known"].items():
        b = inherent_bounds(d, label, kept, S=st["S"], seed=seed, known=known)
        b_all = inherent_bounds(d, label, kept, S=st["S"], seed=seed, known=known,
                                min_support="all")
        frames = {k: label_risk(d, v, label, known) for k, v in syn.items()}
        tab = b.table(**frames)
        tab.insert(0, "Min (all labels)", b_all.summary()["min"])
        out["risk"][case] = {"table": tab.round(5).to_dict(),
                             "closed_form": b.closed_form.round(3).to_dict(),
                             "closed_form_all": b_all.closed_form.round(3).to_dict(),
                             "position_attribute": {k: b.position(f).to_dict()
                                                    for k, f in frames.items()},
                             "position_exp_risk": {k: b.position(f, "exp_risk").to_dict()
                                                   for k, f in frames.items()}}
        if case == "case ii":
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            fig, axes = plt.subplots(1, 2, figsize=(13, 4.2))
            main = {k: frames[k] for k in ("DPMPM", "DP-areal")}
            plot_bounds(b, main, "exp_risk", scenarios=("max",), ax=axes[0])
            plot_bounds(b, main, "attribute_count", ax=axes[1])
            fig.suptitle(f"{name}: known {known} + {label}")
            fig.tight_layout()
            fig.savefig(FIG / f"categorical_bounds_{name}{st['suffix']}.png", dpi=110)
            plt.close(fig)
            fig = plot_table_deviations({k: devs[k] for k in ("DPMPM", "DP-areal")})
            fig.savefig(FIG / f"categorical_table_deviations_{name}{st['suffix']}.png", dpi=110)
            plt.close(fig)
        _log(f"{name}: risk {case}")
    # analysis-specific utility: ordered logit, hold-out prediction
    outcome, preds = spec["ologit"]
    ol = {}
    for k in ("DPMPM", "DP-areal"):
        u = ordered_logit_utility(d, syn[k], outcome, preds, train=st["train"], seed=seed)
        c = u.coefficients
        lab_terms = [t for t in c.index if t.startswith(label)]
        pr = u.predictions
        ol[k] = {"mean_overlap_label_terms": float(c.loc[lab_terms, "overlap"].mean()),
                 "mean_overlap_other_terms": float(c.drop(lab_terms)["overlap"].mean()),
                 "prediction_rmse_vs_confidential": float(np.sqrt(
                     ((pr.drop(columns="confidential").sub(pr["confidential"], axis=0)) ** 2)
                     .mean().mean()))}
    out["ordered_logit"] = ol
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ci", action="store_true", help="CI-sized run")
    ap.add_argument("--ce", default=None, help="path of CEdata.csv")
    ap.add_argument("--seed", type=int, default=2022)
    args = ap.parse_args(argv)
    st = settings(args.ci)
    st["suffix"] = "_ci" if args.ci else ""
    ce_path = args.ce or str(Path(__file__).resolve().parents[2] / "shared" / "data"
                             / "CEdata.csv")
    FIG.mkdir(exist_ok=True)
    results = {"settings": {k: v for k, v in st.items() if k != "suffix"}}
    for name, spec in datasets(ce_path, args.ci, st["n"]).items():
        t0 = time.time()
        results[name] = run_one(name, spec, st, args.seed)
        results[name]["seconds"] = time.time() - t0
        print(f"{name}: done in {results[name]['seconds']:.0f} s", file=sys.stderr)
    results["paper"] = {"table2": PAPER_T2, "table4": PAPER_T4, "table5": PAPER_T5}
    path = FIG / f"categorical_results{st['suffix']}.json"
    path.write_text(json.dumps(results, indent=1, default=float))
    return results



def markdown(results: dict) -> str:
    """The vignette's tables from a results JSON (ours beside the paper's, with differences).

    The paper's numbers are on the confidential CE county data (n = 6,208, 133 labels);
    ours on other data, so a difference says how far the *pattern* carries over, not an error.
    """
    out = []
    p2, p4, p5 = PAPER_T2, PAPER_T4, PAPER_T5
    for name, title in (("ce", "A. Public CE sample"), ("sim", "B. Simulated CE-county-like")):
        r = results[name]
        ks = r["dpmpm_kstar"]
        out.append(f"### {title} (n = {r['n']}, {r['labels']} labels, {r['patterns']} patterns)"
                   f"\n\nDPMPM k* median {ks['median']:g} (95%: {ks['lo']:g}-{ks['hi']:g}, "
                   f"max {ks['max']:g}), posterior mean alpha {ks['alpha_mean']:.3g}; DPMPM "
                   f"{r['dpmpm_seconds']:.0f} s, DP-areal {r['areal_seconds']:.0f} s "
                   f"(log-rate acceptance {r['areal_accept']:.2f}).\n")
        out.append("Table 2 (sum of |syn - orig| table counts, mean over m, / 100)\n")
        out.append("| table | DPMPM | DPMPM (z=gibbs) | DP-areal | paper DPMPM | paper DP-areal "
                   "| diff DPMPM | diff DP-areal |\n|---|---|---|---|---|---|---|---|")
        t2 = r["table2"]
        for w in ("one-way", "two-way", "three-way"):
            a, g, b = t2["DPMPM"][w], t2["DPMPM (z=gibbs)"][w], t2["DP-areal"][w]
            pa, pb = p2[w]
            out.append(f"| {w} | {a:.3f} | {g:.3f} | {b:.3f} | {pa} | {pb} | {a - pa:+.3f} | "
                       f"{b - pb:+.3f} |")
        out.append("")
        for case in ("case i", "case ii"):
            tab = r["risk"][case]["table"]
            known = "first kept variable" if case == "case i" else "first and third kept"
            out.append(f"Table 4, {case} (known: {known} + label)\n")
            out.append("| measure | Min | Min (all labels) | DPMPM | DPMPM (z=gibbs) | DP-areal "
                       "| Max | paper DPMPM | paper DP-areal | paper Max |\n"
                       "|---|---|---|---|---|---|---|---|---|---|")
            for m in ("exp_risk", "true_rate", "false_rate"):
                pd_, pa_, pm_ = p4[case][m]
                vals = [tab[c][m] for c in ("Min", "Min (all labels)", "DPMPM",
                                            "DPMPM (z=gibbs)", "DP-areal", "Max")]
                cells = " | ".join("NaN" if v is None or v != v else f"{v:.4g}" for v in vals)
                out.append(f"| {m} | {cells} | {pd_} | {pa_} | {pm_} |")
            out.append("")
        tab = r["risk"]["case ii"]["table"]
        cf = r["risk"]["case ii"]["closed_form"]["mean"]
        cfa = r["risk"]["case ii"]["closed_form_all"]["mean"]
        out.append("Table 5 (exact attribute disclosures; mean over m or S)\n")
        out.append("| | Min | Min (all labels) | DPMPM | DPMPM (z=gibbs) | DP-areal | Max |\n"
                   "|---|---|---|---|---|---|---|")
        for m, fmt in (("attribute_count", "{:.2f}"), ("attribute_share", "{:.2%}")):
            vals = [tab[c][m] for c in ("Min", "Min (all labels)", "DPMPM", "DPMPM (z=gibbs)",
                                        "DP-areal", "Max")]
            out.append(f"| {m} | " + " | ".join(fmt.format(v) for v in vals) + " |")
        out.append(f"| closed form (count) | {cf['min']:.2f} | {cfa['min']:.2f} | | | | "
                   f"{cf['max']:.2f} |")
        out.append(f"| paper count | {p5['count'][0]} | | {p5['count'][1]} | | {p5['count'][2]} "
                   f"| {p5['count'][3]} |")
        out.append(f"| paper share | {p5['share'][0]:.2%} | | {p5['share'][1]:.2%} | | "
                   f"{p5['share'][2]:.2%} | {p5['share'][3]:.2%} |\n")
        pos = r["risk"]["case ii"]["position_attribute"]
        out.append("Share of Min / Max redraws at or below each synthesizer's mean attribute "
                   "count: " + "; ".join(f"{k}: Min {v['min']:.2f}, Max {v['max']:.2f}"
                                         for k, v in pos.items()) + "\n")
        ol = r["ordered_logit"]
        out.append("Ordered logit (hold-out 20%): " + "; ".join(
            f"{k}: mean CI overlap label terms {v['mean_overlap_label_terms']:.3f}, other terms "
            f"{v['mean_overlap_other_terms']:.3f}, RMSE of predicted expected category vs "
            f"confidential fit {v['prediction_rmse_vs_confidential']:.4f}"
            for k, v in ol.items()) + "\n")
    return "\n".join(out)


if __name__ == "__main__":
    res = main()
    print(markdown(res))
