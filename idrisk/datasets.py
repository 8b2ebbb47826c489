"""Built-in demo data and a reader for CE-style CSV files.

idrisk does not ship the CE sample of IdentificationRiskCalculation. :func:`load_demo`
simulates a deterministic dataset with the same seven columns and similar marginals
(Age, Urban, Tenure, Educ, Expenditure, Marital, Income), which the README demo uses.
"""

from __future__ import annotations

from os import PathLike

import numpy as np
import pandas as pd

from ._schema import require_columns, sorted_levels

__all__ = ["CE_CATEGORICAL", "CE_COLUMNS", "load_demo", "read_ce"]

CE_COLUMNS = ["Age", "Urban", "Tenure", "Educ", "Expenditure", "Marital", "Income"]
CE_CATEGORICAL = ["Urban", "Tenure", "Marital"]
CE_DOUBLE = ["Expenditure", "Income"]  # doubles in R even where every value is a whole number


def _as_factors(df: pd.DataFrame, columns) -> pd.DataFrame:
    out = df.copy()
    for c in columns:
        values = out[c]
        cats = sorted_levels(values)
        out[c] = pd.Categorical(values, categories=cats)
    return out


def read_ce(path: str | PathLike, categorical=CE_CATEGORICAL) -> pd.DataFrame:
    """Read a CE-style CSV with R's column types: ``categorical`` columns become factors
    (pandas category, the article's ``as.factor`` calls on Urban, Marital and Tenure) and
    Expenditure/Income stay doubles, as in R.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "d.csv")
    >>> load_demo(n=1000).to_csv(p, index=False)
    >>> read_ce(p).dtypes["Tenure"]
    CategoricalDtype(categories=[1, 2, 4, 5, 6], ordered=False, categories_dtype=int64)
    """
    df = pd.read_csv(path)
    for column in CE_DOUBLE:
        if column in df.columns:
            df[column] = df[column].astype(np.float64)
    require_columns(df, categorical, "categorical", str(path))
    return _as_factors(df, categorical)


def load_demo(n: int = 5571, seed: int = 20210501) -> pd.DataFrame:
    """A deterministic, simulated CE-like dataset (not real survey data).

    Columns and types follow the CE sample: Age (int, 16-88), Urban (factor 1/2),
    Tenure (factor 1, 2, 4, 5, 6), Educ (int years code 0, 10-16), Expenditure (double,
    quarterly, a few zeros), Marital (factor 1-5), Income (double, about 8% zeros and a few
    negatives). Income and Expenditure are log-normal, correlated with each other and
    with Age, Educ and Tenure, with frequent rounding of Income to hundreds.

    Parameters
    ----------
    n : int
        Number of rows (default 5571, as the CE sample).
    seed : int
        Seed of the numpy generator; the same (n, seed) always gives the same data.

    Examples
    --------
    >>> d = load_demo(n=1000, seed=1)
    >>> list(d.columns)
    ['Age', 'Urban', 'Tenure', 'Educ', 'Expenditure', 'Marital', 'Income']
    >>> load_demo(n=50, seed=1).equals(load_demo(n=50, seed=1))
    True
    """
    if n < 10:
        raise ValueError(f"n must be at least 10, got {n}")
    rng = np.random.default_rng(seed)
    age = np.clip(np.round(rng.gamma(9.0, 5.6, n) + 2), 16, 88).astype(np.int64)
    urban = rng.choice([1, 2], size=n, p=[0.933, 0.067])
    # tenure depends on age: older people own more often
    p_own = 1 / (1 + np.exp(-(age - 40) / 10))
    tenure = np.where(
        rng.random(n) < p_own,
        rng.choice([1, 2], size=n, p=[0.58, 0.42]),
        rng.choice([4, 5, 6], size=n, p=[0.93, 0.05, 0.02]),
    )
    educ = rng.choice(
        [0, 10, 11, 12, 13, 14, 15, 16], size=n,
        p=[0.004, 0.031, 0.067, 0.227, 0.208, 0.095, 0.228, 0.140],
    )
    marital = np.where(
        age < 30,
        rng.choice([1, 2, 3, 4, 5], size=n, p=[0.25, 0.01, 0.05, 0.02, 0.67]),
        rng.choice([1, 2, 3, 4, 5], size=n, p=[0.56, 0.11, 0.17, 0.025, 0.135]),
    )
    z = rng.standard_normal((n, 2)) @ np.linalg.cholesky([[1.0, 0.55], [0.55, 1.0]]).T
    own = np.isin(tenure, [1, 2]).astype(float)
    log_inc = (
        10.4 + 0.09 * (educ - 12) + 0.012 * (age - 50) - 0.00045 * (age - 50) ** 2
        + 0.35 * own + 0.85 * z[:, 0]
    )
    income = np.round(np.exp(log_inc), 0)
    round100 = rng.random(n) < 0.55
    income[round100] = np.round(income[round100], -2)
    zero = rng.random(n) < 0.08 * (1 + (age > 65))
    income[zero] = 0.0
    neg = rng.choice(n, size=max(1, n // 1400), replace=False)
    income[neg] = -np.round(rng.uniform(100, 60000, neg.size), 0)
    log_exp = 8.7 + 0.25 * own + 0.03 * (educ - 12) + 0.55 * z[:, 1]
    expenditure = np.round(np.exp(log_exp) * rng.uniform(0.98, 1.02, n), 4)
    expenditure[rng.choice(n, size=max(1, n // 1100), replace=False)] = 0.0
    df = pd.DataFrame(
        {
            "Age": age,
            "Urban": urban,
            "Tenure": tenure,
            "Educ": educ.astype(np.int64),
            "Expenditure": expenditure,
            "Marital": marital,
            "Income": income,
        }
    )
    return _as_factors(df, CE_CATEGORICAL)
