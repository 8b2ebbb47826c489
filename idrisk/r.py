"""R's own signatures, for scripts translated from R.

``IdentificationRisk`` mirrors IdentificationRiskCalculation's function (argument and result
names as in R); ``syn`` mirrors ``synthpop::syn``.

Examples
--------
>>> import pandas as pd
>>> from idrisk.r import IdentificationRisk
>>> orig = pd.DataFrame({"Sex": pd.Categorical(["F", "M"]), "Income": [10.0, 30.0]})
>>> out = IdentificationRisk(orig, [orig], known=["Sex"], syn=["Income"], r=0.1)
>>> sorted(out)[:3]
['F_vector', 'K_vector', 'Risk_vector']
>>> out["exp.risk_vector"].tolist()
[2.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .risk import identification_risk

__all__ = ["IdentificationRisk", "syn"]


def IdentificationRisk(
    origdata: pd.DataFrame,
    syndata: pd.DataFrame | Sequence[pd.DataFrame],
    known: str | Sequence[str],
    syn: str | Sequence[str],
    r: None | float | Sequence[float] = None,
    percentage: bool = True,
    euclideanDist: bool = False,
) -> dict[str, np.ndarray]:
    """R's ``IdentificationRisk()``: same arguments, a dict with R's result names.

    Returns ``c_vector``, ``T_vector``, ``K_vector``, ``F_vector``, ``Risk_vector`` (n x m
    arrays) and ``s_vector``, ``exp.risk_vector``, ``true.rate_vector``, ``false.rate_vector``
    (length m), identical to R's values. Where R prints an error and returns NULL (radius vector
    too short) this raises ``ValueError``; R's printed warnings become Python warnings.
    See :func:`idrisk.identification_risk` for the details and the options beyond R.
    """
    result = identification_risk(
        origdata, syndata, known, syn, r=r, percentage=percentage, euclidean_dist=euclideanDist
    )
    return result.to_r_dict()


def syn(
    data: pd.DataFrame,
    m: int = 1,
    visit_sequence: Sequence[str] | None = None,
    seed: Any = "sample",
    **options: Any,
):
    """``synthpop::syn`` with its R signature (CART partial synthesis, R-identical draws).

    Returns an object like synthpop's ``synds``: ``.syn`` is a DataFrame when ``m == 1`` and a
    list of m DataFrames otherwise; ``.seed`` is the seed used. See :mod:`idrisk.synthesis`.
    """
    from .synthesis import syn_r

    return syn_r(data, m=m, visit_sequence=visit_sequence, seed=seed, **options)
