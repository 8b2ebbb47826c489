"""synthpop-style CART partial synthesis (``synthpop::syn`` with ``method = "cart"``).

:class:`CARTSynthesizer` (and :func:`syn`, synthpop's function shape) replaces the columns
named in ``syn`` (synthpop's ``visit.sequence``) one after another:
the first with an i.i.d. bootstrap of its values (``"sample"``), every later one
by donor sampling inside the leaves of an rpart-compatible tree
(:class:`idrisk.synthesis.rpart_tree.RpartTree`) fitted on the original data with the earlier
visit-sequence columns as predictors, routed with their *synthetic* values.
All other columns are copied row for row (row i stays record i).

Missing values follow synthpop (spec 5.6, :mod:`idrisk.synthesis._missing`): factors get an
extra ``"NAtemp"`` level; numeric predictors (and numeric CART targets) with NAs are split into a
value column and a missing-indicator factor; a synthesised one has its indicator drawn first and
its values drawn, from the observed rows only, for the rows drawn as observed.
``smoothing="density"`` adds synthpop's kernel noise to synthesised numeric values
(:func:`smooth_density`).

With ``rng="r"`` every random draw goes through :class:`idrisk.synthesis.rng.RStream` in
synthpop's order, so the same integer seed gives synthpop's output value for
value (checked against synthpop 1.9-3 / rpart 4.1.19). With ``rng="numpy"`` the
same algorithm runs on numpy's PCG64 generator: same distribution, different
values, and rpart's cross-validation draws are not emulated.

:func:`syn_r` (behind :func:`idrisk.r.syn`) has synthpop's signature and returns R's
``synds`` layout (:class:`Synds`: ``.syn`` is a data frame for ``m = 1`` and a list
otherwise) -- the R-side object; its ``.result`` is the :class:`~idrisk.SyntheticData`.

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0] * 10, "b": list(range(40))})
>>> cart = CARTSynthesizer(syn=["a"]).fit(df)
>>> res = cart.synthesize(m=2, seed=1)
>>> res.m, res.method, cart.methods_
(2, 'cart', {'a': 'sample', 'b': ''})
>>> bool((res[0]["b"] == df["b"]).all())   # kept column copied
True
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from .._progress import progress_bar
from .._result import Result
from .._schema import is_categorical
from .._stack import user_stacklevel
from .._synthetic import Synthesizer, SyntheticData
from ..exceptions import InfiniteValuesWarning, InputError
from ._collinear import derive_collinear, drop_dependent_predictors, first_match
from ._donors import _LeafDonors, _walk_to_leaves
from ._minlevels import as_numbers, one_value_factors
from ._missing import drawn_observed, pad_missing
from ._route_table import RouteTable
from .rng import NumpyStream, RStream, make_stream
from .rpart_tree import RpartTree
from .smoothing import bw_sj, smooth_density

__all__ = ["CARTSynthesizer", "Synds", "bw_sj", "smooth_density", "syn", "syn_r"]

_METHODS = ("sample", "cart", "constant", "")


@dataclass(frozen=True, repr=False)
class Synds(Result):
    """synthpop's ``synds`` object (R's names and shapes), as returned by :func:`syn_r` and
    :func:`idrisk.r.syn`: the R-side view. ``result`` is the :class:`~idrisk.SyntheticData`
    the Python API returns."""

    syn: pd.DataFrame | list[pd.DataFrame]
    seed: int | None
    m: int
    method: pd.Series
    visit_sequence: pd.Series
    predictor_matrix: pd.DataFrame
    proper: bool
    n: int
    k: int
    smoothing: pd.Series
    result: SyntheticData = field(repr=False)

    def summary(self) -> pd.DataFrame:
        """Per visited column: its 1-based position and method (R's ``visit.sequence``,
        ``method``)."""
        vs = self.visit_sequence
        return pd.DataFrame({"position": vs.to_numpy(),
                             "method": self.method.reindex(vs.index).to_numpy()},
                            index=pd.Index(vs.index, name="variable"))

    def to_frame(self) -> pd.DataFrame:
        """All datasets stacked with a ``dataset`` column (1..m)."""
        return self.result.to_frame()

    def _header(self) -> str:
        return (
            f"Synds(m={self.m}, n={self.n}, seed={self.seed}, proper={self.proper}, "
            f"visit_sequence={list(self.visit_sequence.index)})"
        )


# ------------------------------------------------------------------------- set-up
def _visit_names(data: pd.DataFrame, visit_sequence, name: str = "syn") -> list[str]:
    cols = list(data.columns)
    if visit_sequence is None:
        return cols
    if isinstance(visit_sequence, (str, int)):
        visit_sequence = [visit_sequence]
    names = []
    for v in visit_sequence:
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            if not 1 <= int(v) <= len(cols):
                raise ValueError(f"{name} index {v} outside 1..{len(cols)}")
            names.append(cols[int(v) - 1])
        elif v in cols:
            names.append(cols[cols.index(v)])  # the data's own label (not a numpy string)
        else:
            raise ValueError(f"{name} entry {v!r} is not a column of data")
    dup = sorted({v for v in names if names.count(v) > 1})
    if dup:
        raise ValueError(f"{name} repeats {dup}")
    if not names:
        raise ValueError(f"{name} is empty")
    return names


def _is_constant(col: pd.Series) -> bool:
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iuf":  # numbers: no pandas
        x = col.to_numpy(dtype=float)
        return _no_spread(x[~np.isnan(x)])
    vals = col.dropna()
    if vals.empty:
        return True
    if is_categorical(col):
        return vals.nunique() == 1 and not col.isna().any()
    return _no_spread(vals.to_numpy(dtype=float))


def _no_spread(x: np.ndarray) -> bool:
    """The numeric part of synthpop's constant rule: fewer than two values, or a variance
    below 1000 machine epsilons, or no variance at all (R's ``var`` is NaN when ``x`` holds
    ``Inf`` or ``-Inf``)."""
    if x.size < 2:
        return True
    with np.errstate(invalid="ignore"):
        v = np.var(x, ddof=1)
    return bool(np.isnan(v) or v < 1000 * np.finfo(float).eps)


def _warn_if_infinite(col: pd.Series, name) -> None:
    """Warn that ``col`` (found constant) is constant only because it holds ``Inf``/``-Inf``."""
    if isinstance(col.dtype, np.dtype) and col.dtype.kind == "f" and np.isinf(col).any():
        warnings.warn(
            f"column {name!r} holds Inf or -Inf, so its variance is NaN and synthpop's syn treats "
            "it as constant: it is copied unchanged into every synthetic dataset (its "
            "confidential values are released) and is used by no tree. Replace the infinite "
            "values (e.g. by NA) to synthesize the column.",
            InfiniteValuesWarning, stacklevel=user_stacklevel())


def _methods(data, vs, method) -> dict[str, str]:
    cols = list(data.columns)
    if isinstance(method, str):
        out = {c: (method if c in vs else "") for c in cols}
        out[vs[0]] = "sample"
    elif isinstance(method, dict):
        bad = [c for c in method if c not in cols]
        if bad:
            raise ValueError(f"method names unknown column(s) {bad}")
        out = {c: (method.get(c, "cart") if c in vs else "") for c in cols}
    else:
        method = list(method)
        if len(method) != len(cols):
            raise ValueError(f"method must be a string, a dict or {len(cols)} strings")
        out = {c: (mt if c in vs else "") for c, mt in zip(cols, method)}
    for c, mt in out.items():
        if mt not in _METHODS:
            raise ValueError(f"method {mt!r} for column {c!r} is not supported; use "
                             "'cart', 'sample' or ''")
        if c in vs and mt == "":
            raise ValueError(f"column {c!r} is in syn but has method ''")
    return out


def _predictor_matrix(data, vs, methods, predictor_matrix) -> pd.DataFrame:
    cols = list(data.columns)
    pos = {c: i for i, c in enumerate(cols)}
    pm = np.zeros((len(cols), len(cols)), dtype=np.int64)
    if predictor_matrix is None:
        for j, v in enumerate(vs):
            for u in vs[:j]:
                pm[pos[v], pos[u]] = 1
    else:
        given = np.asarray(pd.DataFrame(predictor_matrix))
        if given.shape != pm.shape:
            raise ValueError(f"predictor_matrix must be {len(cols)} x {len(cols)} "
                             f"(one row and column per data column), got {given.shape}")
        pm[:, :] = given != 0  # by position
        for j, v in enumerate(vs):  # later visit-sequence variables cannot predict
            for u in vs[j:]:
                pm[pos[v], pos[u]] = 0
    for c in cols:
        if methods[c] in ("", "sample", "constant"):
            pm[pos[c], :] = 0
    for c in cols:
        if methods[c] == "constant":
            pm[:, pos[c]] = 0
    return pd.DataFrame(pm, index=cols, columns=cols)


def _values(col: pd.Series):
    """The array behind ``col``: a numpy array, or the extension array (e.g. Categorical)."""
    return col.to_numpy(copy=False) if isinstance(col.dtype, np.dtype) else col.array


def _as_output(values: np.ndarray, like: pd.Series):
    """``values`` as an array of ``like``'s dtype (categories kept)."""
    if values.dtype == like.dtype:  # a numpy dtype: nothing to convert
        return values
    if isinstance(like.dtype, pd.CategoricalDtype):
        return pd.Categorical(values, categories=like.cat.categories, ordered=like.cat.ordered)
    return _values(pd.Series(values).astype(like.dtype))


