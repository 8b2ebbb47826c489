"""Turn ``identification_risk`` inputs into plain arrays, validating them on the way.

Everything that depends on pandas dtypes, column names and the R package's
conventions (factor level union, which columns are continuous, how the radius
vector is handed out) lives here; the counting engine in
:mod:`idrisk.risk.matching` sees only integer codes and floating bounds.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .._interface import spell
from .._schema import (
    _codes_like,
    _labeller,
    as_float,
    column_levels,
    is_categorical,
    is_factor,
    numeric_text_columns,
    require_columns,
)
from .._stack import user_stacklevel
from .._synthetic import synthetic_frames, synthetic_name
from ..exceptions import (
    ColumnTypeError,
    ContinuousCodesWarning,
    ExactMatchWarning,
    ExtraRadiiWarning,
    RadiusWarning,
    RiskInputWarning,
    RParityWarning,
)
from .options import RiskOptions

__all__ = [
    "CheckedInputs",
    "FloatColumns",
    "PreparedInputs",
    "check_inputs",
    "encode_inputs",
    "exact_codes",
    "level_codes",
    "prepare_inputs",
]

#: dtype of the categorical level codes handed to the counting engine (memory: 1M x 20 x 2
#: columns are 160 MB as int32)
CODE_DTYPE = np.int32


# --------------------------------------------------------------------------- dtypes


def level_codes(
    series: pd.Series,
    levels: pd.Index | Sequence[str],
    memo: dict | None = None,
    rules: str = "python",
) -> np.ndarray:
    """Integer codes of ``series`` in ``levels``, found **by label**; -1 for NA or a label not
    in ``levels``.

    ``memo`` caches the label lookup of a categorical column's categories: frames usually
    share one categories object, found by identity (kept alive in the memo). Two dtypes with
    the same labels in another order are different lookups (pandas calls such unordered dtypes
    equal, so the memo is never keyed on the dtype). When the categories are the first levels
    in their order (the confidential data's own categories), the codes are the answer.
    """
    lookup = None
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):  # codes are there already
        uniques = dtype.categories
        codes = series.array.codes
        if memo is not None:
            same = memo.get((id(levels), id(uniques)))
            if same is not None and same[0] is uniques and same[1] is levels:
                lookup = same[2]
    else:
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
    if len(uniques) == 0:
        return np.full(len(series), -1, dtype=CODE_DTYPE)
    if lookup is None:
        to_label = _labeller(rules)
        position = {label: i for i, label in enumerate(levels)}
        lookup = np.array([position.get(to_label(u), -1) for u in uniques], dtype=CODE_DTYPE)
        if np.array_equal(lookup, np.arange(len(uniques))):
            lookup = _IDENTITY  # codes are level positions already (-1: NA)
        else:  # one extra entry, -1, so that code -1 (NA) maps to -1 in a single take
            lookup = np.append(lookup, CODE_DTYPE(-1))
        if memo is not None and isinstance(dtype, pd.CategoricalDtype):
            memo[(id(levels), id(uniques))] = (uniques, levels, lookup)
    if lookup is _IDENTITY:
        return codes.astype(CODE_DTYPE)
    return lookup[codes]


_IDENTITY = np.empty(0, dtype=CODE_DTYPE)  # level_codes' lookup when codes are levels already
_RELEASED = np.empty(0, dtype=CODE_DTYPE)  # a dataset's exact codes once it is encoded


def exact_codes(values: list[np.ndarray]) -> list[np.ndarray]:
    """Common codes for numeric columns matched by equality (``r = None``); NaN gets -1."""
    stacked = np.concatenate(values) + 0.0  # + 0.0 folds -0.0 into 0.0
    codes, uniques = pd.factorize(stacked, use_na_sentinel=True)
    dtype = CODE_DTYPE if len(uniques) < np.iinfo(CODE_DTYPE).max else np.int64
    out, start = [], 0
    for v in values:
        out.append(codes[start : start + len(v)].astype(dtype))
        start += len(v)
    return out


# --------------------------------------------------------------------------- radius


def _radius_vector(
    r: None | float | Sequence[float] | Mapping[str, float],
    continuous: list[str],
    percentage: bool = True,
) -> dict[str, float] | None:
    """Hand the radius entries out to the continuous columns, as R does (data-frame order)."""
    if r is None:
        return None
    if isinstance(r, Mapping):
        missing = [c for c in continuous if c not in r]
        if missing:
            raise ValueError(
                f"r: no radius given for continuous column(s) {missing}; "
                f"the dict must cover {continuous}"
            )
        extra = [k for k in r if k not in continuous]
        if extra:
            raise ValueError(
                f"r: {extra} are not continuous known/syn columns; expected keys among {continuous}"
            )
        radii = {c: float(r[c]) for c in continuous}
    else:
        values = np.atleast_1d(np.asarray(r, dtype=np.float64))
        if values.ndim != 1 or values.size == 0:
            raise ValueError(f"r must be None, a number, a sequence or a dict; got {r!r}")
        if values.size == 1:
            radii = {c: float(values[0]) for c in continuous}
        elif values.size < len(continuous):
            raise ValueError(
                f"r has {values.size} entries but there are {len(continuous)} continuous "
                f"known/syn columns {continuous}: give one radius, or one per column in "
                "data-frame order (R prints an error and returns NULL here)"
            )
        else:
            if values.size > len(continuous):
                warnings.warn(
                    f"r has {values.size} entries but only {len(continuous)} continuous known/syn "
                    f"columns {continuous}: using the first {len(continuous)} radii",
                    ExtraRadiiWarning,
                    stacklevel=user_stacklevel(),
                )
            radii = {c: float(v) for c, v in zip(continuous, values)}
    for column, value in radii.items():
        if not np.isfinite(value) or value < 0:
            raise ValueError(
                f"r: the radius for column {column!r} must be finite and >= 0, got {value}"
            )
    big = {c: v for c, v in radii.items() if v > 1}
    if percentage and big:
        value = max(big.values())
        warnings.warn(
            f"r = {value:g} (column(s) {sorted(big)}) means ±{100 * value:g}% with "
            f"a percentage radius; did you mean {value / 100:.2f}? (for an absolute radius "
            f"pass {spell('percentage', False)})",
            RadiusWarning,
            stacklevel=user_stacklevel(),
        )
    return radii


# --------------------------------------------------------------------------- container


def _stack(columns: list[np.ndarray], n: int) -> np.ndarray:
    """The ``(n, p)`` float64 array of p columns."""
    out = np.empty((n, len(columns)), dtype=np.float64)
    for v, column in enumerate(columns):
        out[:, v] = column
    return out


class FloatColumns:
    """The synthetic datasets' continuous columns (``PreparedInputs.cont_syn``): each
    dataset's columns as read from its frame (1-D float64, contiguous; the frame's own arrays
    when they are float64, read-only then), stacked into an ``(n, p)`` array when ``[j]``
    first asks for it. A large count by key reads the columns themselves (:meth:`columns`):
    no stacked copy is written (at 1,000,000 x 20 with two columns: 320 MB)."""

    def __init__(self, columns: list[list[np.ndarray]], n: int) -> None:
        self._columns: list[list[np.ndarray] | None] = list(columns)
        self._stacked: list[np.ndarray | None] = [None] * len(columns)
        self._n = n

    def __len__(self) -> int:
        return len(self._columns)

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self[j] for j in range(len(self)))

    def __getitem__(self, j: int) -> np.ndarray:
        """Dataset j's ``(n, p)`` array (stacked once; None once released)."""
        found = self._stacked[j]
        if found is None:
            columns = self._columns[j]
            if columns is None:
                return None  # type: ignore[return-value]  # (released: see release)
            # (threads: at worst stacked twice, the same values)
            found = self._stacked[j] = _stack(columns, self._n)
        return found

    def columns(self, j: int) -> list[np.ndarray]:
        """Dataset j's columns (1-D float64, contiguous), not stacked."""
        columns = self._columns[j]
        if columns is None:
            raise ValueError(f"synthetic dataset {j + 1}'s arrays were released")
        return columns

    def release(self, j: int) -> None:
        """Drop dataset j's columns and its stacked array."""
        self._columns[j] = self._stacked[j] = None


