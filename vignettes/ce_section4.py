"""Reproduce Section 4 of Hornby & Hu (2021) on the CE sample with idrisk.

Run from the repository root::

    python vignettes/ce_section4.py                 # fast-mode synthesis, 50 m-experiment repeats
    python vignettes/ce_section4.py --rng r         # R-identical synthesis (= synthpop, seed 2021)
    python vignettes/ce_section4.py --repeats 10    # quicker m experiment

Needs ``CEdata.csv`` (not shipped with idrisk): ``--data PATH``, or ``$IDRISK_SHARED/data`` or
``../shared/data`` next to the repository. When synthpop's reference risks
(``fixtures/synthpop/risk_by_radius.csv``) are found there too, they are compared.

Writes the figures and the numbers (``ce_section4_results.json``, ``ce_*.csv``) to
``vignettes/figures/``;
``vignettes/ce_section4.md`` discusses them.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from idrisk.analysis import (  # noqa: E402
    Scenario,
    m_experiment,
    maximizing_radius,
    radius_sweep,
    risk_at_radius,
    risk_utility,
)
from idrisk.datasets import read_ce  # noqa: E402
from idrisk.plots import (  # noqa: E402
    plot_2d_boxplot,
    plot_risk_at_max,
    plot_risk_by_radius,
    plot_utility_risk,
)
from idrisk.synthesis import syn  # noqa: E402

HERE = Path(__file__).resolve().parent
KNOWN = ["Age", "Urban", "Marital"]
SCENARIOS = {
    1: ["Income"],
    2: ["Tenure", "Income"],
    3: ["Expenditure", "Income"],
    4: ["Tenure", "Expenditure", "Income"],
}
RADII = [0.01, 0.025, 0.05, 0.1, 0.2, 0.3]


def shared_dir() -> Path:
    return Path(os.environ.get("IDRISK_SHARED", HERE.parent.parent / "shared"))


RISK_LABEL = "risk (expected records identified, of 5,571)"


def _fig(obj):
    """The Figure of a plot function's result (a Figure, an Axes or an array of Axes)."""
    if hasattr(obj, "savefig"):
        return obj
    first = obj.flat[0] if hasattr(obj, "flat") else obj
    return first.figure


def _relabel(fig, ylabel: str | None = None, xlabel: str | None = None) -> None:
    for ax in fig.axes:
        if ylabel and ax.get_ylabel():
            ax.set_ylabel(ylabel)
        if xlabel and ax.get_xlabel():
            ax.set_xlabel(xlabel)


