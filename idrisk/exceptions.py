"""Public warning and error classes of idrisk (as scikit-learn's ``sklearn.exceptions``)."""

from __future__ import annotations

__all__ = ["NotFittedError"]


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
