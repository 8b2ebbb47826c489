"""Data for the categorical-label examples: the public CE sample and a simulated CE-county-like
file.

* :func:`ce_label_data` -- the public CE sample with a many-level label (Educ x Tenure) and
  kept Urban, Marital and banded Age, plus the income quartile for the ordered logit.
* :func:`simulate_label_data` -- 40 patterns (gender 2 x income quartile 4 x age band 5)
  with the paper's pattern sizes (supplement Table 1, n = 6,208) and a 130-level label whose
  distribution differs between patterns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._schema import require_columns

__all__ = ["AGE_BREAKS", "PAPER_PATTERN_SIZES", "ce_label_data", "simulate_label_data"]

#: Supplement Table 1: observations in patterns 1..40 (sum 6,208).
PAPER_PATTERN_SIZES = (27, 170, 168, 194, 48, 3, 193, 183, 242, 61, 3, 291, 275, 199, 19, 4,
                       239, 454, 169, 4, 33, 229, 222, 333, 128, 9, 250, 254, 308, 53, 8, 244,
                       312, 184, 18, 3, 198, 344, 122, 10)

#: The paper's age bands (<20, 20-40, 40-60, 60-80, >80) as right-closed intervals.
AGE_BREAKS = (-np.inf, 20, 40, 60, 80, np.inf)
AGE_LABELS = ("<20", "20-40", "40-60", "60-80", ">80")


def ce_label_data(ce: pd.DataFrame) -> pd.DataFrame:
    """The CE sample prepared for label synthesis.

    Columns: ``Urban``, ``Marital``, ``AgeBand`` (kept; 2 x 5 x 5 patterns), ``Label``
    (``"<Educ>/<Tenure>"``, the synthesized many-level label) and ``IncomeQ`` (income
    quartile 1-4, ordered; the ordered-logit outcome). All are categories.

    Examples
    --------
    >>> from idrisk.datasets import load_demo
    >>> d = ce_label_data(load_demo(n=500))
    >>> list(d.columns)
    ['Urban', 'Marital', 'AgeBand', 'Label', 'IncomeQ']
    """
    need = ["Urban", "Marital", "Age", "Educ", "Tenure", "Income"]
    require_columns(ce, need, "ce", "the CE data")
    age = pd.cut(ce["Age"], AGE_BREAKS, labels=list(AGE_LABELS), right=False)
    label = ce["Educ"].astype(int).astype(str) + "/" + ce["Tenure"].astype(int).astype(str)
    q = pd.qcut(ce["Income"].rank(method="first"), 4, labels=[1, 2, 3, 4])
    return pd.DataFrame({
        "Urban": ce["Urban"].astype(int).astype(str).astype("category"),
        "Marital": ce["Marital"].astype(int).astype(str).astype("category"),
        "AgeBand": pd.Categorical(age.astype(str), categories=[a for a in AGE_LABELS
                                                                if (age == a).any()]),
        "Label": label.astype("category"),
        "IncomeQ": pd.Categorical(q.astype(int), categories=[1, 2, 3, 4], ordered=True),
    }, index=ce.index)


def simulate_label_data(n_labels: int = 130, seed: int = 2022,
                        sizes: tuple[int, ...] = PAPER_PATTERN_SIZES,
                        concentration: float = 0.5) -> pd.DataFrame:
    """A simulated file shaped like the paper's CE county data.

    Patterns are the 40 combinations of Gender (2) x Income (4) x Age (5) in that nesting
    order, with ``sizes`` records each. Within pattern b the label follows a Dirichlet
    draw around a common, skewed label popularity (a few large "counties", many small ones):
    ``p_b ~ Dirichlet(concentration * n_labels * base)``, ``base ∝ 1 / rank^0.9``.

    Examples
    --------
    >>> d = simulate_label_data(seed=1)
    >>> len(d), d.groupby(["Gender", "Income", "Age"], observed=True).ngroups
    (6208, 40)
    """
    if len(sizes) != 40:
        raise ValueError(f"sizes must have 40 entries (one per pattern), got {len(sizes)}")
    rng = np.random.default_rng(seed)
    base = 1.0 / np.arange(1, n_labels + 1) ** 0.9
    base /= base.sum()
    rows = []
    for b, nb in enumerate(sizes):
        g, inc, age = b // 20, (b // 5) % 4, b % 5
        p = rng.dirichlet(concentration * n_labels * base)
        lab = rng.choice(n_labels, size=nb, p=p)
        rows.append(pd.DataFrame({"Gender": g + 1, "Income": inc + 1, "Age": age + 1,
                                  "County": lab + 1}))
    d = pd.concat(rows, ignore_index=True)
    for c in ("Gender", "Income", "Age"):
        d[c] = pd.Categorical(d[c])
    d["County"] = pd.Categorical(d["County"], categories=sorted(d["County"].unique()))
    return d
