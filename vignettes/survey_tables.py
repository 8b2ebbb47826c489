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
                syn = cls(target_delta=TARGET_DELTA, seed=s_seed % 100000 + 1, chains=chains,
                          warmup=warmup, draws=draws, refits=refits, backend="auto")
                syn.fit(sample, y="salary", weight="w", design=BY)
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


def paper_comparison(summary: pd.DataFrame, fits: pd.DataFrame) -> pd.DataFrame:
    """Each published finding (paper §4 and its supplement) beside this run's numbers."""
    f = findings(summary)

    def get(method, m, stat, col):
        v = f[(f.method == method) & (f.m == m) & (f.stat == stat)][col]
        return float(v.iloc[0]) if len(v) else float("nan")

    def length_ratio(stat, m=3):
        s = summary[(summary.stat == stat) & (summary.m == m) & summary.cell24]
        a = s[s.method == "fbp"].set_index(BY)["length"]
        b = s[s.method == "fbs"].set_index(BY)["length"]
        return float((a / b).mean())

    med = {(mt, st): get(mt, 3, st, "median_rmse_ratio")
           for mt in ("fbs", "fbp", "laplace") for st in ("count", "mean")}
    cov = {(mt, m, st): get(mt, m, st, "mean_coverage_24")
           for mt in ("fbs", "fbp") for m in M_VALUES for st in ("count", "mean")}
    dmax = fits.groupby("method")["delta_max"].mean()
    dal = fits.groupby("method")["delta_alpha"]
    def med18(method):  # cells and gender margins: FBP's field-margin counts are exact
        v = summary[(summary.method == method) & (summary.m == 3) & (summary.stat == "count")
                    & (summary.gender != "All")]
        return float(v["rmse_ratio"].median())

    paper_dmax = {"fbs": 8.89, "fbp": 9.92}
    close = [abs(dmax.get(k, np.nan) / v - 1) < 0.2 for k, v in paper_dmax.items()]
    in_tol = bool((abs(fits["delta_alpha"] / TARGET_DELTA - 1) <= 0.05).all())
    rows = [
        ("unweighted max Lipschitz bound, FBS / FBP", "8.89 / 9.92 (one sample)",
         f"{dmax.get('fbs', np.nan):.2f} / {dmax.get('fbp', np.nan):.2f} (mean over samples)",
         f"FBS {'yes' if close[0] else 'no'}, FBP {'yes' if close[1] else 'no'} (within 20%)"),
        ("Delta_alpha of the weighted fits (target 1.8)", "1.8 / 1.8",
         f"FBS {dal.min()['fbs']:.2f}-{dal.max()['fbs']:.2f}, "
         f"FBP {dal.min()['fbp']:.2f}-{dal.max()['fbp']:.2f}",
         "all within 5%" if in_tol else "not all within 5% (achieved values used for epsilon)"),
        ("counts: both synthesizers beat Laplace by a wide margin (median RMSE ratio, m=3)",
         "yes", f"FBS {med['fbs', 'count']:.2f}, FBP {med['fbp', 'count']:.2f}, "
         f"Laplace {med['laplace', 'count']:.2f}",
         med["laplace", "count"] > 2 * max(med["fbs", "count"], med["fbp", "count"])),
        ("means: both synthesizers beat Laplace dramatically", "yes",
         f"FBS {med['fbs', 'mean']:.2f}, FBP {med['fbp', 'mean']:.2f}, "
         f"Laplace {med['laplace', 'mean']:.2f}",
         med["laplace", "mean"] > 2 * max(med["fbs", "mean"], med["fbp", "mean"])),
        ("FBS has the smaller count RMSE ratios", "yes",
         f"FBS {med['fbs', 'count']:.2f} vs FBP {med['fbp', 'count']:.2f}",
         med["fbs", "count"] < med["fbp", "count"]),
        ("FBS has the smaller count RMSE ratios on the 16 cells + 2 gender margins", "yes",
         f"FBS {med18('fbs'):.2f} vs FBP {med18('fbp'):.2f}", med18("fbs") < med18("fbp")),
        ("FBP has the smaller mean RMSE ratios", "yes",
         f"FBP {med['fbp', 'mean']:.2f} vs FBS {med['fbs', 'mean']:.2f}",
         med["fbp", "mean"] < med["fbs", "mean"]),
        ("FBP over-covers counts (24 cells, m=3)", "over 0.95",
         f"FBP {cov['fbp', 3, 'count']:.2f}, FBS {cov['fbs', 3, 'count']:.2f}",
         cov["fbp", 3, "count"] > 0.95),
        ("FBP's count intervals are longer than FBS's", "yes",
         f"FBP/FBS length {length_ratio('count'):.2f}", length_ratio("count") > 1),
        ("FBS slightly under-covers counts", "slightly below 0.95",
         f"{cov['fbs', 3, 'count']:.2f}", 0.85 <= cov["fbs", 3, "count"] < 0.95),
        ("means: FBP interval length about 0.95 x FBS's", "0.95",
         f"{length_ratio('mean'):.2f}", abs(length_ratio("mean") - 0.95) < 0.1),
        ("m = 1 under-covers (both, counts and means)", "yes",
         f"FBS {cov['fbs', 1, 'count']:.2f}/{cov['fbs', 1, 'mean']:.2f}, "
         f"FBP {cov['fbp', 1, 'count']:.2f}/{cov['fbp', 1, 'mean']:.2f} (count/mean)",
         all(cov[mt, 1, st] < min(0.95, cov[mt, 3, st]) for mt in ("fbs", "fbp")
             for st in ("count", "mean"))),
        ("m 1 -> 3 -> 5: FBS count RMSE ratios slightly smaller", "yes",
         " / ".join(f"FBS {get('fbs', m, 'count', 'median_rmse_ratio'):.2f}"
                    for m in M_VALUES), get("fbs", 1, "count", "median_rmse_ratio")
         > get("fbs", 5, "count", "median_rmse_ratio")),
    ]
    return pd.DataFrame(rows, columns=["finding", "paper", "this run", "reproduced"])


