"""Shared pieces of the DPMPM-versus-NPBayesImputeCat comparisons."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from idrisk.categorical import DPMPM

DATA_DIR = Path(__file__).resolve().parent / "data"
DATA = DATA_DIR / "dpmpm_data.csv"
SCRIPT = DATA_DIR / "npbayes_dpmpm.R"
STORED = DATA_DIR / "npbayes_dpmpm_reference.csv"
# the settings of the stored run (see the header of npbayes_dpmpm.R)
NRUN, BURN, THIN, K, M = 3000, 1000, 20, 20, 10
STORED_SEEDS = list(range(1, 11))


def load_data() -> pd.DataFrame:
    return pd.read_csv(DATA, dtype=str).astype("category")


def python_stats(seed: int, z: str = "gibbs",
                 data: pd.DataFrame | None = None) -> pd.DataFrame:
    """The R script's statistics for one idrisk run (same long format)."""
    X = load_data() if data is None else data
    fit = DPMPM(syn="L", K=K, a_alpha=0.25, b_alpha=0.25, n_iter=NRUN, burn=BURN, keep=M,
                z=z, seed=seed, progress=False).fit(X)
    out = fit.synthesize(M, seed=seed)
    post = fit.trace_.iloc[BURN:]
    rows = [("kstar_median", "", post["kstar"].median()),
            ("kstar_lo", "", post["kstar"].quantile(0.025)),
            ("kstar_hi", "", post["kstar"].quantile(0.975)),
            ("alpha_mean", "", post["alpha"].mean())]
    levels = X["L"].cat.categories
    one = sum(d["L"].value_counts().reindex(levels, fill_value=0) for d in out) / M
    rows += [("one", lv, v) for lv, v in one.items()]
    for v in ("A", "B"):
        two = sum(pd.crosstab(d[v], d["L"]).reindex(index=X[v].cat.categories, columns=levels,
                                                    fill_value=0)
                  for d in out) / M
        rows += [(f"two_{v}", f"{a}|{lv}", two.loc[a, lv]) for a in two.index
                 for lv in two.columns]
    df = pd.DataFrame(rows, columns=["stat", "key", "value"])
    df.insert(0, "seed", seed)
    return df


def compare(ref: pd.DataFrame, ours: pd.DataFrame) -> pd.DataFrame:
    """Per statistic and key: both means over seeds and the two-sample z statistic.

    The Monte-Carlo error of each side is its between-seed standard deviation / sqrt(S);
    integer-valued k* summaries get an extra half unit of granularity.
    """
    ref = ref.assign(key=ref["key"].fillna("").astype(str))
    ours = ours.assign(key=ours["key"].fillna("").astype(str))
    g_r = ref.groupby(["stat", "key"])["value"].agg(["mean", "var", "count"])
    g_p = ours.groupby(["stat", "key"])["value"].agg(["mean", "var", "count"])
    t = g_r.join(g_p, lsuffix="_r", rsuffix="_py", how="outer")
    if t.isna()[["mean_r", "mean_py"]].any().any():
        raise AssertionError(f"statistics differ between R and idrisk:\n{t}")
    se = np.sqrt(t["var_r"] / t["count_r"] + t["var_py"] / t["count_py"])
    grain = np.where(t.index.get_level_values("stat").str.startswith("kstar"), 0.5, 0.0)
    t["z"] = (t["mean_py"] - t["mean_r"]) / (se + grain + 1e-12)
    return t
