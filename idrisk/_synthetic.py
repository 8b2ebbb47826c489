"""``SyntheticData``: the m synthetic datasets a synthesizer made, and what made them.

Every synthesizer's ``synthesize(m, seed=None)`` (and :func:`idrisk.syn`) returns one. It
iterates and indexes like the list of m DataFrames, so it is accepted wherever a list of
synthetic frames is: :func:`idrisk.identification_risk`, the utility measures, the report and
the bounds.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import pandas as pd

from ._result import Result, frozen_update

__all__ = ["SyntheticData"]


@dataclass(frozen=True, repr=False, eq=False)
class SyntheticData(Result, Sequence):
    """m synthetic datasets with their provenance.

    Parameters
    ----------
    frames
        The m synthetic DataFrames (each with the confidential data's columns and dtypes).
    method
        What made them (``"cart"``, ``"risk-weighted"``, ``"fbs"``, ``"dpmpm"``, ...).
    seed
        The seed of the draws (None: unseeded).
    settings
        The synthesizer's parameters.
    diagnostics
        Sampler or fit diagnostics (a DataFrame, possibly empty).

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

    def __post_init__(self) -> None:
        frames = tuple(self.frames)
        for j, frame in enumerate(frames):
            if not isinstance(frame, pd.DataFrame):
                raise TypeError(
                    f"SyntheticData: dataset {j + 1} is a {type(frame).__name__}, "
                    "not a pandas DataFrame"
                )
        frozen_update(self, frames=frames, settings=dict(self.settings))

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
            return SyntheticData(
                self.frames[j], method=self.method, seed=self.seed,
                settings=self.settings, diagnostics=self.diagnostics,
            )
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


def as_frames(synthetic: pd.DataFrame | Sequence[pd.DataFrame]) -> list[pd.DataFrame]:
    """A list of DataFrames from one DataFrame, a sequence of them or a SyntheticData."""
    if isinstance(synthetic, pd.DataFrame):
        return [synthetic]
    return list(synthetic)
