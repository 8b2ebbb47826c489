"""Convergence diagnostics of a Stan fit, the same for both engines: rank-normalised split R-hat,
bulk ESS, divergences, tree-depth saturation and E-BFMI, reported as
:class:`~idrisk.exceptions.StanConvergenceWarning`."""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from .._result import freeze_arrays, frozen_update
from ..exceptions import StanConvergenceWarning
from ._fit import StanFit, _flatten_variable

# --------------------------------------------------------------------------- diagnostics
# Rank-normalised split R-hat and bulk ESS (Vehtari, Gelman, Simpson, Carpenter & Buerkner
# 2021, "Rank-normalization, folding, and localization"), written from the paper's formulas.


def _as_chains(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.ndim == 1:
        x = x[None, :]
    if x.ndim != 2:
        raise ValueError(f"draws must have shape (chains, draws), got {x.shape}")
    return x


def _split(x: np.ndarray) -> np.ndarray:
    half = x.shape[1] // 2
    if half < 2:
        raise ValueError("need at least 4 draws per chain for split diagnostics")
    return np.concatenate([x[:, :half], x[:, x.shape[1] - half :]], axis=0)


def _z_scale(x: np.ndarray) -> np.ndarray:
    ranks = stats.rankdata(x, method="average").reshape(x.shape)
    return stats.norm.ppf((ranks - 0.375) / (x.size + 0.25))


def _rhat_basic(x: np.ndarray) -> float:
    n = x.shape[1]
    w = np.mean(np.var(x, axis=1, ddof=1))
    b = n * np.var(np.mean(x, axis=1), ddof=1)
    if w == 0:
        return float("nan") if b == 0 else float("inf")
    return float(np.sqrt(((n - 1) / n * w + b / n) / w))


def rhat(x: np.ndarray) -> float:
    """Rank-normalised split R-hat: the larger of the bulk and the folded (tail) value.

    Parameters
    ----------
    x : array, shape (chains, draws)

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> round(rhat(rng.normal(size=(4, 1000))), 2)
    1.0
    """
    x = _split(_as_chains(x))
    if np.ptp(x) == 0:
        return float("nan")
    bulk = _rhat_basic(_z_scale(x))
    folded = _rhat_basic(_z_scale(np.abs(x - np.median(x))))
    return max(bulk, folded)


def _autocov(x: np.ndarray) -> np.ndarray:
    n = x.shape[1]
    xc = x - x.mean(axis=1, keepdims=True)
    nfft = 1 << int(np.ceil(np.log2(2 * n)))
    f = np.fft.rfft(xc, n=nfft, axis=1)
    return np.fft.irfft(f * np.conj(f), n=nfft, axis=1)[:, :n] / n


def _ess(x: np.ndarray) -> float:
    m, n = x.shape
    acov = _autocov(x)
    mean_var = np.mean(acov[:, 0]) * n / (n - 1)
    var_plus = mean_var * (n - 1) / n
    if m > 1:
        var_plus += np.var(x.mean(axis=1), ddof=1)
    if var_plus == 0:
        return float("nan")
    rho = np.zeros(n)
    rho_even, rho_odd = 1.0, 1 - (mean_var - np.mean(acov[:, 1])) / var_plus
    rho[0], rho[1] = rho_even, rho_odd
    t = 1
    while t < n - 3 and rho_even + rho_odd > 0:
        rho_even = 1 - (mean_var - np.mean(acov[:, t + 1])) / var_plus
        rho_odd = 1 - (mean_var - np.mean(acov[:, t + 2])) / var_plus
        if rho_even + rho_odd >= 0:
            rho[t + 1], rho[t + 2] = rho_even, rho_odd
        t += 2
    max_t = t - 2
    if rho_even > 0:
        rho[max_t + 1] = rho_even
    t = 1  # Geyer's initial monotone sequence
    while t <= max_t - 2:
        if rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t]:
            rho[t + 1] = rho[t + 2] = (rho[t - 1] + rho[t]) / 2
        t += 2
    tau = -1 + 2 * np.sum(rho[: max_t + 1]) + np.sum(rho[max_t + 1 : max_t + 2])
    tau = max(tau, 1 / np.log10(m * n))
    return float(m * n / tau)


