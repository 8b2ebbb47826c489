"""Private survey tables: the simulation of Hu, Savitsky & Williams (§4), reproduced.

Population N = 100,000 (:func:`idrisk.survey.simulate_population`, inputs in
``SDR_LIKE_CELLS``), repeated stratified PPS samples of n = 1000, FBS and FBP tuned to
Delta_alpha = 1.8 and released at m = 1, 3, 5 (epsilon = 3.6, 10.8, 18), the Laplace
mechanism at epsilon = 10.8, and the confidential sample's design-based estimator.
Per cell: RMSE ratio (method / confidential sample) for 27 counts and 27 means, 95%
coverage and CV for the 24 cells (16 field x gender, 8 fields).

Usage::

    python vignettes/survey_tables.py --reps 20            # the vignette's run
    python vignettes/survey_tables.py --reps 1 --ci        # the CI-sized run

Writes ``vignettes/figures/survey_results.csv`` (every estimate), ``survey_summary.csv``
and the figures ``survey_rmse_ratios.png``, ``survey_coverage_cv.png``.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from idrisk.survey import (
    FBP,
    FBS,
    design_table,
    laplace_table,
    population_truth,
    pps_sample,
    simulate_population,
)

HERE = Path(__file__).resolve().parent
BY = ["field", "gender"]
TARGET_DELTA = 1.8
M_VALUES = (1, 3, 5)
EPSILON = 2 * TARGET_DELTA * 3  # 10.8, the Laplace budget


def _rows(tab, method: str, m: int, rep: int) -> pd.DataFrame:
    t = tab.to_frame()
    out = pd.DataFrame({
        "rep": rep, "method": method, "m": m,
        "field": t["field"].astype(str), "gender": t["gender"].astype(str),
    })
    for s in ("count", "mean"):
        out[s] = t[s].to_numpy()
        out[f"{s}_se"] = t[f"{s}_se"].to_numpy()
        low, high = f"{s}_low", f"{s}_high"
        if low in t:
            out[low], out[high] = t[low].to_numpy(), t[high].to_numpy()
        else:  # normal interval for single-table methods
            out[low] = t[s].to_numpy() - 1.959963984540054 * t[f"{s}_se"].to_numpy()
            out[high] = t[s].to_numpy() + 1.959963984540054 * t[f"{s}_se"].to_numpy()
    return out


def run_simulation(
    reps: int = 20, *, seed: int = 2021, N: int = 100_000, n: int = 1000,
    chains: int = 2, warmup: int = 300, draws: int = 300, refits: int = 2,
    m_values=M_VALUES, progress: bool = True, out: Path | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Run the simulation; returns (estimates, fit log, population truth)."""
    pop = simulate_population(N, seed=seed)
    truth = population_truth(pop, "salary", BY)
    results, fits = [], []
    rng = np.random.SeedSequence(seed)
    rep_seeds = rng.spawn(reps)
    try:
        from tqdm import tqdm
        loop = tqdm(range(reps), desc="samples", disable=not progress)
    except ImportError:  # pragma: no cover
        loop = range(reps)
    for r in loop:
        s_seed = int(rep_seeds[r].generate_state(1)[0] % (2**31 - 1))
        sample = pps_sample(pop, n, seed=s_seed)
        results.append(_rows(design_table(sample, "salary", "w", "field", BY), "sample", 0, r))
        results.append(_rows(
            laplace_table(sample, "salary", "w", "field", BY, epsilon=EPSILON, seed=s_seed),
            "laplace", 3, r))
        for cls in (FBS, FBP):
            t0 = time.time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                syn = cls(syn="salary", weight="w", known=BY, target_delta=TARGET_DELTA,
                          seed=s_seed % 100000 + 1, chains=chains, warmup=warmup,
                          draws=draws, refits=refits, backend="auto")
                syn.fit(sample)
            fits.append({
                "rep": r, "method": cls.__name__.lower(), "delta_max": float(syn.delta_.max()),
                "delta_alpha": syn.delta_alpha_, "alpha_mean": float(syn.alpha_.mean()),
                "c": syn.c_used_, "fits": 1 + len(syn.history_), "seconds": time.time() - t0,
                "max_rhat": float(syn.fit_weighted_.diagnostics["rhat"].max()),
                "divergent": syn.fit_weighted_.n_divergent,
            })
            for m in m_values:
                res = syn.synthesize(m, seed=s_seed + m)
                results.append(_rows(res.tables(BY), res.method, m, r))
        if out is not None:
            pd.concat(results).to_csv(out / "survey_results.csv", index=False)
            pd.DataFrame(fits).to_csv(out / "survey_fits.csv", index=False)
    return pd.concat(results, ignore_index=True), pd.DataFrame(fits), truth


