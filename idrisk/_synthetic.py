"""``SyntheticData``: the m synthetic datasets a synthesizer made, and what made them.

Every synthesizer's ``synthesize(m, seed=None)`` (and :func:`idrisk.syn`) returns one. It
iterates and indexes like the list of m DataFrames, so it is accepted wherever a list of
synthetic frames is: :func:`idrisk.identification_risk`, the utility measures, the report and
the bounds.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast, overload

import numpy as np
import pandas as pd

from ._result import Result, frozen_update
from .exceptions import NotFittedError

__all__ = ["Synthesizer", "SyntheticData", "synthetic_frames", "synthetic_name"]


@dataclass(frozen=True, repr=False, eq=False)
class SyntheticData(Result, Sequence):
    """m synthetic datasets with their provenance.

    Parameters
    ----------
    frames
        The m synthetic DataFrames (each with the confidential data's columns and dtypes).
    method
        What made them: ``"cart"``, ``"risk-weighted"``, ``"fbs"``, ``"fbp"``, ``"dpmpm"``,
        ``"dp_areal"`` (the synthesizers' ``synthesize``), or any label of the caller's.
    seed
        The seed of the draws (None: unseeded).
    settings
        The synthesizer's parameters.
    diagnostics
        Sampler or fit diagnostics (a DataFrame, possibly empty).
    fitted
        Objects fitted while drawing, by name (CART: ``{"trees": {column: RpartTree}}``);
        empty for synthesizers whose model is fitted once in ``fit``.

    Examples
    --------
    >>> import pandas as pd
    >>> from idrisk import SyntheticData
    >>> sd = SyntheticData([pd.DataFrame({"x": [1, 2]}), pd.DataFrame({"x": [2, 2]})],
    ...                    method="example", seed=1)
    >>> len(sd), sd.m, sd[1]["x"].tolist()
    (2, 2, [2, 2])
    >>> sd.summary()["rows"].tolist()
    [2, 2]
    """

    frames: tuple[pd.DataFrame, ...]
    method: str = ""
    seed: int | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    diagnostics: pd.DataFrame = field(default_factory=pd.DataFrame)
    fitted: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        frames = tuple(self.frames)
        for j, frame in enumerate(frames):
            if not isinstance(frame, pd.DataFrame):
                raise TypeError(
                    f"SyntheticData: dataset {j + 1} is a {type(frame).__name__}, "
                    "not a pandas DataFrame"
                )
        frozen_update(self, frames=frames, settings=dict(self.settings),
                      fitted=dict(self.fitted))

    # ------------------------------------------------------------------ sequence protocol
    @property
    def m(self) -> int:
        """Number of synthetic datasets."""
        return len(self.frames)

    def __len__(self) -> int:
        return len(self.frames)

    @overload
    def __getitem__(self, j: int) -> pd.DataFrame: ...

    @overload
    def __getitem__(self, j: slice) -> SyntheticData: ...

    def __getitem__(self, j: int | slice) -> pd.DataFrame | SyntheticData:
        if isinstance(j, slice):
            return dataclasses.replace(self, frames=self.frames[j])
        return self.frames[j]

    def __iter__(self) -> Iterator[pd.DataFrame]:
        return iter(self.frames)

    # ------------------------------------------------------------------ faces
    def summary(self) -> pd.DataFrame:
        """Rows and columns of each dataset."""
        index = pd.RangeIndex(1, self.m + 1, name="dataset")
        return pd.DataFrame(
            {
                "rows": [f.shape[0] for f in self.frames],
                "columns": [f.shape[1] for f in self.frames],
            },
            index=index,
        )

    def to_frame(self) -> pd.DataFrame:
        """All m datasets stacked, with a leading ``dataset`` column (1..m)."""
        if not self.frames:
            return pd.DataFrame({"dataset": []})
        out = pd.concat(
            [df.assign(dataset=j + 1) for j, df in enumerate(self.frames)], ignore_index=True
        )
        return out[["dataset"] + [c for c in out.columns if c != "dataset"]]

    def _header(self) -> str:
        n = self.frames[0].shape[0] if self.frames else 0
        return (
            f"SyntheticData(method={self.method!r}, m={self.m}, n={n}, seed={self.seed!r})"
        )


# ------------------------------------------------------------------- the synthetic input
def synthetic_name(j: int, argument: str = "synthetic") -> str:
    """How every message names synthetic dataset j (1-based): ``synthetic dataset 2
    (synthetic[1])``."""
    return f"synthetic dataset {j} ({argument}[{j - 1}])"


def synthetic_frames(
    synthetic: Any,
    argument: str = "synthetic",
    frame_types: tuple[type, ...] = (pd.DataFrame,),
) -> list[Any]:
    """The synthetic data as a list of frames: what every measure does with its ``synthetic``.

    Accepts one DataFrame, a list/tuple (any non-text sequence or iterable) of DataFrames, or a
    :class:`SyntheticData`. ``frame_types`` widens what counts as a frame (the Dask engine
    passes ``(pandas.DataFrame, dask.dataframe.DataFrame)``). Errors name the argument and the
    dataset in one style: ``synthetic dataset 2 (synthetic[1]) is a str, expected a
    DataFrame``.

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({"x": [1]})
    >>> len(synthetic_frames(d)), len(synthetic_frames([d, d])), len(synthetic_frames((d,)))
    (1, 2, 1)
    >>> synthetic_frames([d, "x"])
    Traceback (most recent call last):
    ...
    TypeError: synthetic dataset 2 (synthetic[1]) is a str, expected a DataFrame
    """
    if isinstance(synthetic, frame_types):
        return [synthetic]
    kinds = "DataFrame" if frame_types == (pd.DataFrame,) else "pandas or dask DataFrame"
    if isinstance(synthetic, (str, bytes, Mapping, pd.Series, np.ndarray)) or not hasattr(
        synthetic, "__iter__"
    ):
        raise TypeError(
            f"{argument} must be a {kinds}, a list of them or a SyntheticData, got "
            f"{type(synthetic).__name__}"
        )
    frames = list(synthetic)
    if not frames:
        raise ValueError(f"{argument} is empty: give at least one synthetic dataset")
    for j, frame in enumerate(frames, start=1):
        if not isinstance(frame, frame_types):
            raise TypeError(
                f"{synthetic_name(j, argument)} is a {type(frame).__name__}, expected a {kinds}"
            )
    return frames


# ---------------------------------------------------------------------------- protocol


class Synthesizer:
    """Base of idrisk's synthesizers: the scikit-learn estimator protocol, for synthesis.

    The contract every synthesizer keeps (checked on all six by ``tests/test_contract.py``):

    * ``__init__`` takes keyword-only parameters, stored unchanged under their own names
      (:meth:`get_params`, :meth:`set_params`) and checked in ``fit``. The column roles are
      parameters too: ``syn`` (the synthesized column(s)), ``known`` (the intruder's known
      variables, kept as they are), ``predictors`` and, for the survey synthesizers,
      ``weight`` and ``strata``.
    * ``fit(data)`` learns from the confidential data and returns ``self``; it never changes
      a parameter. What it learns and what it resolves (the column order CART visits, the
      seed a Stan fit used, ...) is kept in attributes whose names end with ``_``.
    * ``synthesize(m=5, seed=None)`` returns a :class:`SyntheticData` of m datasets with the
      confidential data's columns and dtypes, whose ``settings`` equal :meth:`get_params`;
      ``seed=None`` draws fresh entropy from the operating system (numpy's
      ``default_rng(None)``), an integer gives the same datasets every time. Before ``fit``
      it raises :class:`idrisk.exceptions.NotFittedError`.
    * ``type(s)(**s.get_params())`` is an unfitted copy with the same parameters, and a
      fitted synthesizer pickles and unpickles to one that synthesizes the same data.

    Subclasses set ``_method`` (the name stored in :attr:`SyntheticData.method`).
    """

    _method = ""

    @classmethod
    def _param_names(cls) -> list[str]:
        names = []
        for p in inspect.signature(cls.__init__).parameters.values():
            if p.name == "self":
                continue
            if p.kind is not p.KEYWORD_ONLY:
                raise TypeError(
                    f"{cls.__name__}.__init__ must list its parameters explicitly, keyword-only"
                )
            names.append(p.name)
        return names

    def fit(self, data: pd.DataFrame) -> Synthesizer:
        """Learn from the confidential ``data``; returns ``self`` (each subclass's own)."""
        raise NotImplementedError

    def synthesize(self, m: int = 5, seed: int | None = None) -> SyntheticData:
        """m synthetic datasets (each subclass's own); ``seed=None``: fresh entropy."""
        raise NotImplementedError

    def get_params(self) -> dict[str, Any]:
        """The parameters given to ``__init__`` (scikit-learn's ``get_params``)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any):
        """Change parameters (scikit-learn's ``set_params``); returns ``self``.

        A parameter that only shapes the draws (e.g. DPMPM's ``z``) takes effect at the next
        ``synthesize``; the others at the next ``fit``.
        """
        valid = set(self._param_names())
        for key, value in params.items():
            if key not in valid:
                raise ValueError(
                    f"{type(self).__name__} has no parameter {key!r}; valid: {sorted(valid)}"
                )
            setattr(self, key, value)
        return self

    def __repr__(self) -> str:
        defaults = {
            p.name: p.default
            for p in inspect.signature(type(self).__init__).parameters.values()
        }
        parts = []
        for name, value in self.get_params().items():
            default = defaults.get(name, inspect.Parameter.empty)
            try:
                same = value is default or bool(value == default)
            except (TypeError, ValueError):
                same = False
            if not same:
                parts.append(f"{name}={value!r}")
        if not self.is_fitted:
            parts.append("not fitted")
        return f"{type(self).__name__}({', '.join(parts)})"

    @property
    def is_fitted(self) -> bool:
        """Whether :meth:`fit` has run."""
        return any(k.endswith("_") and not k.startswith("_") for k in vars(self))

    def _check_fitted(self) -> None:
        if not self.is_fitted:
            raise NotFittedError(
                f"{type(self).__name__} is not fitted: call fit(data) before synthesize()"
            )

    @staticmethod
    def _check_m(m: Any) -> int:
        if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
            raise ValueError(f"m must be a positive integer, got {m!r}")
        return int(m)

    @staticmethod
    def _check_seed(seed: Any) -> int | None:
        if seed is None:
            return None
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"seed must be an integer or None, got {seed!r}")
        return int(seed)

    def _fit_seed(self) -> int:
        """The integer seed of a fit: ``seed``, or fresh OS entropy when it is None (a
        sampler that needs an integer, such as Stan's, gets it from here)."""
        seed = self._check_seed(getattr(self, "seed", None))
        if seed is None:
            entropy = np.random.SeedSequence().entropy
            seed = int(cast(int, entropy) % (2**31 - 1))
        return seed

    def _result(self, frames, seed, diagnostics=None, **fitted) -> SyntheticData:
        """The :class:`SyntheticData` of ``frames``, with this synthesizer's parameters."""
        return SyntheticData(
            frames, method=self._method, seed=seed, settings=self.get_params(),
            diagnostics=pd.DataFrame() if diagnostics is None else diagnostics,
            fitted=fitted,
        )
