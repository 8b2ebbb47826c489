"""One call of R's ``IdentificationRisk()`` as R answers it: result, printed lines, messages.

:func:`idrisk.r.IdentificationRisk` turns the outcome into Python warnings and R's result
names; the R wrapper (``idriskR``, through :mod:`idrisk.rcompat.bridge`) sends the same
outcome back to R. Both read the structured :class:`RCallOutcome`; nothing matches texts.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from .._schema import is_factor, numeric_text_columns
from .._synthetic import synthetic_frames
from ..exceptions import ExtraRadiiWarning, NumbersAsTextWarning
from ._prepare import _positional, dataset_label
from .identification import risk_from_options
from .options import RiskOptions
from .result import IdentificationRiskResult

__all__ = [
    "R_MESSAGE",
    "R_NULL_ERROR",
    "RCallOutcome",
    "r_printed_lines",
    "run_identification_risk",
]

#: what R prints before returning NULL for a radius vector that is too short
R_NULL_ERROR = (
    "Error: radius vector must be length 1 or number of continuous synthetic and known variables."
)
#: R's message() when r is NULL
R_MESSAGE = "Assuming all synthetic and known vars to be categorical"


def r_printed_lines(
    origdata: pd.DataFrame,
    known: Sequence[str],
    syn: Sequence[str],
    r: float | Sequence[float] | Mapping[str, float] | None,
) -> tuple[list[str], list[str], bool]:
    """What R's IdentificationRisk() prints for these arguments, and whether it returns NULL.

    Returns ``(print() lines, message() lines, returns_null)``. The rules (see the
    identification-risk spec): r NULL -> one message; a single r -> two Warning lines saying
    it uses the first 0 radii; more entries than continuous known/syn columns -> two Warning
    lines with that count; fewer (and more than one) -> an Error line and NULL.

    Examples
    --------
    >>> df = pd.DataFrame({"K": pd.Categorical(["a"]), "X": [1.0], "Y": [2.0]})
    >>> r_printed_lines(df, ["K"], ["X", "Y"], [0.1])[0][1]
    'Warning: only using the first 0 radii.'
    >>> r_printed_lines(df, ["K"], ["X", "Y"], [0.1, 0.2, 0.3])[0][1]
    'Warning: only using the first 2 radii.'
    >>> r_printed_lines(df, ["K"], ["X", "Y"], None)[1]
    ['Assuming all synthetic and known vars to be categorical']
    """
    if r is None:
        return [], [R_MESSAGE], False
    if isinstance(r, Mapping):  # named radii are idrisk's, not an R call: nothing to print
        return [], [], False
    values = [r] if isinstance(r, int | float) else list(r)
    used = set(known) | set(syn)
    # the columns R treats as continuous: neither factor nor character (data.matrix's rule)
    n_cont = sum(1 for c in origdata.columns if c in used and not is_factor(origdata[c], "r"))
    if len(values) == 1:
        return _r_warning_lines(0), [], False
    if len(values) < n_cont:
        return [R_NULL_ERROR], [], True
    if len(values) > n_cont:
        return _r_warning_lines(n_cont), [], False
    return [], [], False


def _r_warning_lines(k: int) -> list[str]:
    return [
        "Warning: length of radius vector longer than number of synthetic and known variables.",
        f"Warning: only using the first {k} radii.",
    ]


@dataclass(frozen=True)
class RCallOutcome:
    """What R's ``IdentificationRisk()`` returns and prints for one call.

    Attributes
    ----------
    result
        The result (None where R returns NULL).
    printed, messages
        The lines R prints with ``print()`` (without R's ``[1] "..."`` quoting) and ``message()``.
    warnings
        idrisk's own warnings about the data (NA, never matched, R-parity notes), as caught.
    error
        Why idrisk refused where R returns NULL (None otherwise).
    """

    result: IdentificationRiskResult | None
    printed: tuple[str, ...] = ()
    messages: tuple[str, ...] = ()
    warnings: tuple[warnings.WarningMessage, ...] = field(default=(), repr=False)
    error: str | None = None


def run_identification_risk(
    origdata: pd.DataFrame,
    syndata: pd.DataFrame | Sequence[pd.DataFrame],
    known: str | Sequence[str],
    syn: str | Sequence[str],
    r: None | float | Sequence[float] = None,
    percentage: bool = True,
    euclideanDist: bool = False,  # noqa: N803 - R's argument name
) -> RCallOutcome:
    """R's ``IdentificationRisk()`` under R's rules (:class:`~idrisk.RiskOptions` with
    ``rules="r"``), with what R prints. See :func:`idrisk.r.IdentificationRisk`."""
    known_l = [known] if isinstance(known, str) else [str(k) for k in known]
    syn_l = [syn] if isinstance(syn, str) else [str(s) for s in syn]
    r_arg = r if r is None or isinstance(r, int | float | Mapping) else [float(v) for v in r]
    if isinstance(r_arg, list) and len(r_arg) == 1:
        r_arg = r_arg[0]
    printed, messages, returns_null = r_printed_lines(origdata, known_l, syn_l, r_arg)
    caught_here: list[warnings.WarningMessage] = []
    # R's dtype rule: numbers stored as text are factors (idrisk.identification_risk refuses)
    text = {} if r_arg is None else numeric_text_columns(origdata, known_l + syn_l)
    if text:
        caught_here.append(
            warnings.WarningMessage(
                f"column(s) {list(text)} of origdata hold numbers stored as text (values that "
                f"are not numbers: {text}); as in R they are factors, matched exactly and not "
                "within the radius. Convert them to numbers to match them within the radius",
                NumbersAsTextWarning, __file__, 0,
            )  # fmt: skip
        )
    options = RiskOptions(
        known=known_l, syn=syn_l, r=r_arg, percentage=bool(percentage),
        euclidean_dist=bool(euclideanDist), categorical=list(text), rules="r",
    )  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            syndata = r_positional(origdata, syndata, known_l + syn_l, list(text),
                                   exact=r_arg is None)
            result = risk_from_options(origdata, syndata, options)
        except ValueError as exc:
            if returns_null:
                return RCallOutcome(None, tuple(printed), tuple(messages), (), str(exc))
            raise
    kept = [w for w in caught if not issubclass(w.category, ExtraRadiiWarning)]  # R prints it
    return RCallOutcome(result, tuple(printed), tuple(messages), tuple(caught_here + kept))


def r_positional(
    origdata: pd.DataFrame,
    syndata: pd.DataFrame | Sequence[pd.DataFrame],
    used: Sequence[str],
    categorical: Sequence[str] = (),
    *,
    exact: bool = False,
) -> list[pd.DataFrame]:
    """The synthetic datasets as R reads them: column k is ``origdata``'s column k (an
    ``RParityWarning`` names the columns read under another name), and a column R treats as
    continuous (neither factor nor character in ``origdata``) is coerced as R's
    ``as.double`` does when the synthetic dataset holds a factor there (its codes 1..k) or
    text (numbers where the text is a number, else NA). With ``exact`` (``r = NULL``: every value
    compared as text) a factor there is compared by its labels, which are parsed as numbers
    instead of its codes. A dataset with fewer columns is left for ``prepare_inputs``."""
    frames = synthetic_frames(syndata, "syndata")
    p = origdata.shape[1]
    continuous = [c for c in dict.fromkeys(used)
                  if c in origdata.columns and c not in set(categorical)
                  and not is_factor(origdata[c], "r")]
    out = []
    for j, frame in enumerate(frames, start=1):
        if frame.shape[1] < p:
            out.append(frame)
            continue
        frame = _positional(frame, origdata.columns, dataset_label(frame, j),
                            dataset_label(origdata, None))
        coerced = {}
        for c in continuous:
            col = frame[c]
            if isinstance(col.dtype, pd.CategoricalDtype) and not exact:
                codes = col.cat.codes.astype("float64")
                coerced[c] = codes.where(codes >= 0) + 1.0
            elif is_factor(col, "r"):
                text = col.astype(object).where(col.notna())
                coerced[c] = pd.to_numeric(
                    text.map(lambda v: v.strip() if isinstance(v, str) else v), errors="coerce"
                ).astype("float64")
        if coerced:
            frame = frame.assign(**coerced)
        out.append(frame)
    return out
