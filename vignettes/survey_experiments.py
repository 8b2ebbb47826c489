"""The two survey experiments the main run leaves out: Delta_alpha = 3.4 and m = 10.

Paper 001 refits one sample at Delta_alpha = 3.4 (its Fig. 7: FBS means improve notably, FBP
does not) and releases m = 10 (epsilon = 36; Figs. 12-13: utility similar to m = 5). This
script repeats both on the first ``--reps`` samples of ``survey_tables.py``'s run (same
population, same sample seeds): for each sample it fits FBS and FBP at Delta_alpha = 1.8
(released at m = 3, 5 and 10) and at Delta_alpha = 3.4 (m = 3), so every comparison is
paired within a sample. Noise: the Monte Carlo SE of the vignette's rule (sd of the same
difference over 200 paired bootstrap resamples of the samples; RMSE ratios on the log
scale).

Usage (outside CI; about 4 minutes of CPU per sample on an idle core)::

    nice python vignettes/survey_experiments.py --reps 3

Writes ``figures/survey_experiments.csv`` (every estimate) and
``figures/survey_experiments.json`` (median RMSE ratios, coverages, differences and SEs).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from survey_tables import BY, _rows, findings, summarize

from idrisk.survey import FBP, FBS, design_table, population_truth, pps_sample, simulate_population

HERE = Path(__file__).resolve().parent
DELTAS = {"": 1.8, "34": 3.4}


def run(reps: int, seed: int = 2021, backend: str = "pystan") -> tuple[pd.DataFrame, list]:
    pop = simulate_population(100_000, seed=seed)
    rep_seeds = np.random.SeedSequence(seed).spawn(reps)
    results, fits = [], []
    for r in range(reps):
        s_seed = int(rep_seeds[r].generate_state(1)[0] % (2**31 - 1))
        sample = pps_sample(pop, 1000, seed=s_seed)
        results.append(_rows(design_table(sample, "salary", "w", "field", BY), "sample", 0, r))
        for cls in (FBS, FBP):
            for suffix, target in DELTAS.items():
                t0 = time.time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    syn = cls(target_delta=target, seed=s_seed % 100000 + 1, chains=2,
                              warmup=300, draws=300, refits=2, backend=backend)
                    syn.fit(sample, y="salary", weight="w", design=BY)
                name = cls.__name__.lower() + suffix
                fits.append({"rep": r, "method": name, "target": target,
                             "delta_alpha": syn.delta_alpha_, "seconds": time.time() - t0})
                print(fits[-1], flush=True)
                for m in ((3, 5, 10) if not suffix else (3,)):
                    res = syn.synthesize(m, seed=s_seed + m)
                    results.append(_rows(res.tables(BY), name, m, r))
        pd.concat(results).to_csv(HERE / "figures" / "survey_experiments.csv", index=False)
    return pd.concat(results, ignore_index=True), fits


def _medians(results: pd.DataFrame, truth: pd.DataFrame) -> dict:
    f = findings(summarize(results, truth))
    return {f"{r.method}|{r.m}|{r.stat}": (float(r.median_rmse_ratio), float(r.mean_coverage_24))
            for r in f.itertuples()}


def compare(results: pd.DataFrame, truth: pd.DataFrame, n_boot: int = 200,
            seed: int = 2021) -> dict:
    """Median RMSE ratios and the paired bootstrap SE of the log differences."""
    pairs = {  # name: (ours, against)
        "fbs_delta34_vs_18_mean": ("fbs34|3|mean", "fbs|3|mean"),
        "fbp_delta34_vs_18_mean": ("fbp34|3|mean", "fbp|3|mean"),
        "fbs_delta34_vs_18_count": ("fbs34|3|count", "fbs|3|count"),
        "fbp_delta34_vs_18_count": ("fbp34|3|count", "fbp|3|count"),
        "fbs_m10_vs_5_mean": ("fbs|10|mean", "fbs|5|mean"),
        "fbp_m10_vs_5_mean": ("fbp|10|mean", "fbp|5|mean"),
        "fbs_m10_vs_5_count": ("fbs|10|count", "fbs|5|count"),
        "fbp_m10_vs_5_count": ("fbp|10|count", "fbp|5|count"),
    }
    point = _medians(results, truth)
    reps = sorted(results["rep"].unique())
    rng = np.random.default_rng(seed)
    boot = {k: [] for k in pairs}
    by_rep = {r: g for r, g in results.groupby("rep")}
    for _ in range(n_boot):
        pick = rng.choice(reps, len(reps))
        res = pd.concat([by_rep[r].assign(rep=i) for i, r in enumerate(pick)])
        med = _medians(res, truth)
        for k, (a, b) in pairs.items():
            boot[k].append(np.log(med[a][0]) - np.log(med[b][0]))
    out = {"median_rmse_ratio": {k: v[0] for k, v in point.items()},
           "mean_coverage_24": {k: v[1] for k, v in point.items()}, "log_difference": {},
           "se": {}}
    for k, (a, b) in pairs.items():
        out["log_difference"][k] = float(np.log(point[a][0]) - np.log(point[b][0]))
        out["se"][k] = float(np.std(boot[k], ddof=1))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=2021)
    ap.add_argument("--from-results", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.time()
    out = HERE / "figures"
    truth = population_truth(simulate_population(100_000, seed=args.seed), "salary", BY)
    if args.from_results:
        results = pd.read_csv(out / "survey_experiments.csv")
        prev = json.loads((out / "survey_experiments.json").read_text())
        fits, seconds = prev["fits"], prev["seconds"]
    else:
        results, fits = run(args.reps, args.seed)
        seconds = time.time() - t0
    summary = compare(results, truth)
    summary.update(reps=int(results["rep"].nunique()), fits=fits, seconds=seconds)
    (out / "survey_experiments.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps({k: summary[k] for k in ("log_difference", "se")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