def summarize(results: pd.DataFrame, truth: pd.DataFrame) -> pd.DataFrame:
    """Per method, m, cell and statistic: RMSE ratio, coverage, mean CV, CI length ratio."""
    tr = truth.rename(columns={"count": "count_true", "mean": "mean_true"})
    d = results.merge(tr, on=BY, how="left")
    rows = []
    for s in ("count", "mean"):
        d[f"{s}_sq"] = (d[s] - d[f"{s}_true"]) ** 2
        d[f"{s}_cov"] = (d[f"{s}_low"] <= d[f"{s}_true"]) & (d[f"{s}_true"] <= d[f"{s}_high"])
        d[f"{s}_cv"] = d[f"{s}_se"] / d[s].abs()
        d[f"{s}_len"] = d[f"{s}_high"] - d[f"{s}_low"]
        g = d.groupby(["method", "m", *BY], observed=True).agg(
            rmse=(f"{s}_sq", lambda v: float(np.sqrt(v.mean()))),
            coverage=(f"{s}_cov", "mean"), cv=(f"{s}_cv", "mean"), length=(f"{s}_len", "mean"),
            reps=(f"{s}_sq", "size"),
        ).reset_index()
        base = g.loc[g.method == "sample", [*BY, "rmse", "length"]].rename(
            columns={"rmse": "rmse_sample", "length": "length_sample"})
        g = g.merge(base, on=BY)
        g["rmse_ratio"] = g["rmse"] / g["rmse_sample"]
        g["stat"] = s
        rows.append(g)
    out = pd.concat(rows, ignore_index=True)
    out["cell24"] = out["field"] != "All"  # 16 field x gender cells and 8 field margins
    return out


def findings(summary: pd.DataFrame) -> pd.DataFrame:
    """Median RMSE ratio (27 cells), coverage and CV (24 cells) per method and m."""
    rows = []
    for (method, m, stat), g in summary.groupby(["method", "m", "stat"]):
        if method == "sample":
            continue
        c24 = g[g.cell24]
        rows.append({"method": method, "m": m, "stat": stat,
                     "median_rmse_ratio": g["rmse_ratio"].median(),
                     "max_rmse_ratio": g["rmse_ratio"].max(),
                     "mean_coverage_24": c24["coverage"].mean(),
                     "mean_cv_24": c24["cv"].mean()})
    return pd.DataFrame(rows)


NOISE_RULE = (
    "An effect (a difference between two methods, two values of m, or from the paper's "
    "value) counts when it exceeds 2 Monte Carlo standard errors; the standard error is the "
    "sd of the same difference over 200 bootstrap resamples of the samples (paired: both "
    "sides of a difference use the same resampled samples). RMSE ratios and interval "
    "lengths are compared on the log scale, coverages on their own scale. factor = "
    "difference / standard error, signed so that > 0 is the paper's direction.")