def ess_bulk(x: np.ndarray) -> float:
    """Bulk effective sample size (rank-normalised split chains, Geyer's monotone sequence).

    Parameters
    ----------
    x : array, shape (chains, draws)

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> 3000 < ess_bulk(rng.normal(size=(4, 1000))) < 5000
    True
    """
    x = _split(_as_chains(x))
    if np.ptp(x) == 0:
        return float("nan")
    return _ess(_z_scale(x))


def convergence_table(
    draws: Mapping[str, np.ndarray], variables: list[str] | None = None
) -> pd.DataFrame:
    """R-hat and bulk ESS of every scalar in ``draws`` (arrays ``(chains, draws, *dims)``).

    Parameters
    ----------
    draws : mapping
        Variable name to draws.
    variables : list of str, optional
        Subset to check (default all).
    """
    rows = []
    names = list(draws) if variables is None else variables
    for name in names:
        if name not in draws:
            raise KeyError(f"variable {name!r} not among the draws ({', '.join(draws)})")
        for label, series in _flatten_variable(name, np.asarray(draws[name], dtype=float)):
            rows.append({"variable": label, "rhat": rhat(series), "ess_bulk": ess_bulk(series)})
    return pd.DataFrame(rows, columns=["variable", "rhat", "ess_bulk"]).set_index("variable")


def _ebfmi(energy: np.ndarray) -> np.ndarray:
    """E-BFMI of each chain: mean squared energy change over the energy's variance."""
    energy = np.asarray(energy, dtype=float)
    num = np.mean(np.diff(energy, axis=1) ** 2, axis=1)
    return num / np.var(energy, axis=1)


def _check_convergence(fit: StanFit, check, rhat_threshold, ess_threshold,
                       max_treedepth: int | None = None) -> None:
    """Diagnostics of both backends, reported once as :class:`StanConvergenceWarning`:
    divergences, tree-depth saturation, E-BFMI < 0.3, R-hat and bulk ESS."""
    if "divergent__" in fit.sampler:
        frozen_update(fit, n_divergent=int(np.sum(fit.sampler["divergent__"])))
    table_in = dict(fit.draws)
    if "lp__" in fit.sampler:
        table_in["lp__"] = fit.sampler["lp__"]
    names = check if check is not None else list(table_in)
    frozen_update(fit, diagnostics=convergence_table(table_in, names))
    msgs = []
    if fit.n_divergent:
        msgs.append(
            f"{fit.n_divergent} divergent transitions after warm-up "
            f"({100 * fit.n_divergent / fit.n_draws:.1f}% of draws); consider a larger adapt_delta"
        )
    if max_treedepth is not None and "treedepth__" in fit.sampler:
        saturated = int(np.sum(fit.sampler["treedepth__"] >= max_treedepth))
        if saturated:
            msgs.append(
                f"{saturated} transitions hit the maximum tree depth {max_treedepth} "
                f"({100 * saturated / fit.n_draws:.1f}% of draws); consider a larger "
                "max_treedepth"
            )
    if "energy__" in fit.sampler and fit.iter_sampling > 2:
        low = [c + 1 for c, v in enumerate(_ebfmi(fit.sampler["energy__"])) if v < 0.3]
        if low:
            msgs.append(f"E-BFMI below 0.3 in chain(s) {low}: the sampler may explore poorly")
    d = fit.diagnostics
    bad_r = d.index[d["rhat"] > rhat_threshold]
    if len(bad_r):
        msgs.append(
            f"R-hat above {rhat_threshold} for {len(bad_r)} quantities "
            f"(max {d['rhat'].max():.3f} at {d['rhat'].idxmax()}); run longer chains"
        )
    bad_e = d.index[d["ess_bulk"] < ess_threshold]
    if len(bad_e):
        msgs.append(
            f"bulk ESS below {ess_threshold:.0f} for {len(bad_e)} quantities "
            f"(min {d['ess_bulk'].min():.0f} at {d['ess_bulk'].idxmin()})"
        )
    frozen_update(fit, messages=tuple(msgs))
    freeze_arrays(fit)  # the diagnostics table added here is read-only as the draws are
    for m in msgs:
        warnings.warn(f"{fit.program}: {m}", StanConvergenceWarning, stacklevel=3)
