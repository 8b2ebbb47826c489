"""Negative-binomial simulation of the published risk-weighting paper (section 2.4).

n = 1000 counts from 0.7 NB(mu=100, phi=20) + 0.3 NB(mu=100, phi=5); a single NB
synthesizer, unweighted, marginally and pairwise risk-weighted, for r in
{30, 25, 20, 15}% with L = 20 synthetic datasets (each from its own posterior draw, the
draws spread evenly over all chains); then the risk, the whack-a-mole check, ECDF utility
(Table 5) and CIs of the mean and median against L (Table 6, r = 20%, every L in
{30, 20, 10, 5, 1} drawn afresh with its own spread-out draws, not the first L of 30).

Noise baseline: the unweighted synthesizer is fitted three times (seeds s, s+1, s+2) and
every effect is printed beside the spread of those three runs.

Run:  python vignettes/nb_simulation.py [--quick]
Writes vignettes/figures/rw_nb_*.png, rw_nb_results.json and rw_nb_tables.md.
Full run: 4 chains x 500 + 500 iterations per fit. ``--quick``: 2 chains x 250 + 250
iterations, r in {30%, 15%} (all else as the full run).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from idrisk.weighted.diagnostics import bootstrap_ci, ecdf_table, risk_summary, whack_a_mole
from idrisk.weighted.synthesizer import RiskWeightedSynthesizer
from idrisk.weighted.weights import confidential_marginal_risk, synthetic_marginal_risk

FIG = Path(__file__).resolve().parent / "figures"

# Published values (Hu, Savitsky & Williams, published version, Tables 5 and 6).
PUBLISHED_T5 = {  # U_m, U_a
    "Synthesizer": (0.0451, 0.0006),
    "Marginal r=30%": (0.1061, 0.0040),
    "Marginal r=25%": (0.1124, 0.0045),
    "Marginal r=20%": (0.1152, 0.0048),
    "Marginal r=15%": (0.1088, 0.0043),
}
PUBLISHED_T6 = {  # mean: estimate, low, high, length; median: estimate, low, high, length
    "D": ((100.70, 98.68, 102.58, 3.90), (97.93, 95.49, 101.00, 5.51)),
    "S (L=30)": ((100.46, 96.63, 104.34, 7.71), (97.09, 93.00, 101.00, 8.00)),
    "S (L=20)": ((100.99, 97.28, 104.69, 7.41), (97.60, 93.00, 101.50, 8.50)),
    "S (L=10)": ((100.95, 97.07, 104.97, 7.90), (97.36, 93.00, 102.00, 9.00)),
    "S (L=5)": ((99.76, 96.71, 103.33, 6.62), (96.59, 93.00, 101.00, 8.00)),
    "S (L=1)": ((102.05, 99.97, 104.04, 4.07), (99.82, 97.00, 102.00, 5.00)),
    "M (L=30)": ((102.37, 99.49, 104.87, 5.38), (101.05, 98.00, 103.50, 5.50)),
    "M (L=20)": ((102.60, 100.13, 105.02, 4.89), (101.37, 98.00, 105.00, 7.00)),
    "M (L=10)": ((102.93, 99.92, 105.34, 5.42), (101.63, 98.00, 105.00, 7.00)),
    "M (L=5)": ((102.26, 99.69, 104.64, 4.95), (101.00, 98.00, 104.00, 6.00)),
    "M (L=1)": ((103.78, 102.34, 105.12, 2.78), (103.15, 101.00, 105.00, 4.00)),
}
L_TABLE6 = (30, 20, 10, 5, 1)


def simulate(n: int = 1000, seed: int = 2021) -> pd.DataFrame:
    """0.7 NB(100, 20) + 0.3 NB(100, 5) counts (NB2: variance mu + mu^2/phi)."""
    rng = np.random.default_rng(seed)
    first = rng.random(n) < 0.7
    phi = np.where(first, 20.0, 5.0)
    mu = 100.0
    y = rng.negative_binomial(phi, phi / (phi + mu))
    return pd.DataFrame({"y": y.astype(np.int64)})


def _fit_summary(s: RiskWeightedSynthesizer) -> dict:
    d = s.fit_.diagnostics
    return {"divergent": s.fit_.n_divergent, "max_rhat": round(float(d["rhat"].max()), 4),
            "min_ess_bulk": round(float(d["ess_bulk"].min()), 0)}


def _spread(values) -> float:
    values = [float(v) for v in values]
    return max(values) - min(values)


def run(
    quick: bool = False, seed: int = 2021, progress: bool = True, write: bool = True
) -> dict:
    radii = [0.30, 0.15] if quick else [0.30, 0.25, 0.20, 0.15]
    L = 20
    mcmc = dict(chains=2, warmup=250, draws=250) if quick else dict(
        chains=4, warmup=500, draws=500)
    df = simulate(seed=seed)
    y = df["y"]
    pattern = np.zeros(len(df))  # no known variables: one pattern, as in the paper
    t0 = time.time()
    fits: dict = {}

    def fit(weighting: str, r: float, s_seed: int, label: str) -> RiskWeightedSynthesizer:
        s = RiskWeightedSynthesizer(syn="y", model="negbin", weighting=weighting, r=r,
                                    seed=s_seed, progress=progress, **mcmc)
        s.fit(df)
        fits[label] = _fit_summary(s)
        return s

    def draws(s: RiskWeightedSynthesizer, L_: int) -> list[np.ndarray]:
        return [d["y"].to_numpy() for d in s.synthesize(L_, seed=s.seed_ + 1)]

    unw_seeds = (seed, seed + 1, seed + 2)
    unw = {sd: fit("none", 0.2, sd, f"Synthesizer seed {sd}") for sd in unw_seeds}
    unw_sets = {sd: draws(s, L) for sd, s in unw.items()}
    res: dict = {"n": len(df), "L": L, "radii": radii, "quick": quick, "mcmc": mcmc,
                 "unweighted_seeds": list(unw_seeds), "by_r": {}}
    risks_all, alphas, marg = {}, {}, {}
    ecdf_sets = {f"Synthesizer seed {sd}": v for sd, v in unw_sets.items()}
    for r in radii:
        tag = f"r={int(round(r * 100))}%"
        risk = {"Data": confidential_marginal_risk(y, pattern, r).rename("Data")}
        for sd in unw_seeds:
            risk[f"Synthesizer seed {sd}"] = synthetic_marginal_risk(
                y, pattern, unw_sets[sd], r).record_risk
        for weighting, label in (("marginal", "Marginal"), ("pairwise", "Pairwise")):
            s = fit(weighting, r, seed, f"{label} {tag}")
            sets = draws(s, L)
            risk[label] = synthetic_marginal_risk(y, pattern, sets, r).record_risk
            alphas[(label, r)] = s.alpha_
            ecdf_sets[f"{label} {tag}"] = sets
            if label == "Marginal":
                marg[r] = s
        risks_all[r] = risk
        s0 = risk[f"Synthesizer seed {seed}"]
        unw_means = [risk[f"Synthesizer seed {sd}"].mean() for sd in unw_seeds]
        unw_medians = [risk[f"Synthesizer seed {sd}"].median() for sd in unw_seeds]
        rr = {
            "risk_summary": risk_summary(
                {k: v for k, v in risk.items()
                 if k in ("Data", f"Synthesizer seed {seed}", "Marginal", "Pairwise")}
            ).round(4).to_dict(orient="index"),
            "unweighted_means": [round(float(v), 4) for v in unw_means],
            "baseline_mean_spread": round(_spread(unw_means), 4),
            "baseline_median_spread": round(_spread(unw_medians), 4),
            "marginal_mean_shift": round(float(risk["Marginal"].mean() - s0.mean()), 4),
            "pairwise_mean_shift": round(float(risk["Pairwise"].mean() - s0.mean()), 4),
            "marginal_median_shift": round(float(risk["Marginal"].median() - s0.median()), 4),
            "whack_a_mole": {k: whack_a_mole(s0, risk[k]).count for k in ("Marginal", "Pairwise")},
            "whack_a_mole_baseline": [
                whack_a_mole(s0, risk[f"Synthesizer seed {sd}"]).count for sd in unw_seeds[1:]
            ],
        }
        res["by_r"][tag] = rr
    # Table 5: ECDF utility
    ecdf = ecdf_table(y, ecdf_sets)
    res["table5"] = ecdf.round(4).to_dict(orient="index")
    # Table 6 (r = 20%; in quick mode the smallest radius run): every L drawn afresh
    r6 = 0.20 if 0.20 in marg else min(marg)
    res["table6_r"] = r6
    t6: dict = {}
    for stat in ("mean", "median"):
        t6[("D", stat)] = bootstrap_ci(y.to_numpy(dtype=float), stat, B=1000, seed=seed)
        for L_ in L_TABLE6:
            t6[(f"S (L={L_})", stat)] = bootstrap_ci(draws(unw[seed], L_), stat, B=1000,
                                                     seed=seed)
            t6[(f"M (L={L_})", stat)] = bootstrap_ci(draws(marg[r6], L_), stat, B=1000,
                                                     seed=seed)
        for sd in unw_seeds[1:]:
            t6[(f"S seed {sd} (L=20)", stat)] = bootstrap_ci(unw_sets[sd], stat, B=1000,
                                                             seed=seed)
    res["table6"] = {f"{a} | {b}": v.round(3).to_dict() for (a, b), v in t6.items()}
    # the Marginal's mean CI at each r (published Figure 7a: utility improves as r declines)
    res["marginal_mean_by_r"] = {
        f"r={int(round(r * 100))}%": bootstrap_ci(draws(s, L), "mean", B=1000, seed=seed)
        .round(3).to_dict() for r, s in marg.items()
    }
    res["fits"] = fits
    res["seconds"] = round(time.time() - t0, 1)
    if write:
        _figures(df, risks_all, alphas, radii, quick, seed)
        FIG.mkdir(parents=True, exist_ok=True)
        sfx = "_quick" if quick else ""
        (FIG / f"rw_nb_results{sfx}.json").write_text(json.dumps(res, indent=2, default=float))
        (FIG / f"rw_nb_tables{sfx}.md").write_text(tables_markdown(res))
    return res


def tables_markdown(res: dict) -> str:
    """Markdown tables of a run's results beside the published values."""
    seed = res["unweighted_seeds"][0]
    out = ["## Risk (mean record-level IR; noise = spread of the three unweighted fits)\n",
           "| r | Data IR^c | Synthesizer (3 seeds) | noise | Marginal | shift | shift / noise "
           "| Pairwise | shift | whack-a-mole M / PW | whack-a-mole between unweighted |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for tag, rr in res["by_r"].items():
        rs = rr["risk_summary"]
        noise = rr["baseline_mean_spread"]
        ratio = abs(rr["marginal_mean_shift"]) / noise if noise else float("inf")
        out.append(
            f"| {tag[2:]} | {rs['Data']['mean']:.3f} | "
            f"{', '.join(f'{v:.4f}' for v in rr['unweighted_means'])} | {noise:.4f} | "
            f"{rs['Marginal']['mean']:.4f} | {rr['marginal_mean_shift']:+.4f} | {ratio:.1f} | "
            f"{rs['Pairwise']['mean']:.4f} | {rr['pairwise_mean_shift']:+.4f} | "
            f"{rr['whack_a_mole']['Marginal']} / {rr['whack_a_mole']['Pairwise']} | "
            f"{', '.join(str(v) for v in rr['whack_a_mole_baseline'])} |")
    out += ["", "## Table 5: ECDF utility (mean over the L = 20 datasets)\n",
            "| | U_m | published | diff | U_a | published | diff |",
            "|---|---|---|---|---|---|---|"]
    t5 = res["table5"]
    for name, row in t5.items():
        key = "Synthesizer" if name == f"Synthesizer seed {seed}" else name
        pub = PUBLISHED_T5.get(key)
        if pub:
            out.append(f"| {name} | {row['U_m']:.4f} | {pub[0]:.4f} | {row['U_m'] - pub[0]:+.4f} "
                       f"| {row['U_a']:.4f} | {pub[1]:.4f} | {row['U_a'] - pub[1]:+.4f} |")
        else:
            out.append(f"| {name} | {row['U_m']:.4f} | – | – | {row['U_a']:.4f} | – | – |")
    out += ["", f"## Table 6: 95% CIs, r = {int(round(res['table6_r'] * 100))}% "
            "(pooled bootstrap over the L datasets)\n",
            "| | stat | estimate | published | diff | CI | published CI | length | published "
            "| diff |", "|---|---|---|---|---|---|---|---|---|---|"]
    for key, v in res["table6"].items():
        row, stat = key.split(" | ")
        pub = PUBLISHED_T6.get(row)
        p = pub[0 if stat == "mean" else 1] if pub else None
        ci = f"[{v['ci_low']:.2f}, {v['ci_high']:.2f}]"
        if p:
            out.append(f"| {row} | {stat} | {v['estimate']:.2f} | {p[0]:.2f} | "
                       f"{v['estimate'] - p[0]:+.2f} | {ci} | [{p[1]:.2f}, {p[2]:.2f}] | "
                       f"{v['length']:.2f} | {p[3]:.2f} | {v['length'] - p[3]:+.2f} |")
        else:
            out.append(f"| {row} | {stat} | {v['estimate']:.2f} | – | – | {ci} | – | "
                       f"{v['length']:.2f} | – | – |")
    out += ["", "## The Marginal's mean (L = 20) at each r\n",
            "| r | estimate | CI | length |", "|---|---|---|---|"]
    for tag, v in res["marginal_mean_by_r"].items():
        out.append(f"| {tag[2:]} | {v['estimate']:.2f} | [{v['ci_low']:.2f}, "
                   f"{v['ci_high']:.2f}] | {v['length']:.2f} |")
    out += ["", "## Convergence of every fit\n", "| fit | divergent | max R-hat | min bulk ESS |",
            "|---|---|---|---|"]
    for name, f in res["fits"].items():
        out.append(f"| {name} | {f['divergent']} | {f['max_rhat']:.3f} | "
                   f"{f['min_ess_bulk']:.0f} |")
    return "\n".join(out) + "\n"


def _figures(df, risks_all, alphas, radii, quick, seed):
    import matplotlib.pyplot as plt

    from idrisk.weighted.plots import plot_risk_violins, plot_weights_vs_value, plot_whack_a_mole

    suffix = "_quick" if quick else ""
    FIG.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, len(radii), figsize=(4.2 * len(radii), 3.6), sharey=True)
    s0 = f"Synthesizer seed {seed}"
    for ax, r in zip(np.atleast_1d(axes), radii, strict=True):
        risk = risks_all[r]
        plot_risk_violins({"Data": risk["Data"], "Synthesizer": risk[s0],
                      "Marginal": risk["Marginal"], "Pairwise": risk["Pairwise"]},
                     ax=ax, title=f"r = {int(round(r * 100))}%")
        ax.tick_params(axis="x", labelsize=7)
    ax.plot([], [], color="C0", lw=1.5, label="middle bar: mean")
    ax.plot([], [], color="C0", lw=0.8, label="end bars: min and max")
    ax.legend(fontsize=7, loc="upper right")
    fig.suptitle("NB simulation: record-level identification risk (L = 20)")
    fig.tight_layout()
    fig.savefig(FIG / f"rw_nb_violins{suffix}.png", dpi=110)
    plt.close(fig)
    r = min(radii)
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.6), sharey=True)
    for ax, label in zip(axes, ("Marginal", "Pairwise", f"Synthesizer seed {seed + 1}"),
                         strict=True):
        plot_whack_a_mole(df["y"], risks_all[r][s0], risks_all[r][label], ax=ax,
                             label=label, xlabel="y (count)")
        ax.set_title(f"{label} vs Synthesizer seed {seed}, r = {int(round(r * 100))}%",
                     fontsize=9)
    fig.tight_layout()
    fig.savefig(FIG / f"rw_nb_whackamole{suffix}.png", dpi=110)
    plt.close(fig)
    ax = plot_weights_vs_value(df["y"], {f"{k[0]} r={int(round(k[1] * 100))}%": v
                                    for k, v in alphas.items() if k[1] == r},
                          xlabel="y (count)")
    ax.set_title("Risk weights against the count")
    ax.figure.savefig(FIG / f"rw_nb_weights{suffix}.png", dpi=110)
    plt.close(ax.figure)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seed", type=int, default=2021)
    args = ap.parse_args()
    out = run(quick=args.quick, seed=args.seed)
    print(tables_markdown(out))
    print(f"{out['seconds']} s")