@dataclass
class PreparedInputs:
    """Arrays for the counting engine.

    Attributes
    ----------
    cat_orig, cat_syn
        ``(n, p_cat)`` integer level codes (:data:`CODE_DTYPE`; -1 = NA, never matches) of the
        confidential data and of each synthetic dataset; columns are the categorical known/syn
        variables. :meth:`release` sets a synthetic dataset's arrays to None once it has been
        counted.
    cont_orig, cont_syn
        ``(n, p_cont)`` float64 values of the continuous known/syn variables (NaN = NA), in the
        order of ``known`` then ``syn`` (R's order for the Euclidean radius; under R's rules a
        column listed twice is there twice); the synthetic ones stacked when first asked
        (:class:`FloatColumns`).
    cont_known
        Boolean mask over the continuous columns: True for known variables.
    radii
        Column -> radius; None when ``r`` is None (everything matched exactly).
    """

    index: pd.Index
    options: RiskOptions
    categorical: list[str]
    continuous: list[str]
    cat_orig: np.ndarray
    cat_syn: list[np.ndarray]
    cont_orig: np.ndarray
    cont_syn: FloatColumns
    cont_known: np.ndarray
    radii: dict[str, float] | None
    levels: dict[str, list[str]] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)
    orig_name: str = "the confidential data"

    @property
    def n(self) -> int:
        return len(self.index)

    @property
    def m(self) -> int:
        return len(self.cat_syn)

    @property
    def radius_vector(self) -> np.ndarray:
        """The radius of every continuous engine column."""
        assert self.radii is not None
        return np.array([self.radii[c] for c in self.continuous], dtype=np.float64)

    def release(self, j: int) -> None:
        """Drop synthetic dataset j's arrays once it has been counted (keeps the peak memory of
        a large call near one dataset's arrays instead of m of them)."""
        self.cat_syn[j] = None  # type: ignore[call-overload]
        self.cont_syn.release(j)


