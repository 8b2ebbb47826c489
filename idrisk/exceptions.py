"""Every warning and error class of idrisk, in one module (as scikit-learn's
``sklearn.exceptions``).

The parts re-export the classes their public API has always named (``idrisk.risk.RadiusWarning``,
``idrisk.stan.StanBackendError``, ``idrisk.r.RMessage``, ...); they are the same objects as
here. This module imports nothing, so importing it is free.

Errors
------
* :class:`InputError` -- bad input from the user, naming the argument/flag, file and column;
  :class:`OutputError` and :class:`ColumnTypeError` specialise it.
* :class:`NotFittedError` -- a synthesizer used before ``fit`` (``ValueError`` and
  ``AttributeError``, as scikit-learn's).
* :class:`StanBackendError` -- no Stan backend can compile or run a program.
* :class:`RNotAvailableError`, :class:`RPackageNotInstalledError`, :class:`RCallError`,
  :class:`RReturnedNull` -- R through rpy2.

Warnings
--------
Identification risk: :class:`RadiusWarning`, :class:`ExtraRadiiWarning`,
:class:`ContinuousCodesWarning`, :class:`RiskInputWarning`, :class:`ExactMatchWarning`,
:class:`RParityWarning`; R's printed output: :class:`RPrintedWarning`, :class:`RMessage`,
:class:`NumbersAsTextWarning`; synthpop's disclosure: :class:`SynthpopQuirkWarning`;
synthesizers and models: :class:`InfiniteValuesWarning`, :class:`CollinearWarning`,
:class:`KStarWarning`, :class:`StanConvergenceWarning`, :class:`SensitivityWarning`,
:class:`ReplicateWarning`; utility:
:class:`UtilityWarning`; R: :class:`RConversionWarning`.
"""

from __future__ import annotations

__all__ = [
    "CollinearWarning",
    "ColumnTypeError",
    "ContinuousCodesWarning",
    "ExactMatchWarning",
    "ExtraRadiiWarning",
    "FormatNote",
    "InfiniteValuesWarning",
    "InputError",
    "KStarWarning",
    "NotFittedError",
    "NumbersAsTextWarning",
    "OutputError",
    "RCallError",
    "RMessage",
    "RNotAvailableError",
    "RPackageNotInstalledError",
    "RParityWarning",
    "RPrintedWarning",
    "RReturnedNull",
    "RadiusWarning",
    "RiskInputWarning",
    "StanBackendError",
    "StanConvergenceWarning",
    "SynthpopQuirkWarning",
    "UtilityWarning",
    "SensitivityWarning",
    "ReplicateWarning",
    "RConversionWarning",
]


# =========================================================================== errors
class InputError(ValueError):
    """Bad input from the user: a file that cannot be read, a column that is not there.

    The command line prints an :class:`InputError` as one line (no traceback) and exits with 2;
    in Python it is an ordinary :class:`ValueError`.

    Attributes
    ----------
    flag : str or None
        The argument (CLI flag) concerned, e.g. ``"--categorical"``.
    file : str or None
        The file concerned.
    column : str or None
        The column concerned.

    Examples
    --------
    >>> err = InputError("conf.csv: column 'Income' appears twice", file="conf.csv",
    ...                  column="Income")
    >>> str(err), err.column
    ("conf.csv: column 'Income' appears twice", 'Income')
    """

    def __init__(self, message: str, *, flag: str | None = None, file: str | None = None,
                 column: str | None = None) -> None:
        super().__init__(message)
        self.flag, self.file, self.column = flag, file, column


class OutputError(InputError):
    """An output location that cannot be written as asked (exists, or is a file/folder)."""


class ColumnTypeError(InputError, TypeError):
    """A column holds values of the wrong type (text in a continuous column, numbers stored as
    text): a :class:`TypeError` in Python and an :class:`InputError` on the command line."""