def quantities(summary: pd.DataFrame) -> dict:
    """Every number the findings compare, by name (from one summary)."""
    f = findings(summary)
    q = {}
    for _, r in f.iterrows():
        key = f"{r['method']}|{r['m']}|{r['stat']}"
        q[f"med|{key}"] = float(r["median_rmse_ratio"])
        q[f"cov|{key}"] = float(r["mean_coverage_24"])
        q[f"cv|{key}"] = float(r["mean_cv_24"])
    for m in sorted(set(summary.m) - {0}):
        for stat in ("count", "mean"):
            s = summary[(summary.stat == stat) & (summary.m == m) & summary.cell24]
            a = s[s.method == "fbp"].set_index(BY)["length"]
            b = s[s.method == "fbs"].set_index(BY)["length"]
            if len(a) and len(b):
                q[f"lenratio|{m}|{stat}"] = float((a / b).mean())
    for method in ("fbs", "fbp"):
        v = summary[(summary.method == method) & (summary.m == 3) & (summary.stat == "count")
                    & (summary.gender != "All")]
        q[f"med18|{method}"] = float(v["rmse_ratio"].median())
        v = summary[(summary.method == method) & (summary.m == 5) & (summary.stat == "mean")
                    & summary.cell24]
        q[f"undercov5|{method}"] = float((v["coverage"] < 0.8).sum())
    return q