def dataset_label(frame: pd.DataFrame, j: int | None) -> str:
    """How messages name a dataset: ``the confidential data`` / ``synthetic dataset j``, or
    the file it came from when a reader stored one in ``frame.attrs["source"]``."""
    source = frame.attrs.get("source") if hasattr(frame, "attrs") else None
    if source:
        return f"{source} ({'the confidential data' if j is None else f'synthetic dataset {j}'})"
    return "the confidential data" if j is None else synthetic_name(j)


def _positional(
    frame: pd.DataFrame, columns: pd.Index, where: str, orig_name: str
) -> pd.DataFrame:
    """R's reading of a synthetic dataset: column i is column i of the original."""
    p = len(columns)
    if frame.shape[1] < p:
        raise ValueError(
            f"{where} has {frame.shape[1]} columns but {orig_name} has {p}: R reads the "
            "synthetic columns by position, and reads past the last column here (R's answer "
            "is not defined)"
        )
    if list(frame.columns[:p]) == list(columns) and frame.shape[1] == p:
        return frame
    moved = [
        (str(a), str(b)) for a, b in zip(frame.columns[:p], columns) if a != b
    ]
    if moved:
        shown = ", ".join(f"{a!r} as {b!r}" for a, b in moved[:4]) + (
            ", …" if len(moved) > 4 else ""
        )
        warnings.warn(
            f"{where}: R reads the synthetic columns by position, not by name: it compares "
            f"{shown}" + (
                f" and ignores the last {frame.shape[1] - p} column(s)"
                if frame.shape[1] > p else ""
            ) + "; idrisk.r does the same (idrisk.identification_risk matches by name)",
            RParityWarning,
            stacklevel=user_stacklevel(),
        )
    out = frame.iloc[:, :p].copy()
    out.columns = columns
    return out