def _take(col: pd.Series, pos: np.ndarray):
    """``col``'s values at positions ``pos``, as an array of ``col``'s dtype."""
    if isinstance(col.dtype, pd.CategoricalDtype):  # by codes: no label look-ups
        codes = np.asarray(col.array.codes)[pos]
        return pd.Categorical.from_codes(codes, dtype=col.dtype, validate=False)
    return _values(col)[pos]


class _Synthesizer:
    def __init__(self, data, vs, methods, pm, minbucket, cp, proper, stream, smoothing=None,
                 m=1, indicators=None, observed_rows=None):
        self.smoothing = smoothing or {}
        self.indicators: dict[str, str] = indicators or {}  # padded column -> its NA indicator
        # a synthesised padded column -> the data rows where it is observed
        self.observed_rows: dict[str, np.ndarray] = observed_rows or {}
        self.data = data
        self.vs = vs
        self.methods = methods
        self.pm = pm
        self.minbucket = minbucket
        self.cp = cp
        self.proper = proper
        self.stream = stream
        self.n = len(data)
        self.trees: dict[str, RpartTree] = {}
        self._donors: dict[str, _LeafDonors] = {}
        self._routes: dict[str, RouteTable | None] = {}
        self._row_codes: dict[tuple[str, str], np.ndarray] = {}  # cell codes of the data's rows
        self._encoders: dict[tuple[str, str], tuple[pd.Index, bool, np.ndarray]] = {}
        self.m = m
        self._preds = {v: list(data.columns[pm.loc[v].to_numpy() != 0]) for v in vs}
        self._columns = {c: data[c] for c in data.columns}
        self._base = {c: _values(col) for c, col in self._columns.items()}

    def replicate(self) -> pd.DataFrame:
        """One synthetic dataset: the visited columns drawn in order, the others copied."""
        cols = dict(self._base)
        rows: dict[str, np.ndarray] = {}  # a drawn column's values are the data's at these rows
        for v in self.vs:
            mt = self.methods[v]
            if mt == "constant":  # synthpop's "constant" keeps the column as it is
                cols[v] = _values(self._columns[v]).copy()
                continue
            if mt == "collinear":  # from the column it is collinear with: no random draws
                cols[v] = self._collinear(v, cols)
                rows.pop(v, None)
                continue
            if mt not in ("sample", "cart"):
                continue
            # a padded column: drawn for the rows whose indicator was drawn as observed
            target = (drawn_observed(cols[self.indicators[v]]) if v in self.observed_rows
                      else None)
            if mt == "sample":
                values, src, yobs = self._sample(v, target)
            else:
                values, src, yobs = self._cart(v, cols, rows, target)
            if self.smoothing.get(v) == "density" and len(values):
                try:
                    smoothed = smooth_density(np.asarray(values, dtype=float),
                                              np.asarray(yobs, dtype=float), self.stream)
                except InputError as err:
                    raise InputError(f"column {v!r}: {err}", column=str(v)) from err
                values, src = _as_output(smoothed, self._columns[v]), None
            if target is not None:  # the rows drawn as missing get synthpop's 0
                full = np.zeros(self.n)
                full[target] = values
                values, src = _as_output(full, self._columns[v]), None
            cols[v] = values
            if src is None:
                rows.pop(v, None)
            else:
                rows[v] = src
        arrays = [cols[c] if cols[c] is not self._base[c] else cols[c].copy()
                  for c in self.data.columns]
        return pd.DataFrame(dict(zip(self.data.columns, arrays)), index=self.data.index,
                            columns=self.data.columns, copy=False)

    def _collinear(self, v: str, cols: dict):
        """synthpop's method ``"collinear"``: ``v``'s value in the first data row whose value
        of its (first) predictor equals the row's synthetic one; NA where none does."""
        key = self._preds[v][0]
        pos = first_match(cols[key], self._base[key])
        col = self._columns[v]
        if (pos >= 0).all():
            return _take(col, pos)
        if isinstance(col.dtype, pd.CategoricalDtype) or is_categorical(col):
            values = pd.Series(_take(col, np.maximum(pos, 0))).astype(object).to_numpy()
            values[pos < 0] = None
            return _as_output(values, col) if isinstance(col.dtype, pd.CategoricalDtype) \
                else values
        values = col.to_numpy(dtype=float)[np.maximum(pos, 0)]
        values[pos < 0] = np.nan
        return values if col.dtype.kind in "iub" else _as_output(values, col)

    def _sample(self, v: str, target: np.ndarray | None) -> tuple:
        """The bootstrap of ``v`` (of its observed rows, for the ``target`` rows, when padded):
        (values, the data rows they are from, the values sampled from)."""
        src = self.observed_rows.get(v) if target is not None else None
        n_src = self.n if src is None else src.size
        size = self.n if target is None else target.size
        pos = np.arange(n_src)
        if self.proper:
            pos = self.stream.unif_index(n_src, n_src)
        pool = pos if src is None else src[pos]  # data rows of the (bootstrapped) sample
        rows = pool[self.stream.unif_index(n_src, size)]
        col = self._columns[v]
        return _take(col, rows), rows, _values(col)[pool]

    def _fit(self, v: str) -> tuple[RpartTree, pd.Series]:
        """The tree for ``v`` (fitted now, or the cached one) and the response it was fitted on.

        The random draws are consumed as synthpop does: the bootstrap (``proper``),
        then rpart's cross-validation groups (also for a cached tree).
        """
        y = self._columns[v]
        fit_rows = self.observed_rows.get(v)
        if fit_rows is not None:  # a padded column: its observed rows only
            y = y.iloc[fit_rows].reset_index(drop=True)
        tree = None if self.proper else self.trees.get(v)
        if tree is not None:  # cached tree: still consume rpart's cross-validation draws
            self.stream.skip_permutation(tree.where_.size)
            return tree, y
        x = self.data[self._preds[v]]  # (not for a cached tree: a frame per call costs)
        if fit_rows is not None:
            x = x.iloc[fit_rows].reset_index(drop=True)
        if self.proper:
            boot = self.stream.unif_index(len(y), len(y))
            x = x.iloc[boot].reset_index(drop=True)
            y = y.iloc[boot].reset_index(drop=True)
        try:
            tree = RpartTree("class" if is_categorical(y) else "anova",
                             minbucket=self.minbucket, cp=self.cp).fit(x, y, rng=self.stream)
        except InputError as err:  # one class left: synthpop's syn stops (rpart's error)
            col = next((c for c, ind in self.indicators.items() if ind == v), v)
            what = " (its missing-value indicator)" if col != v else ""
            boot = " in the bootstrap (proper=True)" if self.proper else ""
            raise InputError(f"column {col!r}{what}{boot}: {err}; synthpop's syn stops there "
                             "too", column=str(col)) from err
        if not self.proper:
            self.trees[v] = tree
        return tree, y

    def _leaf_donors(self, v: str, tree: RpartTree, y: pd.Series) -> _LeafDonors:
        donors = self._donors.get(v)
        if donors is None or self.proper:
            if len(tree.fit_index_) == len(y):  # every row was fitted
                values = y.to_numpy()
            else:
                values = y.loc[tree.fit_index_].to_numpy()
            donors = _LeafDonors(tree, values)
            if not self.proper:
                self._donors[v] = donors
        return donors

    def _route(self, v: str, tree: RpartTree, current: dict, rows: dict) -> np.ndarray:
        """The nodes of the current rows in ``v``'s tree. When the tree serves several
        datasets and has at most n cells, by its :class:`RouteTable` (built once): the cell
        codes of a predictor drawn from the data's rows are the codes of those rows (computed
        once), the others' from their values. Else by walking the tree."""
        preds = self._preds[v]
        if v not in self._routes:
            many = not self.proper and self.m > 1
            self._routes[v] = RouteTable.build(tree, max_cells=self.n) if many else None
        table = self._routes[v]
        if table is None:
            xm = np.empty((self.n, len(preds)))
            for j, c in enumerate(preds):
                xm[:, j] = self._encode(v, tree, c, current[c])
            return tree.apply_encoded(xm)
        codes = []
        for j, c in enumerate(preds):
            if c in rows:
                key = (v, c)
                if key not in self._row_codes:
                    self._row_codes[key] = table.codes(j, self._encode(v, tree, c,
                                                                       self._base[c]))
                codes.append(self._row_codes[key][rows[c]])
            else:
                codes.append(table.codes(j, self._encode(v, tree, c, current[c])))
        return table.nodes(codes)

    def _encode(self, v: str, tree: RpartTree, c: str, values) -> np.ndarray:
        """Predictor ``c`` of ``v``'s tree encoded as :meth:`RpartTree.encode_column` does
        it: a categorical column of the data's categories through a code look-up built once
        (code -1, missing, picks the last entry: NaN)."""
        if not isinstance(values, pd.Categorical):
            if tree.levels_[c] is None and isinstance(values, np.ndarray):
                return values.astype(float, copy=False)  # numeric: the values themselves
            return tree.encode_column(c, pd.Series(values))
        known = self._encoders.get((v, c))
        if known is None or not (known[0].equals(values.categories)
                                 and known[1] == values.ordered):
            cats = pd.Series(pd.Categorical.from_codes(np.arange(len(values.categories)),
                                                       dtype=values.dtype))
            try:
                lut = np.append(tree.encode_column(c, cats), np.nan)
            except ValueError:  # a category the tree never saw: the rows decide
                return tree.encode_column(c, pd.Series(values))
            known = (values.categories, values.ordered, lut)
            self._encoders[(v, c)] = known
        return known[2][np.asarray(values.codes)]

    def _cart(self, v: str, current: dict, rows: dict, target: np.ndarray | None) -> tuple:
        """``v`` drawn by its tree (for the ``target`` rows only, when given): (values, the
        data rows they are from or None, the response the tree was fitted on)."""
        tree, y = self._fit(v)
        nodes = self._route(v, tree, current, rows)
        if target is not None:
            nodes = nodes[target]
        if tree.method == "anova":
            donors = self._leaf_donors(v, tree, y)
            if not donors.all_leaves(nodes):
                nodes = _walk_to_leaves(nodes, tree, self.stream)
            pos = donors.positions(nodes, self.stream)
            out = _as_output(donors.values[pos], self._columns[v])
            every_row = not self.proper and len(tree.fit_index_) == self.n and target is None
            return out, (pos if every_row else None), y
        probs = tree.node_probabilities().loc[nodes].to_numpy()
        pick = self.stream.weighted_choice(probs)
        labels = np.asarray(tree.classes_, dtype=object)[pick]
        if pd.api.types.is_bool_dtype(self._columns[v]):
            return labels.astype(bool), None, y
        return _as_output(labels, self._columns[v]), None, y


