"""Negative-binomial simulation of the published risk-weighting paper (section 2.4).

n = 1000 counts from 0.7 NB(mu=100, phi=20) + 0.3 NB(mu=100, phi=5); a single NB
synthesizer, unweighted, marginally and pairwise risk-weighted, for r in
{30, 25, 20, 15}% with L = 20 synthetic datasets; then risk violins, the whack-a-mole
check at r = 15%, ECDF utility (Table 5) and CI lengths against L (Table 6).

Run:  python vignettes/nb_simulation.py [--quick]
Writes vignettes/figures/rw_nb_*.png and vignettes/figures/rw_nb_results.json.
``--quick`` (used by the CI test) runs fewer draws, L = 5 and only r = 20% and 15%.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from idrisk.weighted.diagnostics import ecdf_table, risk_summary, utility_table, whack_a_mole
from idrisk.weighted.synthesizer import RiskWeightedSynthesizer
from idrisk.weighted.weights import confidential_marginal_risk, synthetic_marginal_risk

FIG = Path(__file__).resolve().parent / "figures"


def simulate(n: int = 1000, seed: int = 2021) -> pd.DataFrame:
    """0.7 NB(100, 20) + 0.3 NB(100, 5) counts (NB2: variance mu + mu^2/phi)."""
    rng = np.random.default_rng(seed)
    first = rng.random(n) < 0.7
    phi = np.where(first, 20.0, 5.0)
    mu = 100.0
    y = rng.negative_binomial(phi, phi / (phi + mu))
    return pd.DataFrame({"y": y.astype(np.int64)})


def run(
    quick: bool = False, seed: int = 2021, progress: bool = True, write: bool = True
) -> dict:
    radii = [0.20, 0.15] if quick else [0.30, 0.25, 0.20, 0.15]
    L = 5 if quick else 20
    L_table6 = [5, 1] if quick else [30, 20, 10, 5, 1]
    mcmc = dict(warmup=300, draws=300) if quick else dict(warmup=1000, draws=1000)
    df = simulate(seed=seed)
    pattern = np.zeros(len(df))  # no known variables: one pattern, as in the paper
    t0 = time.time()

    def synth(weighting: str, r: float, L_: int):
        s = RiskWeightedSynthesizer(
            "negbin", weighting=weighting, r=r, seed=seed, progress=progress, **mcmc
        )
        s.fit(df, target="y")
        return s, [d["y"].to_numpy() for d in s.synthesize(L_, seed=seed + 1)]

    unw, unw_sets = synth("none", 0.2, max(L, max(L_table6)))
    results: dict = {"n": len(df), "L": L, "radii": radii, "quick": quick, "by_r": {}}
    risks_all, alphas, sets_all = {}, {}, {"Synthesizer": unw_sets[:L]}
    marg_sets_table6 = None
    for r in radii:
        rr: dict = {}
        data_risk = confidential_marginal_risk(df["y"], pattern, r).rename("Data")
        unw_risk = synthetic_marginal_risk(df["y"], pattern, unw_sets[:L], r).record_risk
        risk = {"Data": data_risk, "Synthesizer": unw_risk}
        for weighting, label in (("marginal", "Marginal"), ("pairwise", "Pairwise")):
            L_needed = max(L, max(L_table6)) if (weighting == "marginal" and r == 0.20) else L
            s, sets = synth(weighting, r, L_needed)
            if weighting == "marginal" and r == 0.20:
                marg_sets_table6 = sets
            sets = sets[:L]
            risk[label] = synthetic_marginal_risk(df["y"], pattern, sets, r).record_risk
            alphas[(label, r)] = s.alpha_
            sets_all[f"{label} r={int(r * 100)}%"] = sets
            rr[f"{label}_fit"] = repr(s.fit_)
            rr[f"{label}_divergent"] = s.fit_.n_divergent
        risks_all[r] = risk
        summ = risk_summary(risk)
        rr["risk_summary"] = summ.round(4).to_dict(orient="index")
        for label in ("Marginal", "Pairwise"):
            w = whack_a_mole(risk["Synthesizer"], risk[label], 0.25)
            rr[f"whack_a_mole_{label}"] = w.count
        rr["marginal_mean_shift"] = float(risk["Marginal"].mean() - risk["Synthesizer"].mean())
        rr["marginal_median_shift"] = float(
            risk["Marginal"].median() - risk["Synthesizer"].median()
        )
        results["by_r"][f"{int(r * 100)}%"] = rr
    # Table 5: ECDF utility
    try:
        ecdf = ecdf_table(df["y"], sets_all)
        results["ecdf"] = ecdf.round(4).to_dict(orient="index")
    except ImportError as exc:  # idrisk.utility not installed yet
        results["ecdf"] = f"unavailable: {exc}"
    # Table 6: CI of mean and median against L (r = 20%)
    t6 = {}
    for L_ in L_table6:
        t6[f"S (L={L_})"] = unw_sets[:L_]
        t6[f"M (L={L_})"] = marg_sets_table6[:L_]
    ut = utility_table(df["y"].to_numpy(), t6, stats=("mean", "median"), B=1000, seed=seed)
    results["table6"] = {
        f"{a} | {b}": v for (a, b), v in ut.round(3).to_dict(orient="index").items()
    }
    results["seconds"] = round(time.time() - t0, 1)
    if write:
        _figures(df, risks_all, alphas, radii, quick)
        FIG.mkdir(parents=True, exist_ok=True)
        name = "rw_nb_results_quick.json" if quick else "rw_nb_results.json"
        (FIG / name).write_text(json.dumps(results, indent=2, default=float))
    return results


def _figures(df, risks_all, alphas, radii, quick):
    import matplotlib.pyplot as plt

    from idrisk.weighted.plots import risk_violins, weights_vs_value, whack_a_mole_scatter

    suffix = "_quick" if quick else ""
    FIG.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, len(radii), figsize=(4.2 * len(radii), 3.6), sharey=True)
    for ax, r in zip(np.atleast_1d(axes), radii, strict=True):
        risk_violins(risks_all[r], ax=ax, title=f"r = {int(r * 100)}%")
        ax.tick_params(axis="x", labelsize=7)
    fig.tight_layout()
    fig.savefig(FIG / f"rw_nb_violins{suffix}.png", dpi=110)
    plt.close(fig)
    r = min(radii)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for ax, label in zip(axes, ("Marginal", "Pairwise"), strict=True):
        whack_a_mole_scatter(df["y"], risks_all[r]["Synthesizer"], risks_all[r][label], ax=ax,
                             label=label, xlabel="y (count)")
        ax.set_title(f"{label}, r = {int(r * 100)}%")
    fig.tight_layout()
    fig.savefig(FIG / f"rw_nb_whackamole{suffix}.png", dpi=110)
    plt.close(fig)
    ax = weights_vs_value(df["y"], {f"{k[0]} r={int(k[1] * 100)}%": v for k, v in alphas.items()
                                    if k[1] == r}, xlabel="y (count)")
    ax.figure.tight_layout()
    ax.figure.savefig(FIG / f"rw_nb_weights{suffix}.png", dpi=110)
    plt.close(ax.figure)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seed", type=int, default=2021)
    args = ap.parse_args()
    out = run(quick=args.quick, seed=args.seed)
    print(json.dumps(out, indent=2, default=float))
