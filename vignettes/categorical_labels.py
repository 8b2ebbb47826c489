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


def within_pattern(d, syn: dict, label: str, kept: list, seed: int = 0, S: int = 20):
    """Within-pattern utility (the paper's section 3.3 / Figure 3, as a number per pattern).

    For every pattern (combination of the kept variables): the total variation distance
    0.5 * sum |p - q| between the confidential label distribution p and each synthetic
    dataset's q, mean and sd over the m datasets. The floor ``tv_redraw`` is the same distance
    for S multinomial redraws of the pattern's labels from its own empirical distribution
    (the Max scenario): the distance that sampling alone gives with n_b records.
    """
    import pandas as pd

    rng = np.random.default_rng(seed)
    keys = d[kept].astype(str).agg("|".join, axis=1)
    levels = pd.Index(sorted(d[label].astype(str).unique()))
    rows = []
    for b, idx in keys.groupby(keys).groups.items():
        orig = d.loc[idx, label].astype(str).value_counts(normalize=True).reindex(levels,
                                                                                  fill_value=0)
        row = {"pattern": b, "n": len(idx)}
        for name, sets in syn.items():
            tv = [0.5 * (s.loc[idx, label].astype(str).value_counts(normalize=True)
                         .reindex(levels, fill_value=0) - orig).abs().sum() for s in sets]
            row[f"tv {name}"] = float(np.mean(tv))
            row[f"sd {name}"] = float(np.std(tv, ddof=1)) if len(tv) > 1 else float("nan")
        p = orig.to_numpy()
        red = [0.5 * np.abs(rng.multinomial(len(idx), p) / len(idx) - p).sum() for _ in range(S)]
        row["tv_redraw"] = float(np.mean(red))
        rows.append(row)
    return pd.DataFrame(rows).sort_values("n", ascending=False).reset_index(drop=True)


def within_summary(wp, a: str = "DPMPM", b: str = "DP-areal", m: int = 20) -> dict:
    """Patterns where a is closer / farther than b by more than 2 SE (SE from the m datasets)."""
    se = np.sqrt((wp[f"sd {a}"] ** 2 + wp[f"sd {b}"] ** 2) / m)
    diff = wp[f"tv {a}"] - wp[f"tv {b}"]
    small = wp["n"] < 30
    out = {"patterns": int(len(wp)), "a_closer": int((diff < -2 * se).sum()),
           "b_closer": int((diff > 2 * se).sum()), "tie": int((diff.abs() <= 2 * se).sum()),
           "mean_tv": {k: float(wp[f"tv {k}"].mean()) for k in (a, b)},
           "mean_tv_redraw": float(wp["tv_redraw"].mean()),
           "weighted_tv": {k: float(np.average(wp[f"tv {k}"], weights=wp["n"])) for k in (a, b)},
           "weighted_tv_redraw": float(np.average(wp["tv_redraw"], weights=wp["n"])),
           "small_patterns_n_lt_30": int(small.sum()),
           "mean_tv_small": {k: float(wp.loc[small, f"tv {k}"].mean()) for k in (a, b)},
           "mean_tv_large": {k: float(wp.loc[~small, f"tv {k}"].mean()) for k in (a, b)}}
    return out


