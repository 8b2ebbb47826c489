"""Start R through rpy2 on demand, check R packages, and call R functions safely.

Nothing here imports rpy2 at module import time: ``import idrisk.rcompat`` works without R,
and the first function that needs R raises :class:`RNotAvailableError` naming what is missing.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import RCallError, RNotAvailableError, RPackageNotInstalledError

__all__ = ["robjects", "require_r_package", "r_package_available", "call_r", "RCall"]

#: how to install the R packages the module can call (shown in error messages)
PACKAGE_INSTALL_HINTS: dict[str, str] = {
    "IdentificationRiskCalculation": (
        "`install.packages('IdentificationRiskCalculation')` or "
        "`remotes::install_github('RyanHornby/IdentificationRiskCalculation')`"
    ),
    "synthpop": "`install.packages('synthpop')` (needs rpart, also on CRAN)",
}

#: how to install R and rpy2 (named in the errors)
INSTALL_R = (
    "install R (Debian/Ubuntu: `apt-get install r-base-core r-base-dev`) and rpy2 "
    "(`pip install 'idrisk[r]'`, which pins rpy2==3.5.17)"
)



def start_r():
    """Import ``rpy2.robjects`` (which starts the embedded R) and undo R's ``LD_LIBRARY_PATH``.

    Starting R puts R's library folders (on Debian ``/usr/lib/x86_64-linux-gnu``) on this
    process's ``LD_LIBRARY_PATH``. R itself no longer needs it once loaded, but every child
    process started afterwards inherits it: a Python built with a shared libpython (pyenv's)
    then loads the system's libpython instead of its own and fails (Dask's worker processes:
    "undefined symbol" in ``_ssl``). The variable is restored to what it was before R started.
    """
    before = os.environ.get("LD_LIBRARY_PATH")
    import rpy2.robjects as ro

    if before is None:
        os.environ.pop("LD_LIBRARY_PATH", None)
    else:
        os.environ["LD_LIBRARY_PATH"] = before
    return ro


@functools.cache
def robjects():
    """Return ``rpy2.robjects`` with R started, or raise :class:`RNotAvailableError`.

    Examples
    --------
    >>> ro = robjects()  # doctest: +SKIP
    >>> ro.r("1 + 1")[0]  # doctest: +SKIP
    2.0
    """
    try:
        import rpy2  # noqa: F401
    except ImportError as exc:
        raise RNotAvailableError(f"rpy2 is not installed: {INSTALL_R}") from exc
    try:
        ro = start_r()
    except Exception as exc:  # rpy2 raises several kinds when R itself is missing or broken
        raise RNotAvailableError(
            f"rpy2 is installed but could not start R ({type(exc).__name__}: {exc}); "
            f"{INSTALL_R}; if R is installed, set R_HOME (e.g. R_HOME=$(R RHOME))"
        ) from exc
    return ro


def r_package_available(package: str) -> bool:
    """True when R and rpy2 work and the R package ``package`` can be loaded."""
    try:
        ro = robjects()
    except RNotAvailableError:
        return False
    fun = ro.r(
        "function(p) suppressMessages(suppressWarnings(requireNamespace(p, quietly = TRUE)))"
    )
    return bool(fun(package)[0])


def require_r_package(package: str) -> None:
    """Raise :class:`RPackageNotInstalledError` (or :class:`RNotAvailableError`) when missing."""
    robjects()
    if not r_package_available(package):
        hint = PACKAGE_INSTALL_HINTS.get(package, f"`install.packages('{package}')`")
        raise RPackageNotInstalledError(package, hint)


_CALL_R = r"""
function(pkg, fname, args) {
  env <- new.env(parent = globalenv())
  f <- if (is.null(pkg)) get(fname, mode = "function") else getExportedValue(pkg, fname)
  assign(fname, f, envir = env)
  for (nm in names(args)) assign(nm, args[[nm]], envir = env)
  cl <- as.call(c(list(as.name(fname)), stats::setNames(lapply(names(args), as.name), names(args))))
  msgs <- character(); warns <- character(); err <- NULL; value <- NULL
  out <- utils::capture.output(
    value <- tryCatch(
      withCallingHandlers(eval(cl, env),
        message = function(m) {
          msgs <<- c(msgs, sub("\n$", "", conditionMessage(m))); invokeRestart("muffleMessage")
        },
        warning = function(w) {
          warns <<- c(warns, conditionMessage(w)); invokeRestart("muffleWarning")
        }),
      error = function(e) { err <<- conditionMessage(e); NULL }),
    type = "output")
  list(value = value, output = out, messages = msgs, warnings = warns,
       error = if (is.null(err)) character() else err)
}
"""


@dataclass
class RCall:
    """What one R call returned and printed.

    Attributes
    ----------
    value : rpy2 object (``NULL`` when R returned NULL)
    output : list of str
        Lines R printed to the console (``print``/``cat``).
    messages, warnings : list of str
        Texts of R ``message()`` and ``warning()`` conditions.
    """

    value: Any
    output: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def returned_null(self) -> bool:
        ro = robjects()
        return self.value is ro.NULL or getattr(self.value, "typeof", None) == 0


def call_r(package: str | None, function: str, args: Mapping[str, Any]) -> RCall:
    """Call ``package::function(<args>)`` in R, capturing its output, messages and warnings.

    The arguments are bound to variables of the same name, so R sees a short call such as
    ``syn(data = data, m = m)`` (what ``match.call()`` stores), never the deparsed data.

    Parameters
    ----------
    package : str or None
        R package (checked with :func:`require_r_package`); None for a function visible from
        the global environment.
    function : str
        Function name.
    args : mapping
        R argument names (e.g. ``"visit.sequence"``) to R objects or values rpy2 converts.

    Raises
    ------
    RCallError
        When R signals an error; the message is R's.
    """
    ro = robjects()
    if package is not None:
        require_r_package(package)
    caller = _caller()
    rargs = ro.vectors.ListVector.from_length(len(args))
    for i, value in enumerate(args.values()):
        rargs[i] = ro.NULL if value is None else value
    rargs.names = ro.StrVector(list(args)) if args else ro.NULL
    res = caller(ro.NULL if package is None else package, function, rargs)
    parts = dict(zip(res.names, res, strict=True))
    err = list(parts["error"])
    where = f"{package}::{function}" if package else function
    if err:
        raise RCallError(f"R error in {where}(): {err[0]}")
    return RCall(
        value=parts["value"],
        output=list(parts["output"]),
        messages=list(parts["messages"]),
        warnings=list(parts["warnings"]),
    )


@functools.cache
def _caller():
    return robjects().r(_CALL_R)
