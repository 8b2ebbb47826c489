"""Risk-weighted synthesis of CE family income (finite normal mixture on log income).

Known pattern variables (intruder's external file): Urban, Marital and banded Age
(<35, 35-49, 50-64, 65+) -- 40 patterns at most. Predictors of log Income: log
Expenditure, Age, Urban, Tenure, Educ, Marital (continuous predictors and log income are
standardised inside the synthesizer). Records with Income <= 0 (449 of 5571) are left out
because the synthesizer models log income; positive incomes below $1,000 (67 of the 5,122
positive incomes, nine of them $1) are bottom-coded to $1,000. Risk radius r = 20% of income.
By default a seeded subsample of 1,500 of the 5,122 positive-income CUs is used (``--n 0``
= all, far slower), with the settings in ``MCMC`` and ``PRIORS``: K = 3 components,
pi ~ Dirichlet(1, 1, 1) (gamma held at K by a tight prior), half-normal(0, 1) prior on the
component sds of standardised log income, 4 chains of 250 + 250 iterations, adapt_delta
0.95. ``--quick`` is a smoke run. About 10 min on 2 shared cores.

Run:  python vignettes/ce_risk_weighted.py [--quick] [--n N]
Writes vignettes/figures/rw_ce_*.png and vignettes/figures/rw_ce_results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from idrisk.weighted.diagnostics import (
    ecdf_table,
    regression_utility,
    risk_summary,
    utility_table,
    whack_a_mole,
)
from idrisk.weighted.synthesizer import RiskWeightedSynthesizer
from idrisk.weighted.weights import confidential_marginal_risk, synthetic_marginal_risk

FIG = Path(__file__).resolve().parent / "figures"
KNOWN = ["Urban", "Marital", "AgeBand"]
PREDICTORS = ["LogExp", "Age", "Urban", "Tenure", "Educ", "Marital"]
# Component sds of standardised log income ~ half-normal(0, 1) (nu_sigma = 0): the total
# sd is 1, so a component sd beyond ~2.5 is implausible; the package default half-t(3)
# lets near-empty components keep sds of 5-10, whose draws explode on the income scale.
# Dirichlet concentration held (almost) fixed at gamma = K, i.e. pi ~ Dirichlet(1, ..., 1):
# gamma ~ Gamma(100 K, 100) has mean K and sd sqrt(K) / 10. With the package default
# gamma ~ Gamma(1, 1) the unweighted chains disagreed on lp__ and gamma (R-hat 1.27 / 1.11
# in the previous run); a free gamma / K well below 1 gives the log-weights of nearly empty
# components long tails, a likely cause.
# K = 3: with K = 4 or 6 the unweighted fit (all weights 1) hit the maximum tree depth and
# its chains stayed in different modes (lp__ R-hat 2.0 / 2.3); K = 3 converges.
K = 3
PRIORS = {"nu_sigma": 0.0, "scale_sigma": 1.0, "scale_beta": 1.0,
          "a_gamma": 100.0 * K, "b_gamma": 100.0}
MCMC = dict(K=K, chains=4, warmup=250, draws=250)
QUICK_MCMC = dict(K=K, chains=2, warmup=100, draws=100)
ADAPT_DELTA = 0.95
N_DEFAULT = 1500  # seeded subsample, to keep the whole run near 10 min on 2 shared cores
# Bottom-coding: positive incomes below this many dollars are set to it before synthesis
# (and the risk and utility are judged on the bottom-coded data). Nine CUs report $1.
BOTTOM_CODE = 1000.0


def load_ce(path: str | os.PathLike, bottom_code: float = BOTTOM_CODE) -> pd.DataFrame:
    """CE records with positive income, incomes below ``bottom_code`` raised to it.

    Column ``BottomCoded`` flags the records changed.
    """
    df = pd.read_csv(path)
    df = df[df["Income"] > 0].reset_index(drop=True)
    df["BottomCoded"] = df["Income"] < bottom_code
    df["Income"] = df["Income"].clip(lower=bottom_code)
    df["AgeBand"] = pd.cut(df["Age"], [0, 34, 49, 64, 200],
                           labels=["<35", "35-49", "50-64", "65+"]).astype(str)
    df["LogExp"] = np.log(df["Expenditure"].clip(lower=1.0))
    for col in ("Urban", "Marital", "Tenure"):
        df[col] = df[col].astype(str)
    return df


def run(path, quick: bool = False, seed: int = 2022, progress: bool = True,
        n: int | None = None) -> dict:
    df = load_ce(path)
    n_bottom_all = int(df["BottomCoded"].sum())
    if n is not None and n < len(df):  # seeded subsample, to bound the MCMC run time
        df = df.sample(n=n, random_state=seed).reset_index(drop=True)
    r, L = 0.20, (5 if quick else 20)
    mcmc = QUICK_MCMC if quick else MCMC
    pattern = df[KNOWN]
    t0 = time.time()
    sets, risks, alphas, fits = {}, {"Data": confidential_marginal_risk(df["Income"], pattern, r)
                                     .rename("Data")}, {}, {}
    for weighting, label in (("none", "Unweighted"), ("marginal", "Marginal"),
                             ("pairwise", "Pairwise")):
        s = RiskWeightedSynthesizer("mixture", weighting=weighting, r=r, known=KNOWN, seed=seed,
                                    progress=progress, adapt_delta=ADAPT_DELTA, priors=PRIORS,
                                    **mcmc)
        t_fit = time.time()
        s.fit(df, "Income", predictors=PREDICTORS)
        data_sets = s.synthesize(L, seed=seed + 1)
        sets[label] = data_sets
        risks[label] = synthetic_marginal_risk(df["Income"], pattern,
                                               [d["Income"] for d in data_sets], r).record_risk
        alphas[label] = s.alpha_
        sampler = s.fit_.sampler
        fits[label] = {"fit": repr(s.fit_), "divergent": s.fit_.n_divergent,
                       "messages": s.fit_.messages, "seconds": round(time.time() - t0, 1),
                       "fit_seconds": round(time.time() - t_fit, 1),
                       "diagnostics": s.fit_.diagnostics.round(3).to_dict(orient="index"),
                       "mean_treedepth": float(np.mean(sampler["treedepth__"]))
                       if "treedepth__" in sampler else None,
                       "sigma_max": float(s.fit_.stacked("sigma").max()),
                       "max_synthetic_income": float(max(d["Income"].max() for d in data_sets)),
                       "mean_synthetic_income": float(np.mean([d["Income"].mean()
                                                               for d in data_sets]))}
        print(f"{label}: {time.time() - t0:.0f}s", flush=True)
    res: dict = {"n": len(df), "L": L, "r": r, "known": KNOWN, "mcmc": mcmc, "priors": PRIORS,
                 "adapt_delta": ADAPT_DELTA, "bottom_code": BOTTOM_CODE,
                 "n_bottom_coded": {"all_positive": n_bottom_all,
                                    "sample": int(df["BottomCoded"].sum())},
                 "data_mean_income": float(df["Income"].mean()), "fits": fits,
                 "n_patterns": int(pattern.drop_duplicates().shape[0])}
    res["risk_summary"] = risk_summary(risks).round(4).to_dict(orient="index")
    res["whack_a_mole"] = {k: whack_a_mole(risks["Unweighted"], risks[k]).count
                           for k in ("Marginal", "Pairwise")}
    res["weights"] = {k: v.describe().round(4).to_dict() for k, v in alphas.items()}
    inc = {k: [d["Income"].to_numpy() for d in v] for k, v in sets.items()}
    ut = utility_table(df["Income"].to_numpy(), inc, B=500, seed=seed)
    res["utility"] = {f"{a} | {b}": v for (a, b), v in ut.round(1).to_dict(orient="index").items()}
    reg_sets = {k: [d.assign(LogInc=np.log(d["Income"])) for d in v] for k, v in sets.items()}
    try:
        reg = regression_utility(df.assign(LogInc=np.log(df["Income"])), reg_sets,
                                 "LogInc ~ LogExp + Age + C(Urban)", "LogExp")
        res["regression_LogExp"] = reg.round(4).to_dict(orient="index")
        ecdf = ecdf_table(np.log(df["Income"]), {k: [np.log(x) for x in v] for k, v in inc.items()})
        res["ecdf_log_income"] = ecdf.round(4).to_dict(orient="index")
    except ImportError as exc:
        res["regression_LogExp"] = res["ecdf_log_income"] = f"unavailable: {exc}"
    res["seconds"] = round(time.time() - t0, 1)
    _figures(df, risks, alphas, quick)
    name = "rw_ce_results_quick.json" if quick else "rw_ce_results.json"
    (FIG / name).write_text(json.dumps(res, indent=2, default=float))
    return res


def _figures(df, risks, alphas, quick):
    import matplotlib.pyplot as plt

    from idrisk.weighted.plots import risk_violins, weights_vs_value, whack_a_mole_scatter

    sfx = "_quick" if quick else ""
    FIG.mkdir(parents=True, exist_ok=True)
    ax = risk_violins(risks, title="CE income, r = 20%")
    ax.figure.tight_layout()
    ax.figure.savefig(FIG / f"rw_ce_violins{sfx}.png", dpi=110)
    plt.close(ax.figure)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for ax, label in zip(axes, ("Marginal", "Pairwise"), strict=True):
        whack_a_mole_scatter(np.log(df["Income"]), risks["Unweighted"], risks[label], ax=ax,
                             label=label, xlabel="log income")
        ax.set_title(label)
    fig.tight_layout()
    fig.savefig(FIG / f"rw_ce_whackamole{sfx}.png", dpi=110)
    plt.close(fig)
    ax = weights_vs_value(np.log(df["Income"]), {k: alphas[k] for k in ("Marginal", "Pairwise")},
                          xlabel="log income")
    ax.figure.tight_layout()
    ax.figure.savefig(FIG / f"rw_ce_weights{sfx}.png", dpi=110)
    plt.close(ax.figure)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"
                                          / "CEdata.csv"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seed", type=int, default=2022)
    ap.add_argument("--n", type=int, default=N_DEFAULT, help="subsample size (0 = all records)")
    args = ap.parse_args()
    out = run(args.data, quick=args.quick, seed=args.seed, n=args.n or None)
    print(json.dumps(out, indent=2, default=float))
