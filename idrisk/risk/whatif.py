"""What drives the identification risk: the expected risk, with its Monte-Carlo interval, when
the intruder's knowledge or the released data change one variable at a time.

:func:`what_if` computes, besides the baseline,

* ``drop``: each known variable in turn *not* known to the intruder;
* ``radius``: each continuous known variable known only to a coarser radius (a small grid);
* ``band``: a continuous variable released in bands of a given width (the confidential and the
  synthetic data alike: value -> lower edge of its band, matched by equality);
* ``merge``: named levels of a categorical variable merged into one before release (both data
  alike).

Every row is an ordinary :func:`idrisk.identification_risk` computation on transformed inputs:
the tool computes, it does not model. The transforms (:func:`band_values`,
:func:`merge_levels` and the option changes of :func:`variants`) are kept apart from the
computation, so that each row can be recomputed by hand.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from .._interface import spell
from .._result import Result
from .options import Radius, RiskOptions
from .precision import MEASURES, interval_note, interval_table

__all__ = ["Variant", "WhatIfResult", "band_values", "merge_levels", "variants", "what_if"]

#: the kinds of change, in the order of the table
CHANGES = ("baseline", "drop", "radius", "band", "merge")
#: radius multiples of the default grid (each continuous known variable's own radius times)
DEFAULT_MULTIPLES = (2.0, 3.0, 5.0)


# --------------------------------------------------------------------------- transforms


def band_values(values: pd.Series, width: float) -> pd.Series:
    """A continuous variable in bands of ``width``: each value becomes the lower edge of its
    band, ``floor(x / width) * width`` (missing values stay missing).

    Examples
    --------
    >>> band_values(pd.Series([-0.5, 0.0, 4999.0, 5000.0, None]), 5000).tolist()
    [-5000.0, 0.0, 0.0, 5000.0, nan]
    """
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    return pd.Series(np.floor(x / width) * width + 0.0, index=values.index, name=values.name)


def _groups(spec: Any) -> list[list[Any]]:
    """``[a, b]`` (one group) or ``[[a, b], [c, d]]`` (several) as a list of groups."""
    if isinstance(spec, (str, bytes)) or not isinstance(spec, Sequence):
        raise TypeError(f"merge: give the levels to merge as a list, got {spec!r}")
    if spec and all(isinstance(g, Sequence) and not isinstance(g, (str, bytes)) for g in spec):
        return [list(g) for g in spec]
    return [list(spec)]


def _label(group: Sequence[Any]) -> str:
    return "+".join(str(g) for g in group)


def merge_levels(values: pd.Series, groups: Any) -> pd.Series:
    """A categorical variable with each group of levels merged into one level ``"a+b"``.

    A level is named by its value or its text (``"2"`` names the level 2). Other levels and
    missing values are kept; the result is an object column.

    Examples
    --------
    >>> merge_levels(pd.Series(["1", "2", "3", None]), ["2", "3"]).tolist()
    ['1', '2+3', '2+3', nan]
    >>> merge_levels(pd.Series([1, 2, 3, 4]), [[1, 2], [3, 4]]).tolist()
    ['1+2', '1+2', '3+4', '3+4']
    """
    lookup = {}
    for group in _groups(groups):
        for g in group:
            lookup[str(g)] = _label(group)
    out = values.astype(object).map(
        lambda v: v if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA
        else lookup.get(str(v), v))
    return out.rename(values.name)


# --------------------------------------------------------------------------- variants


@dataclass(frozen=True)
class Variant:
    """One row of a what-if table: its label and the inputs of its risk computation."""

    change: str
    variable: str
    setting: str
    options: RiskOptions
    transform: Callable[[pd.DataFrame], pd.DataFrame] | None = None


def _radius_text(value: float, percentage: bool) -> str:
    return f"r = {100 * value:g}%" if percentage else f"r = {value:g}"


def variants(
    options: RiskOptions,
    radii_used: Mapping[str, float] | None,
    continuous: Sequence[str],
    categorical: Sequence[str],
    *,
    radii: Sequence[float] | None = None,
    bands: Mapping[str, float] | None = None,
    merge: Mapping[str, Any] | None = None,
) -> list[Variant]:
    """The rows of :func:`what_if` as (label, options, data transform), from the baseline's
    options, the radius per continuous column it used and its column kinds.

    Raises
    ------
    ValueError
        A variable of ``bands``/``merge`` that is not known or synthesized, a band width <= 0,
        bands of a categorical or merged levels of a continuous variable, a radius < 0.
    """
    used = list(options.variables)
    continuous, categorical = list(continuous), list(categorical)
    pct = options.percentage

    def unknown(v: str, what: str) -> ValueError:
        return ValueError(f"{spell(what)}: {v!r} is not a known or synthesized variable "
                          f"(known: {list(options.known)}, syn: {list(options.syn)})")

    def rebuilt(known: Sequence[str], r: dict[str, float] | None, *,
                extra_categorical: Sequence[str] = ()) -> RiskOptions:
        now = set(known) | set(options.syn)
        cont = [c for c in options.continuous if c in now and c not in extra_categorical]
        cat = [c for c in options.categorical if c in now] + [
            c for c in extra_categorical if c not in options.categorical]
        radius: dict[str, float] | None = None
        if r is not None:  # the baseline's radius per column, without the changed ones
            radius = {c: v for c, v in r.items() if c in now and c not in extra_categorical}
        return options.replace(known=tuple(known), r=radius or None,
                               categorical=tuple(cat), continuous=tuple(cont))

    base_r = dict(radii_used) if radii_used is not None else None
    out = [Variant("baseline", "", "as given", rebuilt(options.known, base_r))]
    for v in options.known:
        kept = [k for k in options.known if k != v]
        if not kept and not options.syn:
            continue
        out.append(Variant("drop", v, "not known", rebuilt(kept, base_r)))
    if base_r is not None:
        for v in (k for k in options.known if k in continuous):
            grid = ([base_r[v] * x for x in DEFAULT_MULTIPLES] if radii is None
                    else [float(x) for x in radii])
            if radii is None and base_r[v] == 0:
                continue
            for value in grid:
                if not np.isfinite(value) or value < 0:
                    raise ValueError(f"{spell('radii')}: a radius must be finite and >= 0, "
                                     f"got {value}")
                out.append(Variant("radius", v, _radius_text(value, pct),
                                   rebuilt(options.known, {**base_r, v: value})))
    for v, width in (bands or {}).items():
        if v not in used:
            raise unknown(v, "bands")
        if v not in continuous:
            raise ValueError(f"{spell('bands')}: {v!r} is categorical; merge its levels "
                             f"instead ({spell('merge')})")
        w = float(width)
        if not np.isfinite(w) or w <= 0:
            raise ValueError(f"{spell('bands')}: the band width of {v!r} must be > 0, "
                             f"got {width}")
        out.append(Variant("band", v, f"bands of {w:g}",
                           rebuilt(options.known, base_r, extra_categorical=[v]),
                           _column_transform(v, partial(_band, width=w))))
    for v, groups in (merge or {}).items():
        if v not in used:
            raise unknown(v, "merge")
        if v in continuous:
            raise ValueError(f"{spell('merge')}: {v!r} is continuous; give it bands instead "
                             f"({spell('bands')})")
        gs = _groups(groups)
        out.append(Variant("merge", v, "; ".join(_label(g) for g in gs),
                           rebuilt(options.known, base_r),
                           _column_transform(v, partial(_merge, groups=gs))))
    return out


def _band(values: pd.Series, width: float) -> pd.Series:
    return band_values(values, width)


def _merge(values: pd.Series, groups: list[list[Any]]) -> pd.Series:
    return merge_levels(values, groups)


def _column_transform(column: str, f: Callable[[pd.Series], pd.Series]
                      ) -> Callable[[pd.DataFrame], pd.DataFrame]:
    def transform(frame: pd.DataFrame) -> pd.DataFrame:
        out = frame.copy(deep=False)
        out[column] = f(frame[column])
        return out

    return transform


def _check_levels(confidential: pd.DataFrame, merge: Mapping[str, Any]) -> None:
    for v, groups in merge.items():
        present = {str(x) for x in pd.unique(confidential[v].dropna())}
        for g in (g for group in _groups(groups) for g in group):
            if str(g) not in present:
                raise ValueError(f"{spell('merge')}: {v!r} has no level {str(g)!r} in the "
                                 "confidential data")


# --------------------------------------------------------------------------- result


@dataclass(frozen=True, repr=False)
class WhatIfResult(Result):
    """The expected risk and its Monte-Carlo interval under each what-if change.

    Every row is :func:`idrisk.identification_risk` on transformed inputs (see
    :func:`idrisk.risk.what_if`).

    Attributes
    ----------
    table : DataFrame
        One row per change: ``change`` (``baseline``, ``drop``, ``radius``, ``band``,
        ``merge``), ``variable``, ``setting``, ``exp_risk`` (mean over the m datasets), ``se``,
        ``lower``, ``upper`` (t-interval at ``level``; NaN for m = 1) and ``difference``
        (``exp_risk`` minus the baseline's).
    datasets : DataFrame
        One row per change and synthetic dataset: ``s``, ``exp_risk``, ``true_rate``,
        ``false_rate``.
    n, m : int
        Confidential records and synthetic datasets.
    level : float
        Confidence level of the intervals.
    notes : tuple of str
        Warnings of the computations (each once) and the m = 1 note.
    seconds : float
        Time taken.
    """

    table: pd.DataFrame = field(repr=False)
    datasets: pd.DataFrame = field(repr=False)
    n: int = 0
    m: int = 0
    level: float = 0.95
    notes: tuple[str, ...] = field(default=(), repr=False)
    seconds: float = field(default=0.0, repr=False)

    def summary(self) -> pd.DataFrame:
        """The what-if table (one row per change)."""
        return self.table

    def to_frame(self) -> pd.DataFrame:
        """One row per change and synthetic dataset."""
        return self.datasets

    def _notes(self) -> list[str]:
        return [f"note: {x}" for x in self.notes] + [
            "each row is identification_risk on transformed inputs; exp_risk = expected "
            f"number of records identified, of n = {self.n}"]

    @property
    def baseline(self) -> float:
        """The baseline's expected risk (mean over the m datasets)."""
        return float(self.table.loc[self.table["change"] == "baseline", "exp_risk"].iloc[0])

    def plot(self, ax: Any = None, *, title: str | None = None) -> Any:
        """A tornado chart: each change's expected risk (dot, with its interval) against the
        baseline (vertical line and band), the largest change at the top.

        Returns the :class:`~matplotlib.axes.Axes`.
        """
        from .._plotting import PALETTE, new_axes

        t = self.table[self.table["change"] != "baseline"].copy()
        t = t.iloc[np.argsort(-np.abs(t["difference"].to_numpy()), kind="stable")][::-1]
        ax = new_axes(ax, figsize=(8.6, max(4.4, 1.0 + 0.32 * len(t))))
        colors = {c: PALETTE[k] for k, c in enumerate(CHANGES)}
        base = self.table[self.table["change"] == "baseline"].iloc[0]
        if np.isfinite(base["lower"]):
            ax.axvspan(base["lower"], base["upper"], color="#bbbbbb", alpha=0.35, lw=0,
                       label=f"baseline {100 * self.level:g}% interval")
        ax.axvline(base["exp_risk"], color="#333333", lw=1.2, label="baseline")
        y = np.arange(len(t))
        whiskers = False
        for change in CHANGES[1:]:
            sel = (t["change"] == change).to_numpy()
            if not sel.any():
                continue
            rows = t[sel]
            ax.barh(y[sel], rows["difference"], left=base["exp_risk"], height=0.6,
                    color=colors[change], alpha=0.55, label=_CHANGE_NAMES[change])
            if rows["lower"].notna().any():
                err = np.vstack([rows["exp_risk"] - rows["lower"],
                                 rows["upper"] - rows["exp_risk"]])
                ax.errorbar(rows["exp_risk"], y[sel], xerr=err, fmt="o", ms=3,
                            color=colors[change], capsize=2,
                            label=None if whiskers else f"{100 * self.level:g}% interval")
                whiskers = True
        ax.set_yticks(y, [f"{v}: {s}" for v, s in zip(t["variable"], t["setting"],
                                                      strict=True)])
        ax.set_xlabel(f"expected risk (records identified, of n = {self.n}); "
                      f"mean over m = {self.m} datasets")
        ax.set_title(title or "What drives the identification risk (one change at a time)")
        ax.legend(loc="best", fontsize="small")
        return ax


_CHANGE_NAMES = {"drop": "variable not known", "radius": "known to a coarser radius",
                 "band": "released in bands", "merge": "levels merged before release"}


# --------------------------------------------------------------------------- the call


def _frames(synthetic: Any) -> list[pd.DataFrame]:
    if isinstance(synthetic, pd.DataFrame):
        return [synthetic]
    return list(synthetic)


def what_if(
    confidential: pd.DataFrame,
    synthetic: Any,
    known: str | Sequence[str] = (),
    syn: str | Sequence[str] = (),
    r: Radius = None,
    *,
    radii: Sequence[float] | None = None,
    bands: Mapping[str, float] | None = None,
    merge: Mapping[str, Any] | None = None,
    level: float = 0.95,
    options: RiskOptions | None = None,
    n_jobs: int | None = None,
) -> WhatIfResult:
    """The expected risk and its Monte-Carlo interval when one thing changes at a time.

    Rows: the baseline; each known variable not known (``drop``); each continuous known
    variable known only to the radii of ``radii`` (``radius``); each variable of ``bands``
    released in bands of the given width (``band``); each variable of ``merge`` released with
    the named levels merged (``merge``). Band and merge transforms apply to the confidential
    and every synthetic dataset alike.

    Every row is an ordinary :func:`~idrisk.identification_risk` computation on transformed
    inputs, nothing is modelled: ``drop`` removes the variable from ``known``; ``radius``
    replaces that variable's radius (``r`` as a ``{column: radius}`` dict of the baseline's
    radii); ``band`` replaces the variable by ``band_values`` and matches it as a category
    (by equality of the band; a missing value then never matches); ``merge`` replaces it by
    ``merge_levels`` (both in ``idrisk.risk.whatif``).

    Parameters
    ----------
    confidential, synthetic, known, syn, r
        As :func:`~idrisk.identification_risk` (the baseline).
    radii
        The radius grid of the ``radius`` rows, for every continuous known variable (default:
        2, 3 and 5 times the variable's own radius).
    bands
        ``{variable: band width}`` for continuous known or synthesized variables.
    merge
        ``{variable: levels}``: a list of levels merged into one, or a list of such lists.
    level
        Confidence level of the Monte-Carlo intervals (t-intervals over the m datasets; NaN
        when m = 1).
    options
        The other matching rules as a :class:`~idrisk.RiskOptions` (``percentage``,
        ``closed``, ...); its ``known``/``syn``/``r`` are replaced by the arguments given.
    n_jobs
        As :func:`~idrisk.identification_risk`.

    Returns
    -------
    WhatIfResult
        ``summary()`` (one row per change), ``to_frame()`` (per dataset), ``plot()``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from idrisk.risk import what_if
    >>> rng = np.random.default_rng(1)
    >>> conf = pd.DataFrame({"Sex": rng.choice(["F", "M"], 50),
    ...                      "Age": rng.integers(20, 60, 50).astype(float),
    ...                      "Income": rng.uniform(10, 100, 50)})
    >>> syns = [conf.assign(Income=conf.Income + rng.normal(0, 3, 50)) for _ in range(4)]
    >>> res = what_if(conf, syns, known=["Sex", "Age"], syn="Income", r=0.1,
    ...               radii=[0.2], bands={"Income": 20})
    >>> res.summary()[["change", "variable", "setting"]]
         change variable      setting
    0  baseline              as given
    1      drop      Sex    not known
    2      drop      Age    not known
    3    radius      Age      r = 20%
    4      band   Income  bands of 20
    >>> res.summary().loc[1, "known"]  # Sex not known: matched on Age and Income
    'Age'
    """
    import time

    from .identification import risk_from_options
    from .prepared import prepare

    t0 = time.perf_counter()
    if options is None:
        base = RiskOptions(known=known, syn=syn, r=r)
    else:
        given: dict[str, Any] = {}
        if len(known):
            given["known"] = known
        if len(syn):
            given["syn"] = syn
        if r is not None:
            given["r"] = r
        base = options.replace(**given)
    if merge:
        for v in merge:
            if v not in base.variables:
                raise ValueError(f"{spell('merge')}: {v!r} is not a known or synthesized "
                                 "variable "
                                 f"(known: {list(base.known)}, syn: {list(base.syn)})")
        _check_levels(confidential, merge)
    frames = _frames(synthetic)
    notes: list[str] = []

    def compute(conf: pd.DataFrame, syns: list[pd.DataFrame], opts: RiskOptions):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the baseline's warnings, with other counts
            return risk_from_options(conf, syns, opts, n_jobs=n_jobs)

    # the baseline's inputs are read once: rows that change only the radius count them again
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        baseline = prepare(confidential, frames, base)
        first = baseline.count(options=base, n_jobs=n_jobs)
    notes.extend(f"baseline: {w.message}" for w in caught)
    rows = variants(base, first.r, first.continuous, first.categorical, radii=radii,
                    bands=bands, merge=merge)
    records, per_dataset = [], []
    for k, row in enumerate(rows):
        if k == 0:  # the baseline (its options name the radius per column: the same call)
            res = first
        elif row.transform is None and not baseline.changed(row.options):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = baseline.count(options=row.options, n_jobs=n_jobs)
        elif row.transform is None:
            res = compute(confidential, frames, row.options)
        else:
            res = compute(row.transform(confidential), [row.transform(f) for f in frames],
                          row.options)
        values = res.to_frame("dataset").astype(float)
        it = interval_table(values[list(MEASURES)], level).loc["exp_risk"]
        records.append({"change": row.change, "variable": row.variable,
                        "setting": row.setting, "known": ", ".join(row.options.known),
                        "exp_risk": it["mean"], "se": it["se"], "lower": it["lower"],
                        "upper": it["upper"]})
        per_dataset.append(values.reset_index().assign(
            change=row.change, variable=row.variable, setting=row.setting))
    table = pd.DataFrame(records)
    table["difference"] = table["exp_risk"] - table["exp_risk"].iloc[0]
    datasets = pd.concat(per_dataset, ignore_index=True)
    datasets = datasets[["change", "variable", "setting", "dataset", *MEASURES]]
    note = interval_note(first.m)
    if note:
        notes.append(note)
    return WhatIfResult(table=table, datasets=datasets, n=first.n, m=first.m,
                        level=float(level), notes=tuple(dict.fromkeys(notes)),
                        seconds=time.perf_counter() - t0)