# ----------------------------------------------------------------------- smoothing
_SMOOTHERS = ("", "density", "spline", "rmean")


def _smoothing_map(data: pd.DataFrame, vs, smoothing) -> dict[str, str]:
    """synthpop's ``smoothing``: one string for all, or per variable (dict)."""
    if smoothing is None:
        smoothing = ""
    if isinstance(smoothing, str):
        out = {c: smoothing for c in vs}
    elif isinstance(smoothing, dict):
        bad = [c for c in smoothing if c not in data.columns]
        if bad:
            raise ValueError(f"smoothing names unknown column(s) {bad}")
        out = {c: (smoothing.get(c) or "") for c in vs}
    else:
        raise TypeError("smoothing must be None, a string or a dict {column: method}")
    for c, sm in out.items():
        if sm not in _SMOOTHERS:
            raise ValueError(f"smoothing {sm!r} for column {c!r}: expected one of "
                             "'density', 'spline', 'rmean' or ''")
        if sm in ("spline", "rmean"):
            raise NotImplementedError(
                f"smoothing={sm!r} (column {c!r}) is not implemented; use 'density'")
    # smoothing applies to numeric variables only (synthpop sets "" for the others)
    return {c: sm for c, sm in out.items() if sm and not is_categorical(data[c])}


def _check_collinear_supported(data: pd.DataFrame, vs: list[str], methods: dict[str, str],
                               pm: pd.DataFrame) -> None:
    """Refuse the two collinear cases whose synthpop answer idrisk does not reproduce."""
    for c in vs:
        if methods[c] == "collinear" and not is_categorical(data[c]) and data[c].isna().any():
            raise NotImplementedError(
                f"column {c!r} is collinear with an earlier column and has missing values: "
                "synthpop then synthesises its missing-value indicator by logistic regression "
                "('logreg'), which idrisk does not implement. Drop the copy or fill its NAs.")
        if methods[c] == "cart" and pm.loc[c].sum() == 0:
            raise NotImplementedError(
                f"column {c!r} has no predictor left after its collinear predictors were "
                "derived: synthpop then grows a tree without predictors, which idrisk does "
                "not implement. Give it other predictors in predictor_matrix.")


