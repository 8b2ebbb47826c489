"""R's own signatures, for scripts translated from R and for validating published R results.

``IdentificationRisk`` mirrors IdentificationRiskCalculation's function (argument and result
names as in R) **and R's reading of the data** wherever R's answer is defined:

* the synthetic data frames are read **by position** (column i is column i of the original;
  names only pick the columns for the factor levels), with an
  :class:`~idrisk.RParityWarning` when the names differ;
* numbers in a column that is a factor in the original become labels by R's
  ``as.character`` (15 significant digits: ``1e5`` -> ``"1e+05"``, ``0.1 + 0.2`` -> ``"0.3"``);
* a logical column is a 0/1 number (``data.matrix``);
* a column in both ``known`` and ``syn``, or twice in ``known``, is taken as given (its squared
  radius counted twice under ``euclideanDist``);
* a synthetic dataset with more rows than the original: only its first n rows are read;
* ``euclideanDist``: squares added in the order of ``known`` / ``syn``, root by C's ``pow``;
  a percentage radius around +-Inf gives R's one-sided (NaN) bound.

``syn`` mirrors ``synthpop::syn``.

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

R's printed lines become warnings with R's own text (``RPrintedWarning`` for ``print()``,
``RMessage`` for ``message()``), in exactly the cases where R prints them:

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     _ = IdentificationRisk(orig, [orig], known=["Sex"], syn=["Income"], r=0.1)
>>> [str(w.message) for w in caught if isinstance(w.message, RPrintedWarning)][1]
'Warning: only using the first 0 radii.'
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._rdisclosure import disclosure, multi_disclosure, replicated_uniques  # noqa: F401
from .exceptions import NumbersAsTextWarning, RMessage, RPrintedWarning
from .risk._rcall import run_identification_risk

__all__ = ["IdentificationRisk", "NumbersAsTextWarning", "RMessage", "RPrintedWarning", "syn"]


def IdentificationRisk(
    origdata: pd.DataFrame,
    syndata: pd.DataFrame | Sequence[pd.DataFrame],
    known: str | Sequence[str],
    syn: str | Sequence[str],
    r: None | float | Sequence[float] = None,
    percentage: bool = True,
    euclideanDist: bool = False,
) -> dict[str, np.ndarray]:
    """R's ``IdentificationRisk()``: same arguments, R's reading of the data, a dict with R's
    result names.

    Returns ``c_vector``, ``T_vector``, ``K_vector``, ``F_vector``, ``Risk_vector`` (n x m
    arrays) and ``s_vector``, ``exp.risk_vector``, ``true.rate_vector``, ``false.rate_vector``
    (length m), identical to R's values (see the module docstring for R's rules, and
    :func:`idrisk.identification_risk` for the options beyond R).

    Every line R prints becomes a Python warning with R's text, in the same cases as R:
    ``[1] "Warning: ..."`` lines (a radius vector longer than the continuous known/syn columns,
    and any single ``r``, as R does) as :class:`RPrintedWarning`, R's ``message()`` for
    ``r = None`` as :class:`RMessage`. Where R prints ``Error: ...`` and returns NULL (radius
    vector too short) this raises ``ValueError`` with R's text. idrisk's own warnings (e.g. a
    value <= 0 that never matches, a synthetic column read by position) are passed on.
    """
    outcome = run_identification_risk(
        origdata, syndata, known, syn, r, percentage, euclideanDist
    )
    for text in outcome.messages:
        warnings.warn(text, RMessage, stacklevel=2)
    for text in outcome.printed:
        if outcome.result is None and text.startswith("Error"):
            continue
        warnings.warn(text, RPrintedWarning, stacklevel=2)
    for w in outcome.warnings:
        warnings.warn(w.message, w.category, stacklevel=2)
    if outcome.result is None:
        raise ValueError(f"{outcome.printed[0]} (R returns NULL here; idrisk: {outcome.error})")
    return outcome.result.to_r_dict()


def syn(
    data: pd.DataFrame,
    m: int = 1,
    visit_sequence: Sequence[str] | None = None,
    seed: Any = "sample",
    **options: Any,
):
    """``synthpop::syn`` with its R signature (CART partial synthesis, R-identical draws).

    Returns synthpop's ``synds`` shape (:class:`idrisk.synthesis.Synds`, the R-side view):
    ``.syn`` is a DataFrame when ``m == 1`` and a list of m DataFrames otherwise; ``.seed`` is
    the seed used; ``.result`` is the :class:`~idrisk.SyntheticData` that the Python API
    (:func:`idrisk.syn`, :class:`idrisk.synthesis.CARTSynthesizer`) returns.
    """
    from .synthesis import syn_r

    return syn_r(data, m=m, visit_sequence=visit_sequence, seed=seed, **options)