@dataclass
class CheckedInputs:
    """The inputs validated once, before any radius is read: the synthetic frames (aligned,
    read as R does under R's rules), how messages name them, and the type rule of every
    known/syn column (``factor``: True for a factor under the package's rule or declared
    ``categorical``; a numeric column is a factor only when ``r`` is None).

    ``columns``: the known/syn columns of the confidential data (entry 0) and of each
    synthetic dataset (entry j), taken out of their frames once (a frame's ``[]`` builds a
    new Series every time).
    """

    confidential: pd.DataFrame
    frames: list[pd.DataFrame]
    names: list[str]
    orig_name: str
    options: RiskOptions
    ordered: list[str]
    factor: dict[str, bool]
    declared_cat: list[str]
    declared_cont: list[str]
    columns: list[dict[str, pd.Series]]
    value_checks: bool = True

    @property
    def n(self) -> int:
        return len(self.confidential)

    def type_checks(self, exact: bool) -> None:
        """The checks of a mode that do not depend on the radius' value (once per mode): with
        ``r`` None the numbers matched exactly warn; with a radius, numbers stored as text
        are an error and integer codes warn."""
        if not self.value_checks:
            return
        if exact:
            if self.options.rules == "python":
                _warn_exact_numbers(
                    self.columns[0], [c for c in self.ordered if not self.factor[c]],
                    self.orig_name,
                )  # fmt: skip
            return
        rules = self.options.rules
        numeric_in_syn = [
            c for c in self.ordered if not is_factor(self.columns[1][c], rules)
        ]
        _check_types(
            self.columns[0], self.ordered, self.declared_cat, self.declared_cont,
            [c for c in self.ordered if not self.factor[c]], self.orig_name, numeric_in_syn,
        )  # fmt: skip

    def radii(self, options: RiskOptions) -> dict[str, float] | None:
        """The radius of every continuous column (None when ``options.r`` is None)."""
        if options.r is None:
            return None
        return _radius_vector(
            options.radius, [c for c in self.ordered if not self.factor[c]],
            options.percentage,
        )  # fmt: skip


def check_inputs(
    confidential: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    options: RiskOptions,
    *,
    value_checks: bool = True,
) -> CheckedInputs:
    """The radius-independent validation of :func:`prepare_inputs` (columns present, row
    counts, alignment, R's positional reading) and the type rule of each known/syn column."""
    from .._align import check_frame_alignment

    rules = options.rules
    if not isinstance(confidential, pd.DataFrame):
        raise TypeError(
            f"confidential must be a DataFrame, got {type(confidential).__name__}"
        )
    frames = synthetic_frames(synthetic)
    known_l, syn_l = list(options.known), list(options.syn)
    used = list(dict.fromkeys(known_l + syn_l))
    orig_name = dataset_label(confidential, None)
    require_columns(confidential, known_l, "known", orig_name)
    require_columns(confidential, syn_l, "syn", orig_name)
    require_columns(confidential, list(options.categorical), "categorical", orig_name)
    require_columns(confidential, list(options.continuous), "continuous", orig_name)
    declared_cat = [c for c in options.categorical if c in set(used)]
    declared_cont = [c for c in options.continuous if c in set(used)]
    n = len(confidential)
    names = []
    for j, frame in enumerate(frames, start=1):
        where = dataset_label(frame, j)
        names.append(where)
        if rules == "r":
            frame = frames[j - 1] = _positional(frame, confidential.columns, where, orig_name)
            if len(frame) > n:
                warnings.warn(
                    f"{where} has {len(frame)} rows but {orig_name} has {n}: R reads only the "
                    f"first {n} rows of each synthetic dataset; idrisk.r does the same",
                    RParityWarning,
                    stacklevel=user_stacklevel(),
                )
                frame = frames[j - 1] = frame.iloc[:n]
        require_columns(frame, known_l, "known", where)
        require_columns(frame, syn_l, "syn", where)
        if len(frame) != n:
            raise ValueError(
                f"{where} has {len(frame)} rows but {orig_name} has {n}: row i of every "
                "synthetic dataset must be the synthetic version of confidential record i"
            )
    if n == 0:
        raise ValueError(f"{orig_name} has no rows")
    if value_checks:
        frames = [
            check_frame_alignment(confidential, f, where, options.align, reference_name=orig_name)
            for f, where in zip(frames, names)
        ]
    # column order of the data frame decides the radius hand-out
    ordered = [c for c in confidential.columns if c in set(used)]
    columns = [{c: f[c] for c in ordered} for f in [confidential, *frames]]
    factor = {c: is_factor(columns[0][c], rules) for c in ordered}
    factor.update({c: True for c in declared_cat})
    factor.update({c: False for c in declared_cont})
    if value_checks and rules == "python":
        from ._diagnostics import diagnose_inputs

        cat_cols = [c for c in ordered
                    if (factor[c] or options.r is None) and is_categorical(columns[0][c])]
        diagnose_inputs(columns[0], columns[1:], names, list(options.known), cat_cols,
                        orig_name, RiskInputWarning)
    return CheckedInputs(
        confidential=confidential, frames=frames, names=names, orig_name=orig_name,
        options=options, ordered=ordered, factor=factor, declared_cat=declared_cat,
        declared_cont=declared_cont, columns=columns, value_checks=value_checks,
    )  # fmt: skip