# (finding, paper, this-run text, difference whose sign > 0 is the paper's direction or
#  None for a descriptive row).  L = log; q = quantities.
def _finding_rows(q: dict, fits: pd.DataFrame) -> list:
    L = np.log

    def g(key):
        return q.get(key, float("nan"))
    dmax = fits.groupby("method")["delta_max"]
    dal = fits.groupby("method")["delta_alpha"]
    eps_hi = 2 * fits["delta_alpha"].max() * 3
    eps_lo = 2 * fits["delta_alpha"].min() * 3
    alpha = fits.groupby("method")["alpha_mean"].mean()
    rows = [
        ("Fig. 3: unweighted max Lipschitz bound, FBS", "8.89 (one sample)",
         f"{dmax.mean()['fbs']:.2f} (mean; sd {dmax.std()['fbs']:.2f} over samples)",
         ("sd", (dmax.mean()["fbs"] - 8.89) / dmax.std()["fbs"])),
        ("Fig. 3: unweighted max Lipschitz bound, FBP", "9.92 (one sample)",
         f"{dmax.mean()['fbp']:.2f} (mean; sd {dmax.std()['fbp']:.2f} over samples)",
         ("sd", (dmax.mean()["fbp"] - 9.92) / dmax.std()["fbp"])),
        ("Delta_alpha of the weighted fits; epsilon at m = 3", "1.8; 10.8",
         f"FBS {dal.min()['fbs']:.2f}-{dal.max()['fbs']:.2f}, FBP {dal.min()['fbp']:.2f}-"
         f"{dal.max()['fbp']:.2f}; epsilon {eps_lo:.1f}-{eps_hi:.1f}", None),
        ("Fig. 5/9: counts, FBS beats Laplace (median RMSE ratio, m = 3)", "yes",
         f"FBS {g('med|fbs|3|count'):.2f}, Laplace {g('med|laplace|3|count'):.2f}",
         L(g("med|laplace|3|count")) - L(g("med|fbs|3|count"))),
        ("Fig. 5/9: counts, FBP beats Laplace", "yes",
         f"FBP {g('med|fbp|3|count'):.2f}, Laplace {g('med|laplace|3|count'):.2f}",
         L(g("med|laplace|3|count")) - L(g("med|fbp|3|count"))),
        ("Fig. 5/9: means, FBS beats Laplace dramatically", "yes",
         f"FBS {g('med|fbs|3|mean'):.2f}, Laplace {g('med|laplace|3|mean'):.2f}",
         L(g("med|laplace|3|mean")) - L(g("med|fbs|3|mean"))),
        ("Fig. 5/9: means, FBP beats Laplace dramatically", "yes",
         f"FBP {g('med|fbp|3|mean'):.2f}, Laplace {g('med|laplace|3|mean'):.2f}",
         L(g("med|laplace|3|mean")) - L(g("med|fbp|3|mean"))),
        ("Fig. 5: FBS has the smaller count RMSE ratios (27 cells, m = 3)", "yes",
         f"FBS {g('med|fbs|3|count'):.2f} vs FBP {g('med|fbp|3|count'):.2f}",
         L(g("med|fbp|3|count")) - L(g("med|fbs|3|count"))),
        ("same on the 16 cells + 2 gender margins (FBP's field margins are exact)", "yes",
         f"FBS {g('med18|fbs'):.2f} vs FBP {g('med18|fbp'):.2f}",
         L(g("med18|fbp")) - L(g("med18|fbs"))),
        ("Fig. 5: FBP has the smaller mean RMSE ratios", "yes",
         f"FBP {g('med|fbp|3|mean'):.2f} vs FBS {g('med|fbs|3|mean'):.2f}",
         L(g("med|fbs|3|mean")) - L(g("med|fbp|3|mean"))),
        ("Fig. 10 / Table 4: FBP over-covers counts (24 cells, m = 3)", "above 0.95",
         f"{g('cov|fbp|3|count'):.3f}", g("cov|fbp|3|count") - 0.95),
        ("Table 4: FBP's count intervals longer than FBS's (m = 3)", "yes",
         f"FBP/FBS length {g('lenratio|3|count'):.2f}", L(g("lenratio|3|count"))),
        ("Fig. 10: FBS slightly under-covers counts (m = 3)", "slightly below 0.95",
         f"{g('cov|fbs|3|count'):.3f}", 0.95 - g("cov|fbs|3|count")),
        ("Fig. 10: means, FBS covers slightly better than FBP (m = 3)", "yes",
         f"FBS {g('cov|fbs|3|mean'):.3f} vs FBP {g('cov|fbp|3|mean'):.3f}",
         g("cov|fbs|3|mean") - g("cov|fbp|3|mean")),
        ("Table 5: means, FBP/FBS interval length 0.95 (difference from 0.95)", "0.95",
         f"{g('lenratio|3|mean'):.2f}", ("null", L(g("lenratio|3|mean")) - L(0.95))),
        ("Fig. 11: m = 1 under-covers, FBS counts (m = 1 vs 3)", "yes",
         f"{g('cov|fbs|1|count'):.3f} vs {g('cov|fbs|3|count'):.3f}",
         g("cov|fbs|3|count") - g("cov|fbs|1|count")),
        ("Fig. 11: m = 1 under-covers, FBS means", "yes",
         f"{g('cov|fbs|1|mean'):.3f} vs {g('cov|fbs|3|mean'):.3f}",
         g("cov|fbs|3|mean") - g("cov|fbs|1|mean")),
        ("Fig. 11: m = 1 under-covers, FBP counts", "yes",
         f"{g('cov|fbp|1|count'):.3f} vs {g('cov|fbp|3|count'):.3f}",
         g("cov|fbp|3|count") - g("cov|fbp|1|count")),
        ("Fig. 11: m = 1 under-covers, FBP means", "yes",
         f"{g('cov|fbp|1|mean'):.3f} vs {g('cov|fbp|3|mean'):.3f}",
         g("cov|fbp|3|mean") - g("cov|fbp|1|mean")),
        ("Fig. 6: m 1 -> 5, FBS count RMSE ratios slightly smaller", "yes",
         f"{g('med|fbs|1|count'):.2f} / {g('med|fbs|3|count'):.2f} / "
         f"{g('med|fbs|5|count'):.2f}", L(g("med|fbs|1|count")) - L(g("med|fbs|5|count"))),
        ("Fig. 6: m 1 -> 5, FBP count RMSE ratios slightly smaller", "yes",
         f"{g('med|fbp|1|count'):.2f} / {g('med|fbp|3|count'):.2f} / "
         f"{g('med|fbp|5|count'):.2f}", L(g("med|fbp|1|count")) - L(g("med|fbp|5|count"))),
        ("Fig. 6: m 1 -> 5, FBP mean RMSE ratios smaller", "yes",
         f"{g('med|fbp|1|mean'):.2f} / {g('med|fbp|3|mean'):.2f} / "
         f"{g('med|fbp|5|mean'):.2f}", L(g("med|fbp|1|mean")) - L(g("med|fbp|5|mean"))),
        ("Fig. 6: m has little impact on FBS mean RMSE ratios (change 1 -> 5)", "little",
         f"{g('med|fbs|1|mean'):.2f} / {g('med|fbs|3|mean'):.2f} / "
         f"{g('med|fbs|5|mean'):.2f}", ("null", L(g("med|fbs|1|mean")) - L(g("med|fbs|5|mean")))),
        ("Fig. 6: m 3 -> 5 improves utility only a little (FBS counts)", "small",
         f"{g('med|fbs|3|count'):.2f} -> {g('med|fbs|5|count'):.2f}",
         ("null", L(g("med|fbs|3|count")) - L(g("med|fbs|5|count")))),
        ("Fig. 10: means, FBS and FBP equally efficient (mean CV, 24 cells, m = 3)", "equal",
         f"FBS {g('cv|fbs|3|mean'):.4f} vs FBP {g('cv|fbp|3|mean'):.4f}",
         ("null", L(g("cv|fbs|3|mean")) - L(g("cv|fbp|3|mean")))),
        ("Sec. 4: FBS downweights less than FBP (mean alpha of the weighted fits)", "yes",
         f"FBS {alpha['fbs']:.3f} vs FBP {alpha['fbp']:.3f}", alpha["fbs"] - alpha["fbp"]),
        ("Fig. 5: FBP mean RMSE ratios below 1 in many cells (median, m = 3)", "below 1",
         f"{g('med|fbp|3|mean'):.2f}", -L(g("med|fbp|3|mean"))),
        ("Fig. 12: FBP means at m = 5, cells with serious under-coverage (< 0.8)",
         "2 (Field 7)", f"{g('undercov5|fbp'):.0f} of 24", None),
    ]
    return rows