class NotFittedError(ValueError, AttributeError):
    """A synthesizer was asked to synthesize (or for a fitted attribute) before ``fit``.

    Both a :class:`ValueError` and an :class:`AttributeError`, as scikit-learn's
    ``sklearn.exceptions.NotFittedError``.
    """


class StanBackendError(RuntimeError):
    """Raised when no Stan backend can compile or run a program."""


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


class RReturnedNull(ValueError):
    """The R package printed an ``Error`` line and returned NULL."""


# ========================================================================= warnings
class RadiusWarning(UserWarning):
    """A suspicious radius: more entries than continuous variables (R prints a warning), or a
    percentage radius above 1 (``r = 10`` means +-1000%)."""


class ExtraRadiiWarning(RadiusWarning):
    """More radii than continuous known/syn columns: the extra entries are ignored (R prints
    two ``Warning`` lines here)."""


class ContinuousCodesWarning(UserWarning):
    """Integer codes (few distinct whole numbers) are matched within a radius as continuous."""


class RiskInputWarning(UserWarning):
    """Something in the data changes the risk silently under R's rules (NA matching anything,
    values <= 0 that never match under a percentage radius, many records with c = 0)."""


class ExactMatchWarning(RiskInputWarning):
    """``r`` is None, so numeric known/syn columns are matched by equality (R's rule)."""


class RParityWarning(UserWarning):
    """:mod:`idrisk.r` reproduces a rule of R's that differs from idrisk's own reading (synthetic
    columns by position, the first n synthetic rows, a column listed twice)."""


class RPrintedWarning(UserWarning):
    """A ``[1] "Warning: ..."`` line that the R package printed (it prints, it does not warn)."""


class RMessage(UserWarning):
    """A line that the R package emitted with ``message()`` (e.g. "Assuming all synthetic and
    known vars to be categorical" when ``r`` is NULL)."""


class NumbersAsTextWarning(UserWarning):
    """A text column of numbers is a factor under R's rule (kept by :mod:`idrisk.r`, with this
    warning)."""


class SynthpopQuirkWarning(UserWarning):
    """synthpop's answer here comes from a quirk of its code (the message names it);
    ``quirks="corrected"`` gives the answer without it."""


class InfiniteValuesWarning(UserWarning):
    """A numeric column given to the CART synthesis holds ``Inf`` or ``-Inf``: its variance is
    NaN in R, so synthpop's ``syn`` treats it as constant -- the column is kept as it is in every
    synthetic dataset (its confidential values released) and is used by no tree; idrisk does the
    same."""


class CollinearWarning(UserWarning):
    """The CART synthesis leaves out columns as synthpop's ``syn`` does: a column correlated at
    ``|r| >= 0.99999`` with one earlier in the visit sequence is derived from it (synthpop's
    method ``"collinear"``, its message "Variables ... are collinear"), and a tree's predictors
    of variance below 1e-5, correlated at ``r >= 0.99999`` with its column or linearly dependent
    on the others are dropped (synthpop's ``remove.lindep.syn``, which drops them silently)."""


class KStarWarning(UserWarning):
    """The number of occupied latent classes reached the truncation level K."""


class StanConvergenceWarning(UserWarning):
    """Issued when R-hat, bulk ESS or divergent transitions indicate poor convergence."""


class UtilityWarning(UserWarning):
    """A utility measure's model or combination is degenerate: one synthetic dataset (no
    between-dataset variance), a constant predictor dropped, a singular Hessian."""


class SensitivityWarning(UserWarning):
    """The sensitivity of a private survey table leaves rows out (a row with one unit has no
    leave-one-out mean)."""


class ReplicateWarning(UserWarning):
    """Replicate standard errors left out replicates in which a statistic is undefined (a
    mean of a row whose units all have weight zero in that replicate), as R's ``survey``
    discards replicates that give NA."""


class RConversionWarning(UserWarning):
    """A column changes type on its way to R (integers outside R's integer range become
    doubles)."""


class FormatNote(UserWarning):
    """How an agency file (SAS, Stata, SPSS, R) was read: value labels turned into categories,
    user-defined missing values turned into NA."""