def figures(out: Path) -> None:
    """Figures 6-10 from the CSVs in ``out`` (titles and units on every axis)."""
    sweep = pd.read_csv(out / "ce_risk_by_radius.csv")
    fig = _fig(plot_risk_by_radius(sweep, title="Figure 6: file-level risk of the 20 datasets by "
                              "radius (same r for Age and every synthesised variable)"))
    _relabel(fig, "risk (expected records identified)", "radius r (% of each record's value)")
    fig.savefig(out / "ce_fig6_risk_by_radius.png", dpi=110)
    fig = _fig(plot_risk_at_max(risk_at_radius(sweep), title="Figure 7: file-level risk of the 20 "
                           "datasets at each scenario's maximising radius"))
    _relabel(fig, RISK_LABEL)
    fig.savefig(out / "ce_fig7_risk_at_max.png", dpi=110)
    ru = pd.read_csv(out / "ce_risk_utility.csv")
    for num, sc in ((8, [1, 2, 4]), (9, [1, 3, 4])):
        names = ", ".join(f"({s})" for s in sc)
        fig = _fig(plot_utility_risk(ru, sc, title=f"Figure {num}: utility-risk trade-off, "
                                f"scenarios {names}, 20 datasets each"))
        _relabel(fig, RISK_LABEL, "propensity-score utility U_p (pMSE, unitless; lower is better)")
        fig.savefig(out / f"ce_fig{num}_utility_risk_{''.join(map(str, sc))}.png", dpi=110)
    mexp = pd.read_csv(out / "ce_m_experiment.csv")
    fig = _fig(plot_2d_boxplot(mexp, title="Figure 10: scenario (1), r = 5%, 50 repeats per m"))
    _relabel(fig, "mean record-level risk (IR / n, fraction of records)",
             "mean propensity-score utility U_p (pMSE, unitless)")
    fig.savefig(out / "ce_fig10_2d_boxplot.png", dpi=110)
    plt.close("all")


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=shared_dir() / "data" / "CEdata.csv")
    ap.add_argument("--rng", choices=["numpy", "r"], default="numpy")
    ap.add_argument("--seed", type=int, default=2021)
    ap.add_argument("--m", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--out", type=Path, default=HERE / "figures")
    ap.add_argument("--figures-only", action="store_true",
                    help="redraw the figures from the CSVs already in --out")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.figures_only:
        figures(args.out)
        return {}
    t0 = time.perf_counter()
    timings = {}

    ce = read_ce(args.data)
    scen = {
        k: Scenario(v, syn(ce, m=args.m, syn=v, seed=args.seed, rng=args.rng))
        for k, v in SCENARIOS.items()
    }
    timings["synthesis_s"] = time.perf_counter() - t0

    # 4.1 radius sweep (same percentage radius for Age and every synthesised continuous var)
    sweep = radius_sweep(ce, scen, KNOWN, radii=RADII, progress=True)
    sweep.to_csv(args.out / "ce_risk_by_radius.csv", index=False)
    best = maximizing_radius(sweep)
    timings["sweep_s"] = time.perf_counter() - t0 - timings["synthesis_s"]
    med = sweep.groupby(["r", "scenario"])["exp_risk"].median().unstack()
    results = {
        "settings": {"rng": args.rng, "seed": args.seed, "m": args.m, "repeats": args.repeats,
                     "known": KNOWN, "radii": RADII},
        "median_risk": {str(r): {str(s): float(v) for s, v in row.items()}
                        for r, row in med.iterrows()},
        "maximizing_radius": {str(s): {"r": float(row.r), "risk": row.risk,
                                       "runner_up_r": float(row.runner_up_r),
                                       "runner_up_risk": row.runner_up_risk}
                              for s, row in best.iterrows()},
    }
    ref_path = shared_dir() / "fixtures" / "synthpop" / "risk_by_radius.csv"
    if ref_path.exists():
        ref = pd.read_csv(ref_path)
        ref_med = ref.groupby(["r", "scenario"])["exp_risk"].median().unstack()
        rel = (med / ref_med - 1).round(4)
        results["synthpop_median_risk"] = {str(r): {str(s): float(v) for s, v in row.items()}
                                           for r, row in ref_med.iterrows()}
        results["relative_difference_vs_synthpop"] = {
            str(r): {str(s): float(v) for s, v in row.items()} for r, row in rel.iterrows()
        }
        results["synthpop_maximizing_radius"] = {
            str(s): float(row.r) for s, row in maximizing_radius(ref).iterrows()
        }


    # 4.2 risk and utility at the maximising radius
    ru = risk_utility(ce, scen, KNOWN, best["r"].to_dict(), progress=True)
    ru.to_csv(args.out / "ce_risk_utility.csv", index=False)
    results["risk_utility_median"] = {
        str(s): {"r": float(g.r.iloc[0]), "exp_risk": float(g.exp_risk.median()),
                 "U_p": float(g.U_p.median()),
                 "U_p_iqr": float(g.U_p.quantile(0.75) - g.U_p.quantile(0.25)),
                 "risk_iqr": float(g.exp_risk.quantile(0.75) - g.exp_risk.quantile(0.25))}
        for s, g in ru.groupby("scenario")
    }
    timings["utility_s"] = time.perf_counter() - t0 - sum(timings.values())

    # 4.3 the m experiment, scenario (1), at scenario (1)'s maximising radius
    r1 = float(best.loc[1, "r"])
    mexp = m_experiment(ce, SCENARIOS[1], KNOWN, r1, m_values=(1, 10, 20),
                        n_repeats=args.repeats, seed=args.seed, progress=True)
    mexp.to_csv(args.out / "ce_m_experiment.csv", index=False)
    summ = mexp.groupby("m")[["record_mean_risk", "U_p"]].describe()
    results["m_experiment"] = {
        "r": r1,
        "summary": {f"{col}|{stat}": {str(m): float(v) for m, v in summ[(col, stat)].items()}
                    for col in ("record_mean_risk", "U_p")
                    for stat in ("mean", "50%", "25%", "75%", "min", "max", "std")},
    }
    figures(args.out)
    timings["m_experiment_s"] = time.perf_counter() - t0 - sum(timings.values())
    timings["total_s"] = time.perf_counter() - t0
    results["timings"] = timings
    out_json = args.out / "ce_section4_results.json"
    out_json.write_text(json.dumps(results, indent=2, default=float))
    print(json.dumps(results, indent=2, default=float))
    return results


if __name__ == "__main__":
    main()