def paper_comparison(summary: pd.DataFrame, fits: pd.DataFrame,
                     results: pd.DataFrame | None = None, truth: pd.DataFrame | None = None,
                     B: int = 200, seed: int = 7) -> pd.DataFrame:
    """Each published finding (paper section 4 and its supplement) beside this run's numbers,
    with the bootstrap standard error of the compared difference and the verdict under
    ``NOISE_RULE`` (needs ``results`` and ``truth``; without them, no standard errors)."""
    q = quantities(summary)
    rows = _finding_rows(q, fits)
    se = {}
    if results is not None and truth is not None and results["rep"].nunique() > 1:
        reps = np.sort(results["rep"].unique())
        rng = np.random.default_rng(seed)
        by_rep = {r: g for r, g in results.groupby("rep")}
        fits_rep = {r: g for r, g in fits.groupby("rep")}
        boot = []
        for _ in range(B):
            pick = rng.choice(reps, size=len(reps), replace=True)
            res_b = pd.concat([by_rep[r].assign(rep=i) for i, r in enumerate(pick)])
            fit_b = pd.concat([fits_rep[r].assign(rep=i) for i, r in enumerate(pick)])
            rb = _finding_rows(quantities(summarize(res_b, truth)), fit_b)
            boot.append([np.nan if x[3] is None or (isinstance(x[3], tuple) and x[3][0] == "sd")
                         else (x[3][1] if isinstance(x[3], tuple) else x[3]) for x in rb])
        arr = np.asarray(boot, dtype=float)
        se = {i: float(np.nanstd(arr[:, i], ddof=1)) for i in range(arr.shape[1])}
    out = []
    for i, (finding, paper, ours, d) in enumerate(rows):
        if d is None:
            # no factor: a published number makes it "not established", none "descriptive"
            out.append((finding, paper, ours, "", "not established" if paper else "descriptive"))
            continue
        if isinstance(d, tuple) and d[0] == "null":  # the paper claims no (or little) effect
            s = se.get(i, np.nan)
            f = d[1] / s if s and s == s and s > 0 else np.nan
            verdict = ("not established" if f != f else
                       "reproduced" if abs(f) < 2 else "not reproduced")
            out.append((finding, paper, ours, f"{f:+.1f}", verdict))
            continue
        if isinstance(d, tuple):  # one published sample vs our spread over samples
            f = d[1]
            verdict = "reproduced" if abs(f) < 2 else "not reproduced"
            out.append((finding, paper, ours, f"{f:+.1f} sd", verdict))
            continue
        s = se.get(i, np.nan)
        f = d / s if s and s == s and s > 0 else np.nan
        if f != f:
            verdict = "not established"
        elif f >= 2:
            verdict = "reproduced"
        elif f <= -2:
            verdict = "not reproduced"
        else:
            verdict = "not established"
        out.append((finding, paper, ours, f"{f:+.1f}", verdict))
    return pd.DataFrame(out, columns=["finding", "paper", "this run", "factor", "verdict"])


