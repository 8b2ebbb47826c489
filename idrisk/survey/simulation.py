"""The paper's simulation design (§4): an SDR-like population and stratified PPS samples.

The paper took field and gender shares and field x gender mean log salaries from the 2017
SDR public-use file; those inputs are not in the text, so :data:`SDR_LIKE_CELLS` fixes
plausible values (8 fields of study, shares, share of women, mean log salary of men and of
women of a 40-44 age group of doctorate holders).  They are inputs of this reproduction,
not SDR estimates.

Population (N = 100,000): field and gender drawn with those shares,
``log y ~ N(mean_fg, 0.4^2)``, size ``a = exp(log y + e)`` with ``e ~ N(0, 0.4^2)``.
Sample: stratified by field, ``n_h`` proportional to ``N_h`` (largest remainders), within a
stratum a systematic PPS sample (random order, random start) with inclusion
probabilities ``pi = inclusion_probabilities(a_h, n_h)`` (R's
``sampling::inclusionprobabilities``), weights ``w = 1 / pi``.  The paper sampled with
replacement; without replacement at these sampling fractions (about 1%) is practically
the same and gives exact inclusion probabilities.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._schema import as_names
from .design import ALL, design_table, inclusion_probabilities

__all__ = ["SDR_LIKE_CELLS", "population_truth", "pps_sample", "simulate_population"]

SDR_LIKE_CELLS = pd.DataFrame(
    {
        "field": ["Biological sciences", "Computer sciences", "Mathematics",
                  "Physical sciences", "Psychology", "Social sciences", "Engineering",
                  "Health"],
        "share": [0.26, 0.05, 0.04, 0.15, 0.09, 0.10, 0.22, 0.09],
        "female_share": [0.50, 0.22, 0.28, 0.27, 0.66, 0.45, 0.20, 0.70],
        "log_salary_male": [11.45, 11.90, 11.60, 11.65, 11.35, 11.55, 11.85, 11.55],
        "log_salary_female": [11.33, 11.80, 11.48, 11.52, 11.25, 11.44, 11.75, 11.42],
    }
)


def simulate_population(
    N: int = 100_000, *, sd_y: float = 0.4, sd_noise: float = 0.4, seed: int | None = None,
    cells: pd.DataFrame = SDR_LIKE_CELLS,
) -> pd.DataFrame:
    """The simulated population: ``field``, ``gender``, ``salary`` and the PPS size ``size``.

    Examples
    --------
    >>> pop = simulate_population(1000, seed=1)
    >>> list(pop.columns), len(pop)
    (['field', 'gender', 'salary', 'size'], 1000)
    """
    rng = np.random.default_rng(seed)
    share = cells["share"].to_numpy(float)
    f_idx = rng.choice(len(cells), size=N, p=share / share.sum())
    female = rng.random(N) < cells["female_share"].to_numpy(float)[f_idx]
    mean = np.where(female, cells["log_salary_female"].to_numpy(float)[f_idx],
                    cells["log_salary_male"].to_numpy(float)[f_idx])
    log_y = rng.normal(mean, sd_y)
    size = np.exp(log_y + rng.normal(0.0, sd_noise, size=N))
    fields = pd.Categorical.from_codes(f_idx, categories=list(cells["field"]))
    gender = pd.Categorical(np.where(female, "Female", "Male"), categories=["Female", "Male"])
    return pd.DataFrame({"field": fields, "gender": gender, "salary": np.exp(log_y),
                         "size": size})


def _allocate(counts: np.ndarray, n: int) -> np.ndarray:
    quota = n * counts / counts.sum()
    out = np.floor(quota).astype(int)
    rest = n - out.sum()
    out[np.argsort(-(quota - out), kind="stable")[:rest]] += 1
    return out


def pps_sample(
    pop: pd.DataFrame, n: int = 1000, *, strata: str = "field", size: str = "size",
    seed: int | None = None,
) -> pd.DataFrame:
    """A stratified systematic PPS sample with weights ``w = 1 / pi``.

    Returns the sampled rows (original index kept) with columns ``pi`` and ``w``.

    Examples
    --------
    >>> pop = simulate_population(5000, seed=1)
    >>> s = pps_sample(pop, 200, seed=2)
    >>> len(s), bool(abs(s["w"].sum() / 5000 - 1) < 0.1)
    (200, True)
    """
    rng = np.random.default_rng(seed)
    h = pop[strata]
    levels = list(h.cat.categories) if isinstance(h.dtype, pd.CategoricalDtype) else sorted(
        h.unique())
    counts = np.array([(h == lev).sum() for lev in levels], dtype=float)
    alloc = _allocate(counts, n)
    picked, pis = [], []
    for lev, nh in zip(levels, alloc, strict=True):
        idx = np.flatnonzero((h == lev).to_numpy())
        if nh == 0:
            continue
        pik = inclusion_probabilities(pop[size].to_numpy(float)[idx], int(nh))
        order = rng.permutation(idx.size)
        cum = np.concatenate([[0.0], np.cumsum(pik[order])])
        u = rng.random()
        # unit k is selected when an integer + u falls in (cum[k], cum[k+1]]
        hits = np.floor(cum[1:] - u) - np.floor(cum[:-1] - u)
        sel = order[hits > 0]
        picked.append(idx[sel])
        pis.append(pik[sel])
    rows = np.concatenate(picked)
    out = pop.iloc[rows].copy()
    out["pi"] = np.concatenate(pis)
    out["w"] = 1.0 / out["pi"]
    return out


def population_truth(pop: pd.DataFrame, y: str, by: Sequence[str] | str) -> pd.DataFrame:
    """Population counts and mean outcomes of every cell, margin and total (weights 1).

    For the simulated population of :func:`simulate_population`: ``y="salary"``,
    ``by=["field", "gender"]``.
    """
    by = as_names(by, "by")
    tab = design_table(pop.assign(_one=1.0), y, "_one", None, by)
    out = tab.table[[*by, "count", "mean"]].copy()
    for b in by:
        out[b] = out[b].astype(str)
    assert (out[list(by)] == ALL).all(axis=1).sum() == 1
    return out