def _md(frame: pd.DataFrame, floatfmt: str = "{:.3g}") -> str:
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    sep = "|" + "---|" * len(frame.columns)
    body = []
    for _, row in frame.iterrows():
        cells = [floatfmt.format(v) if isinstance(v, float) else str(v) for v in row]
        body.append("| " + " | ".join(cells) + " |")
    return "\n".join([head, sep, *body])


def markdown_results(summary: pd.DataFrame, fits: pd.DataFrame) -> str:
    """The results section of ``survey_tables.md`` as Markdown."""
    comp = paper_comparison(summary, fits)
    comp["reproduced"] = comp["reproduced"].map(
        lambda v: "yes" if v is True or v == np.True_ else ("no" if v is False
                                                          or v == np.False_ else v))
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
        "### Published findings beside this run", _md(comp),
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
                names.append(f"{method.upper()} m={m}" if method != "laplace" else "Laplace")
        ax.boxplot(data, tick_labels=names)
        ax.set_yscale("log")
        ax.axhline(1.0, color="grey", lw=0.8, ls="--", label="confidential sample")
        ax.set_ylabel("RMSE ratio (method / confidential sample), log scale")
        ax.set_title(f"RMSE ratios of the 27 {label} cells ({n_reps} samples)")
        ax.tick_params(axis="x", rotation=45)
        ax.legend(loc="upper left")
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
        ax.axvline(0.95, color="grey", ls="--", lw=0.8)
        ax.set_xlabel("coverage of the nominal 95% interval")
        ax.set_ylabel("CV (standard error / estimate)")
        ax.set_title(f"Coverage vs CV of the 24 {label} cells, {n_reps} samples")
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
    comp = paper_comparison(summary, fits)
    comp.to_csv(out / "survey_paper_comparison.csv", index=False)
    (out / "survey_results.md").write_text(markdown_results(summary, fits) + "\n")
    with pd.option_context("display.width", 200, "display.max_colwidth", 90):
        print(comp.to_string(index=False))
        print(fits.groupby("method")[["delta_max", "delta_alpha", "alpha_mean", "seconds"]]
              .mean())
        print(fnd.to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