def prepare_inputs(
    confidential: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    options: RiskOptions,
    *,
    value_checks: bool = True,
) -> PreparedInputs:
    """Validate the inputs and encode them as the R package sees them.

    * factor columns of the confidential data (:func:`is_factor`) become factors whose levels
      are the union of the levels in the confidential data and in the *first* synthetic
      dataset; labels found in neither are NA; values are compared by label;
    * with ``r`` None every known/syn variable is matched exactly (numbers too);
    * otherwise the remaining known/syn columns are continuous and receive the radius entries in
      data-frame order; ``categorical``/``continuous`` override the rule for the columns they
      name;
    * ``align``: row correspondence of indexed frames (:mod:`idrisk._align`);
    * under ``rules="r"`` (:mod:`idrisk.r`) the synthetic columns are read by position and only
      the first n rows of a longer synthetic dataset are read, as R does;
    * ``value_checks`` (off for the Dask engine's two-row probes): numbers stored as text are an
      error, integer codes matched within a radius a :class:`ContinuousCodesWarning`.

    (:func:`check_inputs`, then the checks and the radius of the mode, then
    :func:`encode_inputs`.)
    """
    checked = check_inputs(confidential, synthetic, options, value_checks=value_checks)
    exact = options.r is None
    checked.type_checks(exact)
    radii = checked.radii(options)
    return replace(encode_inputs(checked, exact), options=options, radii=radii)


