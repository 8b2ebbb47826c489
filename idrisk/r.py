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
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .rcompat.bridge import r_printed_lines
from .rcompat.run_r import RMessage, RPrintedWarning
from .risk import identification_risk
from .risk._prepare import RadiusWarning, numeric_text_columns
from .risk._synthpop_disclosure import disclosure, multi_disclosure, replicated_uniques  # noqa: F401

__all__ = ["IdentificationRisk", "NumbersAsTextWarning", "syn", "RPrintedWarning", "RMessage"]


class NumbersAsTextWarning(UserWarning):
    """A text column of numbers is a factor under R's rule (kept here, with this warning)."""


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
    (length m), identical to R's values. See :func:`idrisk.identification_risk` for the details
    and the options beyond R.

    Every line R prints becomes a Python warning with R's text, in the same cases as R:
    ``[1] "Warning: ..."`` lines (a radius vector longer than the continuous known/syn columns,
    and any single ``r``, as R does) as :class:`RPrintedWarning`, R's ``message()`` for
    ``r = None`` as :class:`RMessage`. Where R prints ``Error: ...`` and returns NULL (radius
    vector too short) this raises ``ValueError`` with R's text. idrisk's own warnings (e.g. a
    value <= 0 that never matches) are passed on, except its duplicate of R's radius lines.
    """
    known_l = [known] if isinstance(known, str) else list(known)
    syn_l = [syn] if isinstance(syn, str) else list(syn)
    r_arg = r if r is None or isinstance(r, int | float | Mapping) else [float(v) for v in r]
    printed, messages, returns_null = r_printed_lines(origdata, known_l, syn_l, r_arg)
    for text in messages:
        warnings.warn(text, RMessage, stacklevel=2)
    for text in printed:
        if returns_null and text.startswith("Error"):
            continue
        warnings.warn(text, RPrintedWarning, stacklevel=2)
    # R's dtype rule: numbers stored as text are factors (idrisk.identification_risk refuses)
    text = {} if r is None else numeric_text_columns(origdata, known_l + syn_l)
    if text:
        warnings.warn(
            f"column(s) {list(text)} of origdata hold numbers stored as text (values that are "
            f"not numbers: {text}); as in R they are factors, matched exactly and not within "
            "the radius. Convert them to numbers to match them within the radius",
            NumbersAsTextWarning,
            stacklevel=2,
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = identification_risk(
                origdata,
                syndata,
                known_l,
                syn_l,
                r=r,
                percentage=percentage,
                euclidean_dist=euclideanDist,
                categorical=list(text) or None,
            )
        except ValueError as exc:
            if returns_null:
                raise ValueError(f"{printed[0]} (R returns NULL here; idrisk: {exc})") from exc
            raise
    for w in caught:
        duplicate = issubclass(w.category, RadiusWarning) and "entries but only" in str(w.message)
        if not duplicate:
            warnings.warn(w.message, stacklevel=2)
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
