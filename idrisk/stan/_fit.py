"""The result of one Stan run: :class:`StanFit` (draws, sampler variables, diagnostics)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._result import Result


@dataclass(frozen=True, repr=False, eq=False)
class StanFit(Result):
    """Posterior draws of one Stan run.

    Attributes
    ----------
    draws : dict of str -> numpy.ndarray
        Each model variable with shape ``(chains, draws, *dims)``.
    sampler : dict of str -> numpy.ndarray
        Sampler variables (``lp__``, ``divergent__``, ``treedepth__``...), ``(chains, draws)``.
    diagnostics : pandas.DataFrame
        One row per checked scalar: ``rhat``, ``ess_bulk``.
    n_divergent : int
        Number of divergent transitions after warm-up.
    backend, program : str
        Which engine and which program produced the fit.
    seed, chains, warmup, iter_sampling : int
        The settings used.
    """

    draws: dict[str, np.ndarray]
    sampler: dict[str, np.ndarray]
    backend: str
    program: str
    seed: int
    chains: int
    warmup: int
    iter_sampling: int
    diagnostics: pd.DataFrame = field(default_factory=pd.DataFrame)
    n_divergent: int = 0
    messages: tuple[str, ...] = ()

    def summary(self) -> pd.DataFrame:
        """The convergence table: R-hat and bulk ESS of every checked scalar."""
        return self.diagnostics

    def _notes(self) -> list[str]:
        return list(self.messages)

    def _header(self) -> str:
        worst = (
            f"max R-hat {self.diagnostics['rhat'].max():.3f}, "
            f"min bulk ESS {self.diagnostics['ess_bulk'].min():.0f}"
            if len(self.diagnostics)
            else "no diagnostics"
        )
        return (
            f"StanFit(program={self.program!r}, backend={self.backend!r}, chains={self.chains}, "
            f"draws={self.iter_sampling}, warmup={self.warmup}, seed={self.seed}, "
            f"divergent={self.n_divergent}, {worst})"
        )

    @property
    def n_draws(self) -> int:
        """Total number of post-warm-up draws (all chains)."""
        return self.chains * self.iter_sampling

    def stacked(self, name: str) -> np.ndarray:
        """Draws of ``name`` with chains stacked: shape ``(chains * draws, *dims)``."""
        arr = self.draws[name]
        return arr.reshape((arr.shape[0] * arr.shape[1], *arr.shape[2:]))  # works for size 0

    def to_frame(self) -> pd.DataFrame:
        """Flat draws: one row per draw, columns ``chain``, ``draw``, ``lp__`` and scalars
        named like Stan's (``beta[1,2]``, 1-based)."""
        cols: dict[str, np.ndarray] = {
            "chain": np.repeat(np.arange(1, self.chains + 1), self.iter_sampling),
            "draw": np.tile(np.arange(1, self.iter_sampling + 1), self.chains),
        }
        if "lp__" in self.sampler:
            cols["lp__"] = self.sampler["lp__"].reshape(-1)
        for name, arr in self.draws.items():
            for label, series in _flatten_variable(name, arr):
                cols[label] = series.reshape(-1)
        return pd.DataFrame(cols)


def _flatten_variable(name: str, arr: np.ndarray):
    """``(label, draws)`` of every scalar of a variable, labelled as Stan does (1-based)."""
    dims = arr.shape[2:]
    if not dims:
        yield name, arr
        return
    for idx in np.ndindex(*dims):
        label = f"{name}[{','.join(str(i + 1) for i in idx)}]"
        yield label, arr[(slice(None), slice(None)) + tuple(idx)]
