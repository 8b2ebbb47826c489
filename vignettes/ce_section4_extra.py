"""Two checks added to ``ce_section4.py`` (same data, seed 2021, fast-mode synthesis, m = 20).

* ``--age-fixed``: the radius sweep with Age's radius held at 10%, as the article's sample
  code does (``r_age <- 0.1``), and only the synthesised continuous variables swept. Is the
  common-radius sweep (Age swept too) the cause of the peak-radius mismatch?
* ``--m-scenarios 2 3 4``: the m experiment (m in {1, 10, 20}) on the other scenarios, each
  at its maximising radius of ``ce_section4_results.json``.

Run:  python vignettes/ce_section4_extra.py --age-fixed --m-scenarios 2 3 4 --repeats 30
Writes vignettes/figures/ce_section4_extra.json (merged with an earlier run's) and
ce_m_experiment_s{k}.csv.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ce_section4 import KNOWN, RADII, SCENARIOS, shared_dir  # noqa: E402

from idrisk.analysis import Scenario, m_experiment, maximizing_radius, radius_sweep  # noqa: E402
from idrisk.datasets import read_ce  # noqa: E402
from idrisk.synthesis import syn  # noqa: E402


def m_figures(out: Path) -> None:
    """2D boxplots (the article's Figure 10) for every scenario whose m experiment is stored."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from idrisk.plots import plot_2d_boxplot

    res = json.loads((out / "ce_section4_extra.json").read_text())
    for k in (2, 3, 4):
        path = out / f"ce_m_experiment_s{k}.csv"
        if not path.exists() or f"m_experiment_s{k}" not in res:
            continue
        info = res[f"m_experiment_s{k}"]
        out_ = plot_2d_boxplot(pd.read_csv(path), title=(
            f"Figure 10 for scenario ({k}): r = {info['r']:.0%}, {info['repeats']} repeats per m"))
        fig = out_ if hasattr(out_, "savefig") else out_.figure
        for ax in fig.axes:
            ax.set_ylabel("mean record-level risk (IR / n, fraction of records)")
            ax.set_xlabel("mean propensity-score utility U_p (pMSE, unitless)")
            # at most five x ticks, slanted: the U_p ticks of scenario (4) ran together
            ax.xaxis.set_major_locator(MaxNLocator(5))
            ax.tick_params(axis="x", labelrotation=20)
        fig.savefig(out / f"ce_fig10_2d_boxplot_s{k}.png", dpi=110, bbox_inches="tight")
        plt.close(fig)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=shared_dir() / "data" / "CEdata.csv")
    ap.add_argument("--seed", type=int, default=2021)
    ap.add_argument("--age-fixed", action="store_true")
    ap.add_argument("--m-scenarios", type=int, nargs="*", default=[])
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--m-values", type=int, nargs="+", default=[1, 10, 20])
    ap.add_argument("--out", type=Path, default=HERE / "figures")
    args = ap.parse_args(argv)
    out_json = args.out / "ce_section4_extra.json"
    res = json.loads(out_json.read_text()) if out_json.exists() else {}
    ce = read_ce(args.data)
    main_res = json.loads((args.out / "ce_section4_results.json").read_text())

    if args.age_fixed:
        t0 = time.perf_counter()
        scen = {k: Scenario(v, syn(ce, m=20, syn=v, seed=args.seed, rng="numpy"))
                for k, v in SCENARIOS.items()}
        radii = [{"Age": 0.1, "Income": r, "Expenditure": r} for r in RADII]
        parts = []
        for k, sc in scen.items():
            rk = [{c: v for c, v in d.items() if c == "Age" or c in sc.syn} for d in radii]
            sw = radius_sweep(ce, {k: sc}, KNOWN, radii=rk, progress=False)
            sw["r"] = [RADII[i // 20] for i in range(len(sw))]  # the swept radius
            parts.append(sw)
        sweep = pd.concat(parts, ignore_index=True)
        sweep.to_csv(args.out / "ce_risk_by_radius_age_fixed.csv", index=False)
        med = sweep.groupby(["r", "scenario"])["exp_risk"].median().unstack()
        best = maximizing_radius(sweep)
        res["age_fixed"] = {
            "median_risk": {str(r): {str(s): float(v) for s, v in row.items()}
                            for r, row in med.iterrows()},
            "maximizing_radius": {str(s): {"r": float(row.r), "risk": float(row.risk),
                                           "runner_up_r": float(row.runner_up_r),
                                           "runner_up_risk": float(row.runner_up_risk)}
                                  for s, row in best.iterrows()},
            "seconds": time.perf_counter() - t0,
        }
        out_json.write_text(json.dumps(res, indent=2))
        print(json.dumps(res["age_fixed"], indent=2), flush=True)

    for k in args.m_scenarios:
        t0 = time.perf_counter()
        r = float(main_res["maximizing_radius"][str(k)]["r"])
        mexp = m_experiment(ce, SCENARIOS[k], KNOWN, r, m_values=tuple(args.m_values),
                            n_repeats=args.repeats, seed=args.seed, progress=False)
        mexp.to_csv(args.out / f"ce_m_experiment_s{k}.csv", index=False)
        summ = mexp.groupby("m")[["record_mean_risk", "U_p"]].describe()
        res[f"m_experiment_s{k}"] = {
            "r": r, "repeats": args.repeats, "m_values": list(args.m_values),
            "seconds": time.perf_counter() - t0,
            "summary": {f"{col}|{stat}": {str(m): float(v) for m, v in summ[(col, stat)].items()}
                        for col in ("record_mean_risk", "U_p")
                        for stat in ("mean", "50%", "25%", "75%", "min", "max", "std")},
        }
        out_json.write_text(json.dumps(res, indent=2))
        print(k, json.dumps(res[f"m_experiment_s{k}"], indent=1), flush=True)
    if args.m_scenarios:
        m_figures(args.out)
    return res


if __name__ == "__main__":
    main()
