"""``RiskOptions``: the options of one identification-risk call, as one frozen object.

:func:`idrisk.identification_risk` builds it from its arguments; the Dask engine
(:func:`idrisk.identification_risk_dask`), :mod:`idrisk.r`, :mod:`idrisk.rcompat`, the report
and :mod:`idrisk.analysis` take it as it is, so the signature exists once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

import numpy as np

from .._interface import check_keywords, did_you_mean
from .._schema import as_names

__all__ = ["MATCHING", "Radius", "RiskOptions", "matching_rules"]

#: what ``r`` may be: None, one number, a sequence (data-frame order) or ``{column: radius}``
Radius = None | float | Sequence[float] | Mapping[str, float]

_ALIGN = (None, "position", "index")

#: the matching rules of :class:`RiskOptions`: its fields other than ``known``, ``syn``, ``r``
#: (and ``rules``); every function that passes risk options on takes them as these keywords
#: or as ``options=RiskOptions(...)``
MATCHING = ("percentage", "euclidean_dist", "closed", "abs_radius", "ellipsoid", "na_matches",
            "categorical", "continuous", "align")


def _freeze_radius(r: Any) -> None | float | tuple[float, ...] | tuple[tuple[str, float], ...]:
    """A hashable copy of ``r`` (a dict becomes sorted ``(column, radius)`` pairs)."""
    if r is None:
        return None
    if isinstance(r, tuple) and r and all(isinstance(x, tuple) for x in r):  # already frozen
        return r
    if isinstance(r, Mapping):
        return tuple((str(k), float(v)) for k, v in r.items())
    if isinstance(r, (bool, np.bool_)):
        raise TypeError(f"r must be None, a number, a sequence or a dict; got {r!r}")
    if isinstance(r, (int, float, np.integer, np.floating)):
        return float(r)
    if isinstance(r, (str, bytes)):
        raise TypeError(f"r must be None, a number, a sequence or a dict; got {r!r}")
    try:
        values = tuple(float(v) for v in np.asarray(r, dtype=np.float64).reshape(-1))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"r must be None, a number, a sequence or a dict; got {r!r}") from exc
    if len(values) == 0:
        raise ValueError("r is empty: give None, one radius or one per continuous column")
    return values


@dataclass(frozen=True)
class RiskOptions:
    """How an identification-risk call matches records (see :func:`idrisk.identification_risk`).

    Parameters
    ----------
    known, syn
        Variables the intruder knows (unsynthesized) and the synthesized ones.
    r
        Radius: None (every variable matched exactly), one number, a sequence handed out to
        the continuous known/syn columns in data-frame order (R's rule), or ``{column: radius}``.
    percentage
        Radius ``r * x`` (R's default) instead of ``r``.
    euclidean_dist
        R's ``euclideanDist`` radius formula.
    closed
        Closed intervals ``[x - d, x + d]`` (R: open).
    abs_radius
        Percentage radius from ``|x|``.
    ellipsoid
        A true Euclidean (ellipsoid) match over the continuous variables.
    na_matches
        R's rule (True): a missing continuous value matches anything.
    categorical, continuous
        Declared column types, overriding the package's rule (category, text and bool columns
        are categorical, numbers continuous).
    align
        Row correspondence of indexed frames: None, ``"position"`` or ``"index"``.
    rules
        ``"python"`` (columns by name, booleans categorical, Python's labels) or ``"r"``, the
        reading of :mod:`idrisk.r`: synthetic columns by position, booleans as 0/1 numbers,
        numbers turned into factor labels by R's ``as.character``, a column in both ``known``
        and ``syn`` or twice in ``known`` taken as given, and only the first n rows of a longer
        synthetic dataset read.

    Examples
    --------
    >>> from idrisk import RiskOptions
    >>> opts = RiskOptions(known="Sex", syn=["Income"], r=0.1)
    >>> opts.known, opts.syn, opts.r, opts.percentage
    (('Sex',), ('Income',), 0.1, True)
    >>> opts.replace(r=0.2).r
    0.2
    """

    known: Sequence[str] = ()  # stored as a tuple (__post_init__)
    syn: Sequence[str] = ()
    r: Any = None
    percentage: bool = True
    euclidean_dist: bool = False
    closed: bool = False
    abs_radius: bool = False
    ellipsoid: bool = False
    na_matches: bool = True
    categorical: Sequence[str] = ()
    continuous: Sequence[str] = ()
    align: Literal["position", "index"] | None = None
    rules: Literal["python", "r"] = field(default="python", repr=False)

    def __post_init__(self) -> None:
        if self.rules not in ("python", "r"):
            raise ValueError(f"rules must be 'python' or 'r', got {self.rules!r}")
        unique = self.rules == "python"
        known = tuple(as_names(self.known, "known", unique=unique))
        syn = tuple(as_names(self.syn, "syn", unique=unique))
        if unique:
            overlap = sorted(set(known) & set(syn))
            if overlap:
                raise ValueError(
                    f"known and syn overlap in {overlap}: a variable is either known or "
                    "synthesized"
                )
        if not known and not syn:
            raise ValueError(
                "known and syn are both empty: name at least one variable to match on"
            )
        for name in ("percentage", "euclidean_dist", "closed", "abs_radius", "ellipsoid",
                     "na_matches"):
            value = getattr(self, name)
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False, got {value!r}")
        if self.ellipsoid and self.euclidean_dist:
            raise ValueError(
                "ellipsoid=True and euclidean_dist=True: choose one (ellipsoid is the true "
                "Euclidean match; euclidean_dist is R's per-variable radius formula)"
            )
        if self.align not in _ALIGN:
            raise ValueError(f"align must be None, 'position' or 'index', got {self.align!r}")
        categorical = tuple(as_names(self.categorical, "categorical"))
        continuous = tuple(as_names(self.continuous, "continuous"))
        both = sorted(set(categorical) & set(continuous))
        if both:
            raise ValueError(f"column(s) {both} declared both categorical and continuous")
        if continuous and self.r is None:
            raise ValueError(
                f"continuous={list(continuous)} needs a radius r (with r=None every variable "
                "is matched exactly)"
            )
        for key, value in (
            ("known", known), ("syn", syn), ("categorical", categorical),
            ("continuous", continuous), ("r", _freeze_radius(self.r)),
        ):  # fmt: skip
            object.__setattr__(self, key, value)
        object.__setattr__(self, "percentage", bool(self.percentage))

    @property
    def radius(self) -> Radius:
        """``r`` as the user gave it (a dict for ``{column: radius}``)."""
        r = self.r
        if isinstance(r, tuple) and r and isinstance(r[0], tuple):
            return dict(r)
        return r

    @property
    def variables(self) -> tuple[str, ...]:
        """``known`` then ``syn`` (each name once)."""
        return tuple(dict.fromkeys([*self.known, *self.syn]))

    def replace(self, **changes: Any) -> RiskOptions:
        """A copy with ``changes`` applied (e.g. another radius)."""
        unknown = sorted(changes.keys() - {f.name for f in fields(self)})
        if unknown:
            names = [f.name for f in fields(self)]
            raise TypeError(f"RiskOptions.replace() got an unexpected keyword argument "
                            f"{unknown[0]!r}" + did_you_mean(unknown[0], names))
        if "r" in changes and isinstance(changes["r"], Mapping):
            changes["r"] = dict(changes["r"])
        return replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """The options as ``identification_risk`` keyword arguments."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "rules"}
        out["known"], out["syn"] = list(self.known), list(self.syn)
        out["categorical"] = list(self.categorical) or None
        out["continuous"] = list(self.continuous) or None
        r = self.radius
        out["r"] = list(r) if isinstance(r, tuple) else r
        return out


RiskOptions.__init__ = check_keywords(  # type: ignore[method-assign]
    RiskOptions.__init__, "RiskOptions")


def _is_default(value: Any, default: Any) -> bool:
    if isinstance(default, tuple) and not default:  # categorical/continuous: None or empty
        return value is None or (not isinstance(value, str) and len(value) == 0)
    return bool(value is default or value == default)


def matching_rules(where: str, options: RiskOptions | None,
                   given: Mapping[str, Any]) -> dict[str, Any]:
    """The matching rules of a call that takes them as keywords or as ``options=``.

    Parameters
    ----------
    where
        The public function's name (for the error message).
    options
        A :class:`RiskOptions` or None. Its ``known``, ``syn`` and ``r`` are not read: the
        call's own arguments give them.
    given
        The call's arguments (``locals()``); the :data:`MATCHING` names are read.

    Returns
    -------
    dict
        ``{name: value}`` for every name of :data:`MATCHING`, as ``identification_risk``
        keywords.

    Raises
    ------
    TypeError
        ``options`` is not a :class:`RiskOptions`, or a keyword other than its default is
        given beside ``options`` (one place says how records match).

    Examples
    --------
    >>> matching_rules("f", RiskOptions(known="a", percentage=False),
    ...                {"percentage": True})["percentage"]
    False
    """
    rules = {name: given[name] for name in MATCHING if name in given}
    if options is None:
        return rules
    if not isinstance(options, RiskOptions):
        raise TypeError(f"{where}(): options must be a RiskOptions, got "
                        f"{type(options).__name__}")
    defaults = {f.name: f.default for f in fields(RiskOptions)}
    both = [name for name, value in rules.items() if not _is_default(value, defaults[name])]
    if both:
        raise TypeError(f"{where}(): {', '.join(both)} given both as a keyword and in "
                        "options=; give the matching rules in one place")
    values = options.as_dict()
    return {name: values[name] for name in MATCHING}
