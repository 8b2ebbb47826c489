"""Exceptions raised when R, rpy2 or an R package is missing or an R call fails."""

from __future__ import annotations

__all__ = ["RNotAvailableError", "RPackageNotInstalledError", "RCallError"]

INSTALL_R = (
    "install R (Debian/Ubuntu: `apt-get install r-base-core r-base-dev`) and rpy2 "
    "(`pip install 'idrisk[r]'`, which pins rpy2==3.5.17)"
)


class RNotAvailableError(ImportError):
    """R or rpy2 cannot be used from this Python process."""


class RPackageNotInstalledError(RNotAvailableError):
    """An R package that the call needs is not installed in R.

    Attributes
    ----------
    package : str
        Name of the missing R package.
    """

    def __init__(self, package: str, how: str) -> None:
        self.package = package
        super().__init__(f"the R package '{package}' is not installed in R; install it with {how}")


class RCallError(RuntimeError):
    """An R function signalled an error (the R message is kept verbatim)."""