class CARTSynthesizer(Synthesizer):
    """synthpop's CART (partial) synthesis as an estimator: ``fit(data)``, ``synthesize(m, seed)``.

    The same algorithm and draws as :func:`syn` (``CARTSynthesizer(syn=..., ...).fit(data)
    .synthesize(m, seed)`` equals ``syn(data, m, syn=..., seed=seed, ...)`` value for value).
    ``fit`` resolves synthpop's settings (methods, visit sequence, predictor matrix,
    smoothing, missing-value padding); the trees are grown while drawing, from the seeded
    stream, as synthpop does.

    Parameters
    ----------
    syn : sequence of str (or 1-based int), optional
        Columns to synthesise, in order (synthpop's ``visit.sequence``); default all
        columns. Others are kept.
    method : str, dict or sequence
        ``"cart"`` (default): the first visit-sequence column gets ``"sample"``.
        A dict maps columns to ``"cart"`` / ``"sample"``.
    minbucket, cp : int, float
        rpart controls (``minsplit = 3 * minbucket``).
    proper : bool
        Bootstrap the confidential rows before each fit (and before sampling).
    smoothing : None, str or dict
        ``None`` (synthpop's default): no smoothing. ``"density"`` for every synthesised
        numeric column, or a dict ``{column: "density"}`` (synthpop's named list). See
        :func:`smooth_density`. ``"spline"`` and ``"rmean"`` raise
        :class:`NotImplementedError`.
    predictor_matrix : pandas.DataFrame, optional
        p x p 0/1 matrix (row = target); default: earlier visit-sequence columns.
        Entries pointing to later visit-sequence columns are set to 0.
    rng : {"r", "numpy"}
        ``"r"``: R-identical stream; ``"numpy"``: faster numpy stream.
    progress : bool, optional
        Show a tqdm bar over replicates (default: when m > 1 and stderr is a tty).

    Attributes
    ----------
    syn_ : list of str
        The columns synthesised, in visiting order.
    methods_ : dict
        Column -> ``"sample"``, ``"cart"``, ``"constant"``, ``"collinear"`` (derived from the
        earliest column it is collinear with, as synthpop) or ``""`` (kept).
    predictor_matrix_ : pandas.DataFrame
        Row = target, column = predictor, 1 = used.
    smoothing_ : dict
        Column -> smoothing of the synthesised numeric columns.
    data_ : pandas.DataFrame
        The confidential data.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [float(i % 7) for i in range(60)],
    ...                    "y": [float(i) for i in range(60)]})
    >>> cart = CARTSynthesizer(syn=["x", "y"]).fit(df)
    >>> cart.methods_
    {'x': 'sample', 'y': 'cart'}
    >>> out = cart.synthesize(m=2, seed=3)
    >>> out.m, list(out[0].columns), out.seed
    (2, ['x', 'y'], 3)
    """

    _method = "cart"

    def __init__(
        self,
        *,
        syn: Sequence[str] | None = None,
        method: str | dict | Sequence[str] = "cart",
        minbucket: int = 5,
        cp: float = 1e-8,
        proper: bool = False,
        smoothing: str | dict | None = None,
        predictor_matrix: pd.DataFrame | None = None,
        rng: Literal["r", "numpy"] = "r",
        progress: bool | None = None,
    ) -> None:
        self.syn = syn
        self.method = method
        self.minbucket = minbucket
        self.cp = cp
        self.proper = proper
        self.smoothing = smoothing
        self.predictor_matrix = predictor_matrix
        self.rng = rng
        self.progress = progress

    def fit(self, data: pd.DataFrame) -> CARTSynthesizer:
        """Resolve synthpop's settings for ``data`` (the confidential data).

        Categorical / string / bool columns are factors (the package's rule).
        """
        if not isinstance(data, pd.DataFrame):
            raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
        if len(data) == 0:
            raise ValueError("data has no rows")
        if not data.columns.is_unique:
            twice = sorted({str(c) for c in data.columns[data.columns.duplicated()]})
            raise ValueError(f"data has more than one column named {twice}")
        if self.rng not in ("r", "numpy"):
            raise ValueError(f"rng must be 'r' or 'numpy', got {self.rng!r}")
        vs = _visit_names(data, self.syn)
        methods = _methods(data, vs, self.method)
        original, (data, self._factored) = data, one_value_factors(
            data, methods, _predictor_matrix(data, vs, methods, self.predictor_matrix))
        smooth = _smoothing_map(data, vs, self.smoothing)
        for c in vs:
            if _is_constant(data[c]):
                methods[c] = "constant"
                _warn_if_infinite(data[c], c)
        pm = _predictor_matrix(data, vs, methods, self.predictor_matrix)
        for c in pm.columns[pm.to_numpy().any(axis=0)]:  # synthpop drops constant predictors
            if c not in vs and _is_constant(data[c]):
                pm[c] = 0
                _warn_if_infinite(data[c], c)
        for c in vs:  # an empty predictor row means "sample"
            if methods[c] == "cart" and pm.loc[c].sum() == 0:
                methods[c] = "sample"
        derive_collinear(data, vs, methods, pm)
        _check_collinear_supported(data, vs, methods, pm)
        self.data_ = original
        self._work = data  # with the one-valued numeric columns made factors
        self.syn_ = vs
        self.methods_ = methods
        self.predictor_matrix_ = pm
        self.smoothing_ = smooth
        pad = pad_missing(data, vs, methods, pm)
        drop_dependent_predictors(pad.data, pad.vs, pad.methods, pad.pm, pad.observed_rows)
        self._padded = pad
        return self

    def synthesize(self, m: int = 5, seed: int | None = None) -> SyntheticData:
        """m synthetic datasets drawn one after another from one stream seeded by ``seed``.

        ``seed=None`` leaves the stream unseeded (fresh entropy, like R's ``seed = NA``).
        The result's ``settings`` are :meth:`get_params`; the resolved synthpop settings
        are the fitted attributes (``syn_``, ``methods_``, ``predictor_matrix_``,
        ``smoothing_``); ``fitted["trees"]`` holds the trees by column.
        """
        self._check_fitted()
        m = self._check_m(m)
        seed = self._check_seed(seed)
        pad = self._padded
        stream: RStream | NumpyStream = make_stream(self.rng, seed)
        synth = _Synthesizer(pad.data, pad.vs, pad.methods, pad.pm, int(self.minbucket),
                             float(self.cp), bool(self.proper), stream, self.smoothing_, m,
                             pad.indicators, pad.observed_rows)
        progress = self.progress
        if progress is None:
            progress = m > 1 and sys.stderr.isatty()
        reps = progress_bar(range(m), desc="syn", unit="dataset", show=progress)
        out = [as_numbers(pad.restore(synth.replicate(), self._work), self._factored, self.data_)
               for _ in reps]
        return self._result(out, seed, trees=dict(synth.trees))