def encode_inputs(
    checked: CheckedInputs,
    exact: bool,
    share: Callable[[Callable[[int], None], range], None] | None = None,
) -> PreparedInputs:
    """The arrays of the counting engine for a call with ``r`` None (``exact``) or a radius
    (``radii`` left None: the caller sets them). ``share(task, items)`` runs ``task(j)`` for
    each item, perhaps on threads: the synthetic datasets' codes and float columns are found
    by it (numpy's copies release the GIL); an error is that of the first dataset in order
    (the codes' errors before the float columns', as the columns are read)."""
    options, names = checked.options, checked.names
    conf_cols, syn_cols = checked.columns[0], checked.columns[1:]
    orig_name, rules = checked.orig_name, options.rules
    n = checked.n
    known_l, syn_l = list(options.known), list(options.syn)
    factor = {c: True for c in checked.ordered} if exact else checked.factor
    declared_cat = checked.declared_cat
    # the engine's columns: known then syn, in the order given (R's order of the squares)
    categorical_l = [c for c in known_l + syn_l if factor[c]]
    continuous_l = [c for c in known_l + syn_l if not factor[c]]
    cont_known = np.array(
        [True] * sum(not factor[c] for c in known_l) + [False] * sum(not factor[c] for c in syn_l),
        dtype=bool,
    )

    levels: dict[str, list[str]] = {}
    # one (n, p_cat) array per dataset, filled column by column (no list-then-stack copy); a
    # dataset whose codes are the confidential ones (known variables only) shares cat_orig:
    # None while every column so far is the confidential one, its own copy (of every column
    # of cat_orig, filled first) from the first column that differs (no memory written per
    # dataset for known variables)
    cat_orig = np.empty((n, len(categorical_l)), dtype=CODE_DTYPE)
    cat_syn: list[np.ndarray | None] = [None] * len(syn_cols)

    def put(j: int, v: int, codes: np.ndarray) -> None:
        a = cat_syn[j]
        if a is None:
            if np.array_equal(codes, cat_orig[:, v]):
                return
            a = cat_syn[j] = cat_orig.copy()
        a[:, v] = codes

    first: dict[str, int] = {}  # each column's first place (R's rules may list one twice)
    exact_syn: dict[str, list[np.ndarray]] = {}  # numeric columns matched exactly: codes
    memo: dict = {}
    for v, c in enumerate(categorical_l):
        if c in first:
            cat_orig[:, v] = cat_orig[:, first[c]]
            continue
        first[c] = v
        column = conf_cols[c]
        if is_factor(column, rules) or c in declared_cat:
            lv = column_levels(column, rules)
            seen = set(lv)
            lv = lv + [x for x in column_levels(syn_cols[0][c], rules) if x not in seen]
            levels[c] = lv
            cat_orig[:, v] = level_codes(column, lv, memo, rules)
        else:  # numeric column matched exactly (r is None): codes common to every dataset
            values = [as_float(column, c, orig_name)] + [
                as_float(f[c], c, where) for f, where in zip(syn_cols, names)
            ]
            codes = exact_codes(values)
            if codes[0].dtype != cat_orig.dtype:  # more distinct values than int32 holds
                cat_orig = cat_orig.astype(codes[0].dtype)
            cat_orig[:, v] = codes[0]
            exact_syn[c] = codes[1:]
            del codes, values

    def encode_dataset(j: int) -> None:  # a synthetic dataset's codes, by column
        for v, c in enumerate(categorical_l):
            if c in exact_syn:
                put(j, v, exact_syn[c][j])
            elif not _same_categorical(syn_cols[j][c], conf_cols[c]):
                put(j, v, level_codes(syn_cols[j][c], levels[c], memo, rules))
        for codes in exact_syn.values():
            codes[j] = _RELEASED  # (each dataset's exact codes held until it is encoded)

    parse = set(checked.declared_cont)
    value_checks = checked.value_checks

    def float_columns(frame: Mapping[str, pd.Series], where: str) -> list[np.ndarray]:
        out = []
        for c in continuous_l:
            if c not in parse:
                column = as_float(frame[c], c, where)
            elif value_checks:
                column = as_float(frame[c], c, where, True)
            else:  # Dask probes: values parsed per partition
                column = np.full(n, np.nan)
            out.append(np.ascontiguousarray(column, dtype=np.float64))
        return out

    cont_orig = _stack(float_columns(conf_cols, orig_name), n)
    sources = list(zip(syn_cols, names))
    columns: list[list[np.ndarray]] = [[] for _ in sources]
    # an error is raised below: the first dataset's codes', else its float columns'
    errors: list[Exception | None] = [None] * (2 * len(sources))

    def read_dataset(j: int) -> None:
        columns[j] = float_columns(*sources[j])

    def dataset(j: int) -> None:
        for step, at in ((encode_dataset, j), (read_dataset, len(sources) + j)):
            try:
                step(j)
            except Exception as error:  # noqa: BLE001 -- raised below
                errors[at] = error
                return

    (share or _one_by_one)(dataset, range(len(sources)))
    for error in errors:
        if error is not None:
            raise error
    return PreparedInputs(
        index=checked.confidential.index,
        options=options,
        categorical=categorical_l,
        continuous=continuous_l,
        cat_orig=cat_orig,
        cat_syn=[cat_orig if a is None else a for a in cat_syn],
        cont_orig=cont_orig,
        cont_syn=FloatColumns(columns, n),
        cont_known=cont_known,
        radii=None,
        levels=levels,
        names=names,
        orig_name=orig_name,
    )


