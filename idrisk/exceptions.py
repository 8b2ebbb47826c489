"""Public warning and error classes of idrisk (as :mod:`sklearn.exceptions`).

"""

from __future__ import annotations

__all__ = [
    "NotFittedError",
    "ContinuousCodesWarning",
    "ExactMatchWarning",
    "ExtraRadiiWarning",
    "RParityWarning",
    "RadiusWarning",
    "RiskInputWarning",
]


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


class NotFittedError(ValueError, AttributeError):
    """A synthesizer was used (``synthesize``, a fitted attribute) before ``fit``.

    A :class:`ValueError` and an :class:`AttributeError`, as scikit-learn's
    ``sklearn.exceptions.NotFittedError``.

    Examples
    --------
    >>> from idrisk.exceptions import NotFittedError
    >>> from idrisk.synthesis import CARTSynthesizer
    >>> try:
    ...     CARTSynthesizer().synthesize()
    ... except NotFittedError as err:
    ...     print(isinstance(err, ValueError), isinstance(err, AttributeError))
    True True
    """
