"""Run the R package IdentificationRiskCalculation on pandas data; load R datasets."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import pandas as pd

from ..exceptions import RMessage, RPackageNotInstalledError, RPrintedWarning, RReturnedNull
from ..risk.options import RiskOptions
from ..risk.result import IdentificationRiskResult
from ._session import PACKAGE_INSTALL_HINTS, call_r, require_r_package, robjects
from .convert import dataframe_from_r, dataframe_to_r, dataframes_to_r

__all__ = [
    "identification_risk_r",
    "load_r_dataset",
    "DOCUMENTED_FACTORS",
]

IRC = "IdentificationRiskCalculation"


def _radius_arg(r, origdata: pd.DataFrame):
    ro = robjects()
    if r is None:
        return None
    if isinstance(r, Mapping):
        raise TypeError(
            "r: the R package takes no named radii; pass a number or a sequence in the column "
            "order of origdata"
        )
    values = [float(r)] if isinstance(r, int | float) else [float(v) for v in r]
    return ro.FloatVector(values)


def identification_risk_r(
    origdata: pd.DataFrame,
    syndata: pd.DataFrame | Sequence[pd.DataFrame],
    known: str | Sequence[str],
    syn: str | Sequence[str],
    r: float | Sequence[float] | None = None,
    percentage: bool = True,
    euclidean_dist: bool = False,
) -> IdentificationRiskResult:
    """Run ``IdentificationRiskCalculation::IdentificationRisk`` in R on pandas data.

    R's own arguments (as :func:`idrisk.r.IdentificationRisk`). The data frames are converted
    with :func:`dataframe_to_r` (categoricals become factors, str columns character vectors).
    Lines R prints (``[1] "Warning: ..."``) become :class:`RPrintedWarning` warnings; R's
    ``message()`` lines :class:`RMessage` warnings.

    Returns
    -------
    IdentificationRiskResult
        Indexed like ``origdata``; its ``options`` are R's arguments under R's rules.

    Raises
    ------
    RReturnedNull
        When R prints an ``Error`` line and returns NULL (radius vector too short).
    RPackageNotInstalledError
        When the R package is not installed (the message says how to install it).

    Examples
    --------
    >>> res = identification_risk_r(orig, syns, ["Age", "Urban"], ["Income"], r=0.1)
    ... # doctest: +SKIP
    >>> res.exp_risk.mean()  # doctest: +SKIP
    """
    require_r_package(IRC)
    ro = robjects()
    frames = [syndata] if isinstance(syndata, pd.DataFrame) else list(syndata)
    known_l = [known] if isinstance(known, str) else list(known)
    syn_l = [syn] if isinstance(syn, str) else list(syn)
    args = {
        "origdata": dataframe_to_r(origdata),
        "syndata": dataframes_to_r(frames),
        "known": ro.StrVector(known_l),
        "syn": ro.StrVector(syn_l),
        "r": _radius_arg(r, origdata),
        "percentage": ro.BoolVector([bool(percentage)]),
        "euclideanDist": ro.BoolVector([bool(euclidean_dist)]),
    }
    call = call_r(IRC, "IdentificationRisk", args)
    error_lines = [line for line in call.output if _strip_print(line).startswith("Error")]
    for line in call.output:
        text = _strip_print(line)
        if not text.startswith("Error"):
            warnings.warn(text, RPrintedWarning, stacklevel=2)
    for text in call.messages:
        warnings.warn(text, RMessage, stacklevel=2)
    for text in call.warnings:
        warnings.warn(text, UserWarning, stacklevel=2)
    from .results import result_from_r

    options = RiskOptions(
        known=known_l, syn=syn_l, r=r, percentage=bool(percentage),
        euclidean_dist=bool(euclidean_dist), rules="r",
    )  # fmt: skip
    result = result_from_r(call.value, index=origdata.index, options=options)
    if result is None:
        detail = _strip_print(error_lines[0]) if error_lines else "R returned NULL"
        raise RReturnedNull(detail)
    return result


def _strip_print(line: str) -> str:
    """``[1] "text"`` (R's print of a string) -> ``text``."""
    line = line.strip()
    if line.startswith('[1] "') and line.endswith('"'):
        return line[5:-1]
    return line


#: columns that a package's documentation converts with ``as.factor()`` before use
DOCUMENTED_FACTORS: dict[tuple[str, str], tuple[str, ...]] = {
    # IdentificationRiskCalculation stores every CEdata column as a number; its paper and
    # example call IdentificationRisk() after CEdata$Urban/Marital/Tenure <- as.factor(...)
    (IRC, "CEdata"): ("Urban", "Tenure", "Marital"),
}


def load_r_dataset(
    name: str, package: str = IRC, *, factors: str | Sequence[str] | None = "documented"
) -> pd.DataFrame:
    """Load a dataset shipped with an R package as a DataFrame (``data(name, package=)``).

    R factors become ``category`` columns (labels and level order as in R), character vectors
    ``str``, integers ``int32``, doubles ``float64`` (see :func:`dataframe_from_r`).

    Parameters
    ----------
    name : str
        Dataset name, e.g. ``"CEdata"``.
    package : str
        R package that ships it (default IdentificationRiskCalculation).
    factors : "documented", sequence of str or None
        Columns to turn into factors in R (``as.factor``, so levels and labels are R's) before
        the conversion. ``"documented"`` (default) applies the conversion the package's own
        documentation makes: for ``CEdata`` that is Urban, Tenure and Marital, which the
        package stores as integer codes and its example turns into factors - left numeric,
        they would be matched as continuous variables. None keeps R's storage as it is.

    Raises
    ------
    RPackageNotInstalledError
        When the R package is not installed (no silent fallback: the message names the
        package and how to install it). For CEdata without IdentificationRiskCalculation,
        read a CSV copy with :func:`idrisk.datasets.read_ce`, or use the simulated
        :func:`idrisk.datasets.load_demo`.
    ValueError
        When the package has no such dataset, or a ``factors`` column is missing.

    Examples
    --------
    >>> ce = load_r_dataset("CEdata")  # doctest: +SKIP
    >>> ce.shape, str(ce["Urban"].dtype)  # doctest: +SKIP
    ((5571, 7), 'category')
    >>> load_r_dataset("mtcars", package="datasets").shape  # doctest: +SKIP
    (32, 11)
    """
    ro = robjects()
    try:
        require_r_package(package)
    except RPackageNotInstalledError as exc:
        if (package, name) != (IRC, "CEdata"):
            raise
        raise RPackageNotInstalledError(
            package,
            f"{PACKAGE_INSTALL_HINTS[IRC]}; without it, read a CSV copy of CEdata with "
            "idrisk.datasets.read_ce(path) (Urban, Tenure, Marital as categories) or use the "
            "simulated CE-like idrisk.datasets.load_demo()",
        ) from exc
    if factors == "documented":
        columns: list[str] = list(DOCUMENTED_FACTORS.get((package, name), ()))
    elif factors is None:
        columns = []
    elif isinstance(factors, str):
        columns = [factors]
    else:
        columns = [str(c) for c in factors]
    fun = ro.r(
        "function(name, pkg, fac) { e <- new.env(); "
        "found <- suppressWarnings(utils::data(list = name, package = pkg, envir = e)); "
        "x <- if (exists(name, envir = e, inherits = FALSE)) get(name, envir = e) else "
        "get0(name, envir = getNamespaceInfo(asNamespace(pkg), 'lazydata'), inherits = FALSE); "
        "if (is.null(x)) "
        "stop(sprintf(\"dataset '%s' not found in R package '%s'\", name, pkg)); "
        "if (is.matrix(x)) x <- as.data.frame(x); "
        "bad <- setdiff(fac, names(x)); if (length(bad)) "
        "stop(sprintf(\"factors: column '%s' is not in the data set\", bad[1])); "
        "for (v in fac) x[[v]] <- as.factor(x[[v]]); x }"
    )
    try:
        value = fun(name, package, ro.StrVector(columns))
    except Exception as exc:
        raise ValueError(
            f"name: could not load dataset {name!r} from R package {package!r}: {exc}"
        ) from exc
    return dataframe_from_r(value)