def _same_categorical(column: pd.Series, confidential: pd.Series) -> bool:
    """Are ``column``'s level codes the confidential column's? Two categoricals of the same
    categories in the same order with the same codes (compared as they are: a byte each for
    up to 127 categories, where the level codes are four) have the same labels."""
    a, b = column.dtype, confidential.dtype
    if not (isinstance(a, pd.CategoricalDtype) and isinstance(b, pd.CategoricalDtype)):
        return False
    ca, cb = a.categories, b.categories
    if not (ca is cb or (ca.dtype == cb.dtype and ca.equals(cb))):
        return False
    return bool(np.array_equal(column.array.codes, confidential.array.codes))


def _one_by_one(task: Callable[[int], None], items: range) -> None:
    for j in items:
        task(j)


def _warn_exact_numbers(
    frame: Mapping[str, pd.Series], columns: list[str], where: str
) -> None:
    """R prints "Assuming all synthetic and known vars to be categorical" for ``r = None``;
    here the numeric columns matched by equality are named, with their distinct values."""
    if not columns:
        return
    shown = ", ".join(f"{c} ({frame[c].nunique(dropna=True)} distinct values)" for c in columns)
    warnings.warn(
        f"{where}: r is None, so the numeric column(s) {shown} are matched exactly (equal "
        f"values only), as R does; pass a radius ({spell('r', 0.1)}) to match them within "
        f"{spell('r', 0.1)} × value, or declare them {spell('categorical', columns)} to "
        "silence this warning",
        ExactMatchWarning,
        stacklevel=user_stacklevel(),
    )


def bad_values(text: Mapping[str, list[str]]) -> list[str]:
    """The distinct stray values of :func:`numeric_text_columns`' answer."""
    return list(dict.fromkeys(v for bad in text.values() for v in bad if v != "…"))


def _check_types(
    confidential: Mapping[str, pd.Series],
    ordered: list[str],
    declared_cat: list[str],
    declared_cont: list[str],
    continuous: list[str],
    orig_name: str,
    numeric_in_syn: Sequence[str] = (),
) -> None:
    """Numbers stored as text are an error; integer codes given a radius warn."""
    undeclared = [c for c in ordered if c not in set(declared_cat) | set(declared_cont)]
    text = numeric_text_columns(confidential, undeclared, numeric_in_syn)
    if text:
        details = "; ".join(
            f"{c!r} (values that are not numbers: {bad})" for c, bad in text.items()
        )
        cols = list(text)
        raise ColumnTypeError(
            f"{orig_name}: column(s) {cols} hold numbers stored as text: {details}. Under R's "
            "rule they would be factors matched exactly, not within the radius. Convert them "
            "to numbers, declare them "
            f"{spell('continuous', cols)} after fixing those values (or mark such values as "
            f"missing when loading the data: {spell('na_values', bad_values(text))}), or declare "
            f"{spell('categorical', cols)} to keep R's factor behaviour"
        )
    codes = {
        c: k
        for c in continuous
        if c not in set(declared_cont) and (k := _codes_like(confidential[c])) is not None
    }
    if codes:
        cols = list(codes)
        shown = ", ".join(f"{c} ({k} values)" for c, k in codes.items())
        warnings.warn(
            f"{orig_name}: column(s) {shown} hold few distinct whole numbers, like category "
            "codes, but are matched within a radius as continuous variables (R's rule for "
            f"numeric columns). If they are codes, declare {spell('categorical', cols)}; if "
            f"they are numbers, declare {spell('continuous', cols)} to silence this warning",
            ContinuousCodesWarning,
            stacklevel=user_stacklevel(),
        )