def _md(frame: pd.DataFrame, floatfmt: str = "{:.3g}") -> str:
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    sep = "|" + "---|" * len(frame.columns)
    body = []
    for _, row in frame.iterrows():
        cells = [floatfmt.format(v) if isinstance(v, float) else str(v) for v in row]
        body.append("| " + " | ".join(cells) + " |")
    return "\n".join([head, sep, *body])


def markdown_results(summary: pd.DataFrame, fits: pd.DataFrame, results=None, truth=None,
                     comp: pd.DataFrame | None = None) -> str:
    """The results section of ``survey_tables.md`` as Markdown."""
    comp = paper_comparison(summary, fits, results, truth) if comp is None else comp
    fnd = findings(summary)
    fnd = fnd.rename(columns={"median_rmse_ratio": "median RMSE ratio (27)",
                              "max_rmse_ratio": "max RMSE ratio",
                              "mean_coverage_24": "coverage (24)", "mean_cv_24": "CV (24)"})
    fs = fits.groupby("method").agg(
        samples=("rep", "size"), delta_max=("delta_max", "mean"),
        delta_alpha_min=("delta_alpha", "min"), delta_alpha_max=("delta_alpha", "max"),
        alpha_mean=("alpha_mean", "mean"), fits=("fits", "mean"),
        max_rhat=("max_rhat", "max"), divergent=("divergent", "sum"),
        seconds=("seconds", "mean")).reset_index()
    return "\n\n".join([
        "### Published findings beside this run", "Noise rule: " + NOISE_RULE, _md(comp),
        "### Per method and m", _md(fnd),
        "### Fits (means over samples)", _md(fs),
    ])