def plot_within_pattern(d, syn: dict, label: str, kept: list, title: str, path) -> None:
    """Counterpart of the paper's Figure 3: label distribution in the four largest patterns
    (confidential, and the first synthetic dataset of each synthesizer)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = d[kept].astype(str).apply(lambda r: ", ".join(f"{c} {v}" for c, v in r.items()),
                                     axis=1)
    top = keys.value_counts().index[:4]
    levels = d[label].astype(str).value_counts().index  # labels by overall frequency
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.8), sharey=True)
    for ax, b in zip(axes, top, strict=True):
        idx = keys.index[keys == b]
        x = np.arange(len(levels))
        ax.plot(x, d.loc[idx, label].astype(str).value_counts(normalize=True)
                .reindex(levels, fill_value=0).to_numpy(), color="grey", lw=2,
                label="confidential")
        for name, col in (("DPMPM", "tab:orange"), ("DP-areal", "tab:blue")):
            ax.plot(x, syn[name][0].loc[idx, label].astype(str).value_counts(normalize=True)
                    .reindex(levels, fill_value=0).to_numpy(), color=col, lw=1, label=name)
        ax.set_title(f"{b} (n = {len(idx)})", fontsize=9)
        ax.set_xlabel(f"{label} level (rank of overall frequency)")
    axes[0].set_ylabel("share of the pattern's records")
    axes[0].legend()
    name = {"ce": "CE sample", "sim": "Simulated data"}.get(title, title)
    fig.suptitle(f"{name}: {label} distribution within the four largest patterns "
                 "(confidential vs one synthetic dataset of each synthesizer)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def run_one(name: str, spec: dict, st: dict, seed: int) -> dict:
    d, label, kept = spec["data"], spec["label"], spec["kept"]
    out: dict = {"n": len(d), "labels": int(d[label].nunique()),
                 "patterns": int(d.groupby(kept, observed=True).ngroups)}
    t0 = time.time()
    model = DPMPM(syn=label, K=40, n_iter=st["dpmpm_iter"], burn=st["dpmpm_burn"],
                  keep=st["m"], seed=seed, progress=False).fit(d[spec["model_cols"]])
    out["dpmpm_seconds"] = time.time() - t0
    _log(f"{name}: DPMPM {out['dpmpm_seconds']:.0f} s")
    out["dpmpm_kstar"] = model.kstar_summary().to_dict()
    syn = {"DPMPM": list(model.set_params(z="kept").synthesize(st["m"], seed=seed)),
           "DPMPM (z=gibbs)": list(model.set_params(z="gibbs").synthesize(st["m"], seed=seed))}
    syn = {k: [s.assign(**{c: d[c] for c in d.columns if c not in s}) for s in v]
           for k, v in syn.items()}
    t0 = time.time()
    areal = DPAreal(syn=label, known=kept, K=50, n_iter=st["areal_iter"],
                    burn=st["areal_burn"], keep=st["m"], seed=seed, progress=False).fit(d)
    out["areal_seconds"] = time.time() - t0
    out["areal_accept"] = float(areal.sampler_diagnostics_["eta_accept"])
    _log(f"{name}: DP-areal {out['areal_seconds']:.0f} s")
    syn["DP-areal"] = list(areal.synthesize(st["m"], seed=seed))
    # within-pattern utility (section 3.3, Figure 3)
    wp = within_pattern(d, {k: syn[k] for k in ("DPMPM", "DP-areal")}, label, kept, seed=seed)
    out["within_pattern"] = within_summary(wp, m=st["m"])
    wp.to_csv(FIG / f"categorical_within_pattern_{name}{st['suffix']}.csv", index=False)
    plot_within_pattern(d, syn, label, kept, name,
                        FIG / f"categorical_within_pattern_{name}{st['suffix']}.png")
    # utility: table deviations (Table 2)
    devs = {k: table_deviations(d, v, label, kept) for k, v in syn.items()}
    out["table2"] = {k: (v.summary()["mean_abs_deviation"] / 100).round(3).to_dict()
                     for k, v in devs.items()}
    out["table2_sd"] = {k: (v.by_dataset().std(ddof=1) / 100).round(4).to_dict()
                        for k, v in devs.items()}
    if st.get("utility_only"):
        return out
    if st.get("risk_only"):
        pass
    # risk: bounds and synthesizers per knowledge case (Tables 4 and 5)
    out["risk"] = {}
    for case, known in spec["known"].items():
        b = inherent_bounds(d, label, kept, n_repeats=st["S"], seed=seed, risk_known=known)
        b_all = inherent_bounds(d, label, kept, n_repeats=st["S"], seed=seed, risk_known=known,
                                min_support="all")
        frames = {k: label_risk(d, v, label, known) for k, v in syn.items()}
        tab = b.table(**frames)
        tab.insert(0, "Min (all labels)", b_all.summary()["min"])
        # spread: sd over the m datasets (synthesizers) or the S redraws (bounds)
        sd = {k: f[["exp_risk", "attribute_count"]].std(ddof=1).to_dict()
              for k, f in frames.items()}
        for sc, g in b.draws.groupby("scenario"):
            sd[sc.capitalize()] = g[["exp_risk", "attribute_count"]].std(ddof=1).to_dict()
        sd["Min (all labels)"] = (b_all.draws[b_all.draws["scenario"] == "min"]
                                  [["exp_risk", "attribute_count"]].std(ddof=1).to_dict())
        out["risk"][case] = {"table": tab.round(5).to_dict(), "sd": sd,
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
            fig.suptitle(f"{'CE sample' if name == 'ce' else 'simulated data'}: intruder "
                         f"knows {', '.join(known)} and the synthetic {label}")
            fig.tight_layout()
            fig.savefig(FIG / f"categorical_bounds_{name}{st['suffix']}.png", dpi=110)
            plt.close(fig)
            fig = plot_table_deviations({k: devs[k] for k in ("DPMPM", "DP-areal")})
            fig.suptitle(f"{'A, CE sample' if name == 'ce' else 'B, simulated data'}: "
                         "synthetic minus confidential table counts, all m datasets")
            fig.savefig(FIG / f"categorical_table_deviations_{name}{st['suffix']}.png", dpi=110)
            plt.close(fig)
        _log(f"{name}: risk {case}")
    if st.get("risk_only"):
        return out
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
    ap.add_argument("--utility-only", action="store_true",
                    help="fits, within-pattern utility and table deviations only (with their "
                         "sd over m); writes categorical_utility[_ci].json")
    ap.add_argument("--risk-only", action="store_true",
                    help="fits, table deviations, within-pattern utility and the risk tables "
                         "with their sd (no ordered logit); writes categorical_risk[_ci].json")
    args = ap.parse_args(argv)
    st = settings(args.ci)
    st["utility_only"] = args.utility_only
    st["risk_only"] = args.risk_only
    st["suffix"] = "_ci" if args.ci else ""
    ce_path = args.ce or str(Path(__file__).resolve().parents[2] / "shared" / "data"
                             / "CEdata.csv")
    FIG.mkdir(exist_ok=True)
    results = {"settings": {k: v for k, v in st.items()
                            if k not in ("suffix", "utility_only", "risk_only")}}
    for name, spec in datasets(ce_path, args.ci, st["n"]).items():
        t0 = time.time()
        results[name] = run_one(name, spec, st, args.seed)
        results[name]["seconds"] = time.time() - t0
        print(f"{name}: done in {results[name]['seconds']:.0f} s", file=sys.stderr)
    results["paper"] = {"table2": PAPER_T2, "table4": PAPER_T4, "table5": PAPER_T5}
    stem = ("categorical_utility" if args.utility_only else
            "categorical_risk" if args.risk_only else "categorical_results")
    path = FIG / f"{stem}{st['suffix']}.json"
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
    if "--utility-only" not in sys.argv and "--risk-only" not in sys.argv:
        print(markdown(res))


NOISE_RULE = ("A difference counts when it exceeds 2 standard errors (factor = difference / SE, "
              "signed so that > 0 is the paper's direction). SE of a mean over the m = 20 "
              "synthetic datasets: sd / sqrt(20); over the S = 100 bound redraws: sd / sqrt(100); "
              "of a difference: the root sum of squares.")


def findings_md(results: dict, utility: dict | None = None) -> str:
    """The opening table: each finding of the paper, ours on A (CE) and B (simulated), factors."""
    utility = utility or {}
    m = results["settings"]["m"]
    S = results["settings"]["S"]

    def se(sd, k):
        return sd / np.sqrt(k)

    def fac(a, sa, ka, b, sb, kb):
        """(a - b) / SE."""
        s = np.hypot(se(sa, ka), se(sb, kb))
        return (a - b) / s if s > 0 else float("nan")

    def verdict(fs):
        fs = [f for f in fs if f == f]
        if not fs:
            return "not judged (no SE)"
        if all(f >= 2 for f in fs):
            return "reproduced"
        if all(f <= -2 for f in fs):
            return "not reproduced (opposite, beyond noise)"
        if any(f <= -2 for f in fs) and any(f >= 2 for f in fs):
            return "mixed"
        if any(f >= 2 for f in fs):
            return "partly (others within noise)"
        if any(f <= -2 for f in fs):
            return "not reproduced in part (opposite, beyond noise)"
        return "not established (within noise)"

    rows = []

    def add(name, paper, cells, factors, v=None):
        rows.append((name, paper, cells, factors, v or verdict(
            [f for fl in factors.values() for f in fl] if isinstance(factors, dict) else factors)))

    names = {"ce": "A", "sim": "B"}
    # Table 2 / Figure 1
    for w in ("one-way", "two-way", "three-way"):
        cells, fs = [], {}
        for k, lab in names.items():
            src = utility.get(k, results[k])
            t2 = results[k]["table2"]
            sd = src.get("table2_sd")
            a, b = t2["DP-areal"][w], t2["DPMPM"][w]
            f = fac(a, sd["DP-areal"][w], m, b, sd["DPMPM"][w], m) if sd else float("nan")
            fs[lab] = [f]
            cells.append(f"{lab}: {b:.2f} vs {a:.2f}")
        pa, pb = PAPER_T2[w]
        add(f"Table 2 / Fig. 1: DPMPM deviates less than DP-areal, {w} (/100)",
            f"{pa} vs {pb}", "; ".join(cells),
            {k: v for k, v in fs.items()})
    # within pattern (Figure 3)
    cells, fs = [], {}
    for k, lab in names.items():
        wp = utility.get(k, results[k]).get("within_pattern")
        if not wp:
            continue
        cells.append(f"{lab}: DPMPM closer in {wp['a_closer']}, DP-areal in {wp['b_closer']}, "
                     f"tie in {wp['tie']} of {wp['patterns']} patterns; mean TV weighted by n "
                     f"{wp['weighted_tv']['DPMPM']:.3f} vs {wp['weighted_tv']['DP-areal']:.3f} "
                     f"(redraw floor {wp['weighted_tv_redraw']:.3f})")
        fs[lab] = [(wp["a_closer"] - wp["b_closer"]) / max(1.0, np.sqrt(wp["a_closer"]
                                                                         + wp["b_closer"]))]
    if cells:
        add("Fig. 3 (section 3.3): within-pattern label distribution closer to the data for "
            "DPMPM in most patterns", "most patterns", "; ".join(cells), fs)
    cells = []
    for k, lab in names.items():
        wp = utility.get(k, results[k]).get("within_pattern")
        if wp:
            cells.append(f"{lab}: patterns with n < 30: {wp['small_patterns_n_lt_30']}, mean TV "
                         f"{wp['mean_tv_small']['DPMPM']:.2f} / "
                         f"{wp['mean_tv_small']['DP-areal']:.2f}"
                         f"; larger patterns {wp['mean_tv_large']['DPMPM']:.2f} / "
                         f"{wp['mean_tv_large']['DP-areal']:.2f}")
    if cells:
        add("Fig. 3: both distort small patterns equally strongly", "yes", "; ".join(cells), [],
            "descriptive (see text)")
    # ordered logit
    cells = []
    for k, lab in names.items():
        ol = results[k]["ordered_logit"]
        cells.append(f"{lab}: RMSE {ol['DPMPM']['prediction_rmse_vs_confidential']:.3f} vs "
                     f"{ol['DP-areal']['prediction_rmse_vs_confidential']:.3f}; label-term CI "
                     f"overlap {ol['DPMPM']['mean_overlap_label_terms']:.2f} vs "
                     f"{ol['DP-areal']['mean_overlap_label_terms']:.2f}")
    add("Fig. 2 / Table 3: ordered logit preserved, DPMPM slightly better", "yes",
        "; ".join(cells), [], "not judged (no SE computed)")
    # Table 4
    for case in ("case i", "case ii"):
        cells, fs = [], {}
        for k, lab in names.items():
            t, sd = results[k]["risk"][case]["table"], results[k]["risk"][case].get("sd", {})
            a, b = t["DPMPM"]["exp_risk"], t["DP-areal"]["exp_risk"]
            f = (fac(a, sd["DPMPM"]["exp_risk"], m, b, sd["DP-areal"]["exp_risk"], m)
                 if sd else float("nan"))
            fs[lab] = [f]
            cells.append(f"{lab}: {a:.2f} vs {b:.2f} (factor {f:+.1f})")
        p = PAPER_T4[case]["exp_risk"]
        add(f"Table 4, {case}: DPMPM's expected risk above DP-areal's", f"{p[0]} vs {p[1]}",
            "; ".join(cells), fs)
    for syn_name, paper_dir, pd_, text in (
            ("DPMPM", +1, (2.497, 10.474), "rises with knowledge (case i -> ii)"),
            ("DP-areal", -1, (0.952, 0.851), "slightly falls with knowledge (case i -> ii)")):
        cells, fs = [], {}
        for k, lab in names.items():
            r = results[k]["risk"]
            a, b = r["case ii"]["table"][syn_name]["exp_risk"], r["case i"]["table"][syn_name][
                "exp_risk"]
            sd2, sd1 = r["case ii"].get("sd", {}), r["case i"].get("sd", {})
            f = (paper_dir * fac(a, sd2[syn_name]["exp_risk"], m, b, sd1[syn_name]["exp_risk"], m)
                 if sd1 else float("nan"))
            fs[lab] = [f]
            cells.append(f"{lab}: {b:.2f} -> {a:.2f}")
        add(f"Table 4: {syn_name}'s expected risk {text}", f"{pd_[0]} -> {pd_[1]}",
            "; ".join(cells), fs)
    for bound, col, paper_txt in (("Min", "Min", "0 (text)"), ("Min (all labels)",
                                  "Min (all labels)", "0 (text)")):
        cells, fs = [], {}
        for k, lab in names.items():
            fl = []
            for case in ("case i", "case ii"):
                t, sd = results[k]["risk"][case]["table"], results[k]["risk"][case].get("sd", {})
                for syn_name in ("DPMPM", "DP-areal"):
                    f = (fac(t[syn_name]["exp_risk"], sd[syn_name]["exp_risk"], m,
                             t[col]["exp_risk"], sd[col]["exp_risk"], S) if sd else float("nan"))
                    fl.append(f)
            fs[lab] = fl
            cells.append(f"{lab}: above in {sum(f > 0 for f in fl)} of 4 cells, factors "
                         + ", ".join(f"{f:+.1f}" for f in fl))
        add(f"Table 4 text: expected risk bounded below by Min ({bound})", paper_txt,
            "; ".join(cells), fs)
    cells, fs = [], {}
    for k, lab in names.items():
        fl = []
        for case in ("case i", "case ii"):
            t, sd = results[k]["risk"][case]["table"], results[k]["risk"][case].get("sd", {})
            for syn_name in ("DPMPM", "DP-areal"):
                fl.append(fac(t["Max"]["exp_risk"], sd["Max"]["exp_risk"], S,
                              t[syn_name]["exp_risk"], sd[syn_name]["exp_risk"], m)
                          if sd else float("nan"))
        fs[lab] = fl
        cells.append(f"{lab}: below Max in {sum(f > 0 for f in fl)} of 4, factors "
                     + ", ".join(f"{f:+.1f}" for f in fl))
    add("Table 4 text: expected risk bounded above by Max", "yes", "; ".join(cells), fs)
    cells = []
    for k, lab in names.items():
        t = results[k]["risk"]["case ii"]["table"]
        cells.append(f"{lab}: true <= {max(t[c]['true_rate'] for c in ('DPMPM', 'DP-areal')):.4f},"
                     f" false {min(t[c]['false_rate'] for c in ('DPMPM', 'DP-areal')):.3f}+")
    add("Table 4: true match rates about 0, false about 1", "0.000-0.001; 0.98-1.00",
        "; ".join(cells), [], "reproduced (descriptive)")
    cells, fs = [], {}
    for k, lab in names.items():
        sd = results[k]["risk"]["case ii"].get("sd", {})
        if sd:
            cells.append(f"{lab}: sd over m {sd['DPMPM']['exp_risk']:.2f} vs "
                         f"{sd['DP-areal']['exp_risk']:.2f}")
    add("Fig. 4a: DP-areal's expected risk varies less over the m datasets than DPMPM's",
        "yes", "; ".join(cells), [], "descriptive (one sd each)")
    # Table 5
    for hi, lo, paper_v in (("Max", "DPMPM", (175.33, 115.25)), ("DPMPM", "DP-areal",
                                                               (115.25, 88.15)),
                            ("DP-areal", "Min", (88.15, 47.25))):
        cells, fs = [], {}
        for k, lab in names.items():
            r = results[k]["risk"]["case ii"]
            t, sd = r["table"], r.get("sd", {})
            kh = S if hi in ("Max", "Min") else m
            kl = S if lo in ("Max", "Min") else m
            f = (fac(t[hi]["attribute_count"], sd[hi]["attribute_count"], kh,
                     t[lo]["attribute_count"], sd[lo]["attribute_count"], kl)
                 if sd else float("nan"))
            fs[lab] = [f]
            cells.append(f"{lab}: {t[hi]['attribute_count']:.1f} vs "
                         f"{t[lo]['attribute_count']:.1f}")
        add(f"Table 5 / Fig. 4b: attribute count {hi} > {lo}", f"{paper_v[0]} vs {paper_v[1]}",
            "; ".join(cells), fs)
    out = ["| # | finding (paper) | paper | ours (A: CE sample; B: simulated) | factor (A; B) "
           "| verdict |", "|---|---|---|---|---|---|"]
    for i, (name, paper, cells, factors, v) in enumerate(rows, 1):
        if isinstance(factors, dict):
            ftxt = "; ".join(f"{k} " + ", ".join(f"{f:+.1f}" for f in fl)
                             for k, fl in factors.items() if fl)
        else:
            ftxt = ", ".join(f"{f:+.1f}" for f in factors)
        out.append(f"| {i} | {name} | {paper} | {cells} | {ftxt or '-'} | {v} |")
    return "\n".join(out)