def syn(
    data: pd.DataFrame,
    m: int = 5,
    *,
    syn: Sequence[str] | None = None,
    seed: int | None = None,
    method: str | dict | Sequence[str] = "cart",
    minbucket: int = 5,
    cp: float = 1e-8,
    proper: bool = False,
    smoothing: str | dict | None = None,
    predictor_matrix: pd.DataFrame | None = None,
    rng: Literal["r", "numpy"] = "r",
    progress: bool | None = None,
) -> SyntheticData:
    """CART (partial) synthesis following synthpop's ``syn()`` (function shape).

    ``syn(data, m, syn=..., seed=seed, **options)`` is
    ``CARTSynthesizer(syn=..., **options).fit(data).synthesize(m, seed)``; see
    :class:`CARTSynthesizer` for the options.

    Parameters
    ----------
    data : pandas.DataFrame
        Confidential data. Categorical / string / bool columns are factors.
    m : int
        Number of synthetic datasets, drawn one after another from one stream.
    syn : sequence of str (or 1-based int), optional
        Columns to synthesise, in order (synthpop's ``visit.sequence``); default all
        columns. Others are kept.
    seed : int, optional
        ``set.seed`` value; ``None`` leaves the stream unseeded (a fresh
        entropy-based stream, like R's ``seed = NA``).
    method, minbucket, cp, proper, smoothing, predictor_matrix, rng, progress
        As :class:`CARTSynthesizer`.

    Returns
    -------
    SyntheticData
        The m datasets; ``settings`` holds the synthesizer's parameters and
        ``fitted["trees"]`` the trees by column (the resolved synthpop settings are the
        fitted attributes of :class:`CARTSynthesizer`).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [float(i % 7) for i in range(60)],
    ...                    "y": [float(i) for i in range(60)]})
    >>> r = syn(df, m=2, syn=["x", "y"], seed=3)
    >>> r.m, r.settings["syn"], sorted(r.fitted["trees"])
    (2, ['x', 'y'], ['y'])
    """
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m must be a positive integer, got {m!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise TypeError(f"seed must be an integer or None, got {seed!r}")
    model = CARTSynthesizer(
        syn=syn, method=method, minbucket=minbucket, cp=cp,
        proper=proper, smoothing=smoothing, predictor_matrix=predictor_matrix, rng=rng,
        progress=progress,
    )
    return model.fit(data).synthesize(m, seed)


def syn_r(data: pd.DataFrame, m: int = 1, visit_sequence=None, seed="sample", **options) -> Synds:
    """``synthpop::syn`` with R's signature and result layout.

    Parameters
    ----------
    data, m, visit_sequence
        As in synthpop (``visit_sequence`` may hold names or 1-based indices).
    seed : "sample", int or None
        ``"sample"`` (default): draw ``sample.int(1e9, 1)`` from a fresh
        stream and use it as the seed (returned in ``.seed``); an int:
        ``set.seed(seed)``; ``None`` (R's ``NA``): no seeding.
    **options
        Passed to :func:`syn` (``method``, ``minbucket``, ``cp``, ``proper``,
        ``predictor_matrix``, ``rng``, ...). R-style dotted names such as
        ``predictor.matrix`` are accepted too.

    Returns
    -------
    Synds
        ``.syn`` is a DataFrame for ``m = 1`` and a list of m DataFrames otherwise.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [float(i % 5) for i in range(30)]})
    >>> s = syn_r(df, m=1, seed=2021)
    >>> isinstance(s.syn, pd.DataFrame), s.seed
    (True, 2021)
    """
    opts = {k.replace(".", "_"): v for k, v in options.items()}
    if isinstance(seed, str):
        if seed != "sample":
            raise ValueError(f"seed must be 'sample', an integer or None, got {seed!r}")
        seed = RStream(None).sample_seed()
    model = CARTSynthesizer(syn=visit_sequence, **opts).fit(data)
    res = model.synthesize(m, seed)
    cols = list(data.columns)
    order = model.syn_
    vs = pd.Series([cols.index(v) + 1 for v in order], index=order)
    return Synds(
        syn=res[0] if res.m == 1 else list(res),
        seed=res.seed,
        m=res.m,
        method=pd.Series(model.methods_),
        visit_sequence=vs,
        predictor_matrix=model.predictor_matrix_.copy(),
        proper=bool(model.proper),
        n=len(data),
        k=len(data),
        smoothing=pd.Series({c: model.smoothing_.get(c, "") for c in cols}),
        result=res,
    )