def figures(summary: pd.DataFrame, outdir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    n_reps = int(summary["reps"].max())
    order = [("fbs", 1), ("fbs", 3), ("fbs", 5), ("fbp", 1), ("fbp", 3), ("fbp", 5),
             ("laplace", 3)]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, stat, label in zip(axes, ("count", "mean"), ("count", "average-salary"),
                               strict=True):
        data, names = [], []
        for method, m in order:
            v = summary[(summary.method == method) & (summary.m == m) & (summary.stat == stat)]
            if len(v):
                data.append(v["rmse_ratio"].to_numpy())
                names.append(f"{method.upper()} m={m}" if method != "laplace"
                             else "Laplace\n(ε = 10.8, as m = 3)")
        ax.boxplot(data, tick_labels=names)
        ax.set_yscale("log")
        ax.axhline(1.0, color="grey", lw=0.8, ls="--",
                   label="ratio 1: as accurate as the confidential sample")
        # what the box plot shows (matplotlib's convention), for the legend
        ax.plot([], [], color="tab:orange", label="median of the 27 cells")
        ax.plot([], [], color="black", marker="s", mfc="none", ls="none",
                label="box: Q1-Q3; whiskers: 1.5 IQR")
        ax.plot([], [], color="black", marker="o", mfc="none", ls="none",
                label="circles: cells beyond the whiskers")
        ax.set_ylabel("RMSE ratio, method / confidential sample (log scale)", fontsize=9)
        ax.set_title(f"RMSE ratios of the 27 {label} cells ({n_reps} samples)")
        ax.tick_params(axis="x", rotation=45)
        ax.legend(loc="upper left", fontsize=7)
    fig.tight_layout()
    p = outdir / "survey_rmse_ratios.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    paths.append(p)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    markers = {1: "o", 3: "s", 5: "^"}
    colors = {"fbs": "tab:blue", "fbp": "tab:orange"}
    for ax, stat, label in zip(axes, ("count", "mean"), ("count", "average-salary"),
                               strict=True):
        for method in ("fbs", "fbp"):
            for m in (1, 3, 5):
                v = summary[(summary.method == method) & (summary.m == m)
                            & (summary.stat == stat) & summary.cell24]
                if len(v):
                    ax.scatter(v["coverage"], v["cv"], marker=markers[m], color=colors[method],
                               alpha=0.7, label=f"{method.upper()} m={m}")
        ax.axvline(0.95, color="grey", ls="--", lw=0.8, label="nominal coverage 0.95")
        ax.set_xlabel("coverage of the nominal 95% interval")
        ax.set_ylabel("CV (standard error / estimate)")
        ax.set_title(f"Coverage vs CV of the 24 {label} cells, {n_reps} samples\n"
                     "(one point per cell; marker: m synthetic datasets)", fontsize=10)
        ax.legend(fontsize=8)
    fig.tight_layout()
    p = outdir / "survey_coverage_cv.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    paths.append(p)
    return paths


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=2021)
    ap.add_argument("--ci", action="store_true", help="small Stan runs, no refits")
    ap.add_argument("--out", default=str(HERE / "figures"))
    ap.add_argument("--from-results", action="store_true",
                    help="summarize the survey_results.csv / survey_fits.csv already in --out")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.from_results:
        results = pd.read_csv(out / "survey_results.csv")
        fits = pd.read_csv(out / "survey_fits.csv")
        results = results[results["rep"].isin(fits.groupby("rep").size().pipe(
            lambda s: s[s == 2].index))]  # complete samples only
        truth = population_truth(simulate_population(100_000, seed=args.seed), "salary", BY)
    else:
        kw = {"chains": 2, "warmup": 150, "draws": 150, "refits": 0} if args.ci else {}
        results, fits, truth = run_simulation(args.reps, seed=args.seed, out=out, **kw)
    summary = summarize(results, truth)
    summary.to_csv(out / "survey_summary.csv", index=False)
    fits.to_csv(out / "survey_fits.csv", index=False)
    fnd = findings(summary)
    fnd.to_csv(out / "survey_findings.csv", index=False)
    figures(summary, out)
    comp = paper_comparison(summary, fits, results, truth)
    comp.to_csv(out / "survey_paper_comparison.csv", index=False)
    # every number the findings compare, by name (keys of vignettes/findings/survey_tables.csv)
    (out / "survey_quantities.json").write_text(
        json.dumps(quantities(summary), indent=1, sort_keys=True) + "\n")
    (out / "survey_results.md").write_text(markdown_results(summary, fits, comp=comp) + "\n")
    with pd.option_context("display.width", 200, "display.max_colwidth", 90):
        print(comp.to_string(index=False))
        print(fits.groupby("method")[["delta_max", "delta_alpha", "alpha_mean", "seconds"]]
              .mean())
        print(fnd.to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
