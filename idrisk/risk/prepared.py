"""Prepare once, count many: the inputs of an identification-risk call, encoded once.

Internal API (used by :func:`idrisk.identification_risk`, ``radius_sweep``, the report,
``m_experiment`` and the what-if / precision tools)::

    from idrisk.risk.prepared import prepare

    prepared = prepare(confidential, synthetic, options)   # options: a RiskOptions
    result = prepared.count()                              # = identification_risk(...)
    result = prepared.count(r=0.2)                         # another radius, nothing re-read
    result = prepared.count(options=options.replace(closed=True, r=0.05))

What is kept (per mode: ``r`` None, everything matched exactly, or a radius):

* the validation of the frames (columns, row counts, alignment, R's positional reading);
* the level codes of the categorical known/syn variables (``int32``) and the continuous
  values as float64 arrays;
* the group key of every confidential record and of every synthetic record.

What each :meth:`Prepared.count` does: the radius hand-out and its warnings, the half-widths,
the input checks, the counting and the result. From the second count on (or the first of
:meth:`Prepared.dataset_measures`, a sweep's), small inputs whose datasets all took the
few-values sweep are counted in one pass over the targets for every dataset
(:data:`STACK_MAX_CELLS`); :meth:`Prepared.sweep_measures` (a radius sweep) hands that pass to
a helper thread while it lays out the next radius. Large counts (from :data:`BY_KEY_MIN_CELLS`
records in the datasets after the first) on the few-values sweep lay the sweep out from the
first dataset without counting it (:func:`~idrisk.risk.matching.few_plan`), while a helper
thread finds the later datasets' own rows, then count the datasets that share the first one's
keys together, by ranges of keys (:mod:`idrisk.risk._fewbykey`), reading the frames' own
columns. The warnings about
column types (``ContinuousCodesWarning``, ``ExactMatchWarning``, numbers stored as text) come
with the first count of a mode only. A different ``known``/``syn``/``categorical``/
``continuous``/``align`` needs a new :func:`prepare` (``count`` refuses such options).

The inputs must not be changed in place while a :class:`Prepared` is in use: it reads them
once (it keeps references to the frames, and the encoded arrays).

Inside ``with shared_preparation():`` (the report's steps), :func:`prepare` of the same frames
(the same objects) with options that :meth:`Prepared.count` takes returns the one
:class:`Prepared` built for them first: the risk at the radius, the sweep and the what-if
read the inputs once. The block promises that the frames do not change inside it; the input
warnings come with the first preparation only. Kept: one Prepared per set of synthetic frames
of the block's first confidential frame (not the what-if's transformed copies), up to
:data:`SHARE_MAX_CELLS` records x datasets (a larger one would hold its encoded arrays, about
the size of the inputs, for the whole block).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from .._progress import progress_bar
from .._synthetic import synthetic_frames
from . import _threads
from ._checks import input_checks, result_about, synthetic_counts, warn_about_checks
from ._kernels import own_rows_pair, risk_summaries
from ._keys import KeyEncoder
from ._prepare import CheckedInputs, PreparedInputs, check_inputs, encode_inputs
from ._threads import NO_BAR, share
from .matching import (
    CountCache,
    MatchRule,
    count_matches,
    few_plan,
    few_sweep,
    half_widths,
)
from .options import Radius, RiskOptions
from .result import IdentificationRiskResult, dataset_measures

__all__ = ["Prepared", "prepare", "shared_preparation"]

#: below this many records in the datasets after the first (n x (m - 1)), datasets counted
#: the general way (:func:`idrisk.risk.matching.count_matches`) are counted one after the
#: other: its Python steps per dataset hold the GIL, and the threads wait for each other.
#: (Measured on 2 cores, min of 30-60 rounds, with a thread pool: CE scenario 1, 5,571 x 19 =
#: 106k, and 10,000 x 19 = 190k took 8-9% more CPU on 2 threads and no less wall time; from
#: 20,000 x 19 the wall time dropped when the second core was free.)
THREAD_MIN_CELLS = 250_000

#: the same threshold when the datasets after the first take the fused few-values sweep
#: (:func:`idrisk.risk.matching.few_sweep`: a few Python steps per dataset, so the threads
#: hardly wait for the GIL). CE scenario 1 (106k): 9.6-10.7 ms on one thread, 7.8-8.6 ms
#: on two (the whole call, quiet machine).
FUSED_THREAD_MIN_CELLS = 50_000

#: up to this many records per dataset, a reusable Prepared keeps each dataset's sorted
#: synthetic side (sort order, ranks, prefix table) for the next radius
STORE_MAX_RECORDS = 100_000

#: up to this many records x datasets, the kept sides of the few-values sweep are merged
#: (each row's value and slot copied: 12 bytes a record; the synthetic keys and values are
#: referenced, not copied) and every dataset is counted in one pass over the targets
#: (:class:`idrisk.risk._fewgrid.FewStack`; CE scenario 1, 20 datasets: 0.9 ms where one
#: dataset after the other takes 2.7 ms)
STACK_MAX_CELLS = 1_000_000

#: from this many records in the datasets after the first (n x (m - 1)), the datasets of a
#: count by the few-values sweep that share the first one's keys are counted together, by
#: ranges of keys (:mod:`idrisk.risk._fewbykey`), not one by one
BY_KEY_MIN_CELLS = 4_000_000

_SAME: Any = object()  # "the prepared options' value"

_CORES = _threads.CORES  # (read here at each use: tests set it to take another machine's paths)


def _sharing(m: int, n: int) -> Any:
    """``share(task, items)``: :func:`~idrisk.risk._threads.share` on the threads that m
    datasets of n records are worth (None: one thread), for the steps of a count's inputs."""
    workers = _n_workers(None, m, n)
    if workers <= 1:
        return None
    return lambda task, items: share(task, items, workers, NO_BAR)


#: the largest n x m whose Prepared a ``shared_preparation`` block keeps
SHARE_MAX_CELLS = 2_000_000

#: the current ``shared_preparation`` block: "confidential" -> its first confidential frame;
#: ids of the synthetic frames -> (the frames, kept alive so that the ids stay theirs; the
#: Prepared)
_SHARED: ContextVar[dict | None] = ContextVar("idrisk_shared_preparation", default=None)

#: options that :meth:`Prepared.count` may change (the rest define the prepared inputs)
COUNT_OPTIONS = frozenset(
    {"r", "percentage", "euclidean_dist", "closed", "abs_radius", "ellipsoid", "na_matches"}
)


def _n_workers(n_jobs: int | None, m: int, n: int, minimum: int = THREAD_MIN_CELLS) -> int:
    if n_jobs is None:
        if n * (m - 1) < minimum:
            return 1
        n_jobs = _CORES
    if not isinstance(n_jobs, int) or n_jobs < 1:
        raise ValueError(f"n_jobs must be a positive integer or None, got {n_jobs!r}")
    return max(1, min(n_jobs, m - 1))


class _EarlyOwnRows:
    """The own rows of the later datasets, found by a helper thread while this one lays the
    sweep out from the first dataset (:func:`~idrisk.risk.matching.few_plan`) or counts it (a
    large count, whose datasets may then be counted by key: their passes do not find own
    rows), then, once the layout by key is known (:meth:`lay_out`), their sides by key
    (``sides``: j -> side, None when it does not fit). Only datasets whose keys are the
    targets' (known categorical variables): another dataset is mostly counted the general
    way, which finds its own rows itself, and its keys would be encoded once more here. Two
    continuous variables (the sweep's), read from the frames' own columns. :meth:`stop` ends
    it after the dataset at hand."""

    def __init__(self, mode: _Mode, prep: PreparedInputs, x: np.ndarray, d: np.ndarray,
                 rule: MatchRule, cache: CountCache, own: np.ndarray) -> None:  # fmt: skip
        lo, hi = cache.bounds(x, d)  # (kept in the cache: the first count reuses them)
        self._done: list[int] = []
        self._stopped = False
        self.layout: Any = None  # the layout by key (few_plan's KeySides)
        self.sides: dict[int, tuple | None] = {}
        self._ready = threading.Event()

        def work() -> None:
            later = []
            for j in range(1, prep.m):
                if self._stopped:
                    return
                if not mode.known_keys(j):
                    continue
                later.append(j)
                y0, y1 = prep.cont_syn.columns(j)  # (the frame's arrays: nothing stacked)
                own_rows_pair(mode.encoder.keys, mode.skey(j), lo, hi, y0, y1, rule.closed,
                              rule.na_matches, own[:, j])  # fmt: skip
                self._done.append(j)
            self._ready.wait()
            for j in later if self.layout is not None and mode.known_keys(0) else []:
                if self._stopped:
                    return
                self.sides[j] = self.layout(mode.skey(j), prep.cont_syn.columns(j))

        self._future = _threads.start_helpers(work, 1)[0]

    def lay_out(self, layout: Any) -> None:
        """The later datasets laid out by key by ``layout`` once their own rows are found."""
        self.layout = layout
        self._ready.set()

    def stop(self) -> set[int]:
        """The datasets done (the helper stopped, or never started)."""
        self._stopped = True
        self._ready.set()
        if not self._future.cancel():
            self._future.result()
        return set(self._done)


class _Mode:
    """The encoded arrays of one mode (exact or radius) and their group keys."""

    def __init__(self, prep: PreparedInputs, keep: bool):
        self.prep = prep
        self.encoder = KeyEncoder(prep.cat_orig)
        self._skeys: list[np.ndarray | None] = [None] * prep.m
        self._known: list[bool | None] = [None] * prep.m  # (see known_keys)
        self._keep = keep
        self._syn_checks: list[dict[str, Any]] | None = None
        # the last count's cache: its radius-independent part is renewed for the next count
        self.cache: CountCache | None = None
        # per dataset, the radius-independent synthetic side of the counting (small inputs)
        self.stores: list[dict | None] = [
            {} if keep and prep.n <= STORE_MAX_RECORDS else None for _ in range(prep.m)
        ]
        self._stack: Any = None  # the stores' sides merged (_fewgrid.FewStack)
        self.check_memo: dict = {}  # the input checks of each set of empty intervals

    def stackable(self) -> bool:
        """Can every dataset's side be kept and merged (up to :data:`STACK_MAX_CELLS`
        records x datasets, a store per dataset)?"""
        return self.prep.n * self.prep.m <= STACK_MAX_CELLS and all(
            store is not None for store in self.stores
        )

    def has_stack(self) -> bool:
        """Did a count build the stack of every dataset's kept side (:meth:`stack`)?"""
        return self._stack is not None

    def stack(self, fused: Any, workers: int = 1) -> Any:
        """The :class:`~idrisk.risk._fewgrid.FewStack` of every dataset's kept side for the
        sweep ``fused`` (built once, kept while the sides are the same), or None: a dataset
        without a kept side, or not :meth:`stackable`."""
        prep = self.prep
        if not self.stackable():
            return None
        found = fused.stack(
            self.stores, [self.skey(j) for j in range(prep.m)], prep.cont_syn, self._stack,
            lambda tasks: share(lambda t: tasks[t](), range(len(tasks)), workers, NO_BAR),
            workers,
        )  # fmt: skip
        if found is not None:
            self._stack = found
        return found

    def syn_checks(self, prep: PreparedInputs) -> list[dict[str, Any]]:
        """The synthetic datasets' input checks (NA counts: the same for every radius)."""
        if self._syn_checks is None:
            self._syn_checks = synthetic_counts(prep, _sharing(prep.m, prep.n))
        return self._syn_checks

    def skey(self, j: int) -> np.ndarray:
        """Dataset j's group keys (int64; the targets' own array, not a copy, when
        :meth:`known_keys`: the kernels only read keys)."""
        key = self._skeys[j]
        if key is None:
            if self.known_keys(j):  # (= transform of the codes the encoder was fitted on)
                key = self.encoder.keys
            else:
                key = self.encoder.transform(self.prep.cat_syn[j])
            if self._keep:  # (left writeable: a read-only array is another numba signature)
                self._skeys[j] = key
        return key

    def known_keys(self, j: int) -> bool:
        """Are dataset j's categorical codes the confidential ones (known categorical variables
        only), so that its keys are the targets'? Found with its first keys."""
        known = self._known[j]
        if known is None:
            codes, mine = self.prep.cat_syn[j], self.prep.cat_orig
            known = self._known[j] = codes is mine or bool(np.array_equal(codes, mine))
        return known


class Prepared:
    """The inputs of :func:`idrisk.identification_risk`, validated and encoded once (see the
    module docstring). Build it with :func:`prepare`.

    Attributes
    ----------
    options
        The :class:`~idrisk.RiskOptions` given to :func:`prepare` (the default of
        :meth:`count`).
    n, m
        Records and synthetic datasets.
    names
        How messages name each synthetic dataset.
    """

    def __init__(self, checked: CheckedInputs, *, reusable: bool = True):
        self._checked = checked
        self._modes: dict[bool, _Mode] = {}
        self._reusable = reusable
        self._used = False
        self.options = checked.options

    @property
    def n(self) -> int:
        return self._checked.n

    @property
    def m(self) -> int:
        return len(self._checked.frames)

    @property
    def names(self) -> list[str]:
        return list(self._checked.names)

    @property
    def index(self) -> pd.Index:
        return self._checked.confidential.index

    def resolve(self, r: Radius = _SAME, options: RiskOptions | None = None) -> RiskOptions:
        """The options of a :meth:`count`: ``options`` (default: the prepared ones) with ``r``
        replaced when given; a change of anything but the matching options is an error."""
        if options is None:
            options = self.options
        else:
            changed = self.changed(options)
            if changed:
                raise ValueError(
                    f"options change {changed} of the prepared inputs: call prepare() again "
                    f"(count() may change only {sorted(COUNT_OPTIONS)})"
                )
        if r is not _SAME:
            options = options.replace(r=r)
        return options

    def changed(self, options: RiskOptions) -> list[str]:
        """The options of the prepared inputs that ``options`` changes (empty: :meth:`count`
        takes them). A type declared for a column that is neither known nor synthesized
        changes nothing."""
        mine = self.options
        used = set(mine.known) | set(mine.syn)

        def declared(o: RiskOptions, name: str) -> list[str]:
            return [c for c in getattr(o, name) if c in used]

        return [
            name for name in ("known", "syn", "align", "rules")
            if getattr(options, name) != getattr(mine, name)
        ] + [
            name for name in ("categorical", "continuous")
            if declared(options, name) != declared(mine, name)
        ]  # fmt: skip

    def mode(self, exact: bool) -> _Mode:
        """The encoded arrays for ``r`` None (``exact``) or a radius, built once."""
        found = self._modes.get(exact)
        if found is None:
            self._checked.type_checks(exact)
            found = self._modes[exact] = _Mode(  # (the float columns' copies on threads)
                encode_inputs(self._checked, exact, _sharing(self.m, self.n)),
                keep=self._reusable,
            )
        return found

    def inputs(self, options: RiskOptions) -> tuple[_Mode, PreparedInputs]:
        """The mode of ``options`` and its arrays with the radii of ``options``."""
        exact = options.r is None
        mode = self.mode(exact)
        radii = self._checked.radii(options)
        return mode, replace(mode.prep, options=options, radii=radii)

    def _radius(self, options: RiskOptions) -> tuple:
        """What a count at ``options`` needs before counting: its mode and arrays, the match
        rule, the targets' values x and half-widths d, and the input checks."""
        mode, prep = self.inputs(options)
        rule = MatchRule(
            closed=options.closed, na_matches=options.na_matches, ellipsoid=options.ellipsoid
        )
        if prep.radii is None:
            x = d = np.empty((prep.n, 0))
        else:
            x = prep.cont_orig
            d = half_widths(
                x,
                prep.radius_vector,
                percentage=options.percentage,
                abs_radius=options.abs_radius,
                euclidean_dist=options.euclidean_dist,
                known=prep.cont_known,
            )
        checks = input_checks(
            prep, d if prep.radii is not None else None, options.closed, mode.syn_checks(prep),
            mode.check_memo,
        )  # fmt: skip
        return mode, prep, rule, x, d, checks

    def _outputs(self) -> tuple[np.ndarray, np.ndarray]:
        """Empty n x m counts (int32 while they fit) and own-row flags, column-major."""
        n, m = self.n, self.m
        c = np.empty((n, m), dtype=np.int32 if n < 2**31 - 1 else np.int64, order="F")
        return c, np.empty((n, m), dtype=bool, order="F")

    def counts(
        self,
        options: RiskOptions,
        *,
        progress: bool | None = None,
        n_jobs: int | None = None,
        more: bool = False,
    ) -> tuple[np.ndarray, np.ndarray, dict[str, Any], PreparedInputs]:
        """``(c, own, checks, inputs)``: the raw n x m match counts (int32, column-major), the
        own-row indicators (bool, before R's c = 0 rule), the input checks and the encoded
        inputs with their radii (for :func:`result_about`). ``more``: counts of other radii
        follow (a sweep): the first count lays every dataset's side out and counts them in one
        pass, as the later ones do (small inputs)."""
        if self._used and not self._reusable:
            raise RuntimeError("this Prepared was built for one count (reusable=False)")
        mode, prep, rule, x, d, checks = self._radius(options)
        encoder = mode.encoder
        cache = mode.cache.renew() if mode.cache is not None else CountCache()
        if self._reusable:
            mode.cache = cache
        n, m = prep.n, prep.m
        c, own = self._outputs()
        empty = np.empty((n, 0))
        release = not self._reusable

        fused: Any = None  # the datasets in one compiled call each, if they can

        def count(j: int) -> None:
            y = prep.cont_syn[j] if prep.radii is not None else empty
            skey = mode.skey(j)
            if fused is None or not fused(skey, y, c[:, j], own[:, j], mode.stores[j]):
                c[:, j], own[:, j] = count_matches(
                    encoder.keys, skey, x, d, y, rule, encoder.n_keys, cache,
                    store=mode.stores[j],
                )
            if release:
                mode.prep.release(j)  # the consumed arrays themselves
                prep.release(j)

        self._used = True
        if progress is None:
            progress = n * m >= 5_000_000
        _n_workers(n_jobs, m, n)  # (n_jobs checked before any work)
        with progress_bar(total=m, desc="identification risk", unit="dataset",
                          show=progress) as bar:  # fmt: skip
            # another radius after a count that took the few-values sweep: every dataset by it
            fused = few_sweep(encoder.keys, x, d, rule, encoder.n_keys, cache, before_first=True)
            start = 0
            own_done: set[int] = set()  # later datasets whose own rows are already found
            laid: dict[int, Any] = {}  # and their sides by key
            by_key = False  # every dataset counted together by key, the first included
            if fused is None:
                early = None
                if (prep.radii is not None and not rule.ellipsoid and _CORES > 1
                        and x.shape[1] == 2 and n * (m - 1) >= BY_KEY_MIN_CELLS
                        and _n_workers(n_jobs, m, n, FUSED_THREAD_MIN_CELLS) > 1):  # fmt: skip
                    early = _EarlyOwnRows(mode, prep, x, d, rule, cache, own)
                try:
                    if early is not None:  # the sweep laid out from the first dataset
                        fused = few_plan(encoder.keys, mode.skey(0), x, d,
                                         prep.cont_syn.columns(0), rule, encoder.n_keys,
                                         cache, early.lay_out)  # fmt: skip
                        by_key = fused is not None
                    if not by_key:
                        count(0)  # the first dataset fills the shared cache (plan, orders)
                finally:
                    own_done = early.stop() if early is not None else own_done
                if by_key and early is not None and fused.sides is early.layout:
                    laid = early.sides  # (later datasets laid out by the helper)
                early = None  # (sides laid out for a sweep that is not taken: dropped)
                if not by_key:
                    bar.update()
                    start = 1
                    fused = few_sweep(encoder.keys, x, d, rule, encoder.n_keys, cache)
            minimum = THREAD_MIN_CELLS if fused is None else FUSED_THREAD_MIN_CELLS
            # (n x (m - start) records in the datasets left, as _n_workers counts them)
            workers = _n_workers(n_jobs, m + 1 - start, n, minimum)
            # every side kept from the last radius (small inputs): one pass counts them all
            stack = None
            laid_out: list[int] = []  # sides laid out at this count, not counted yet
            if fused is not None and (start == 0 or more) and mode.stackable() and not by_key:
                if start:  # the first count of a sweep: the later sides laid out first
                    fits = [False] * m

                    def lay_out(j: int) -> None:
                        fits[j] = fused.lay_out(mode.skey(j), prep.cont_syn[j], mode.stores[j])

                    share(lay_out, range(start, m), workers, bar)
                    laid_out = [j for j in range(start, m) if fits[j]]
                    for j in range(start, m):
                        if not fits[j]:
                            count(j)  # (the general way)
                stack = mode.stack(fused, workers)
            if stack is not None:
                tasks = fused.count_stack(stack, c, own, workers)
                share(lambda t: tasks[t](), range(workers), workers, NO_BAR)
                if not start:
                    bar.update(m)
            elif laid_out:
                share(count, laid_out, workers, NO_BAR)  # (each from its side)
            elif by_key or (fused is not None and start and n * (m - 1) >= BY_KEY_MIN_CELLS):
                self._count_by_key(mode, prep, fused, count, c, own, (own_done, laid), start,
                                   workers, bar)  # fmt: skip
            else:
                share(count, range(start, m), workers, bar)
        return c, own, checks, prep

    def _count_by_key(self, mode: _Mode, prep: PreparedInputs, fused: Any, count: Any,
                      c: np.ndarray, own: np.ndarray, early: tuple, start: int, workers: int,
                      bar: Any) -> None:  # fmt: skip
        """The datasets from ``start`` (0: the sweep was laid out from the first dataset
        without counting it, :func:`~idrisk.risk.matching.few_plan`; 1: the first is counted)
        of a large count by the few-values sweep: those that share the first dataset's keys
        and fit the sweep counted together by ranges of keys
        (:meth:`~idrisk.risk._fewgrid.FewSweep.count_by_key`), each laid out by key first (its
        own arrays then released, unless reusable: a reusable Prepared holds 10 bytes a record
        and dataset more while it counts), the others by ``count``. ``early``: the datasets
        whose own rows are already in ``own``, and those laid out by key already (j -> side,
        None when it does not fit), by :class:`_EarlyOwnRows`."""
        own_done, laid = early
        first_keys = fused.sides.last[0]  # (the first dataset's arrays may be released)
        sides: dict[int, tuple] = {}

        def lay_out(j: int) -> None:  # a dataset's own rows and side by key, or its whole count
            skey, columns = mode.skey(j), prep.cont_syn.columns(j)  # (nothing stacked)
            if j in laid:
                side = laid[j]
            else:
                same = (mode.known_keys(j) and mode.known_keys(0)) or np.array_equal(
                    skey, first_keys
                )
                side = fused.sides(skey, columns) if same else None
            if side is None:
                count(j)
                bar.update()
                return
            if j not in own_done:
                fused.own_rows(skey, columns, own[:, j])
            sides[j] = side
            release(j)

        def release(j: int) -> None:
            if not self._reusable:
                mode.prep.release(j)  # the consumed arrays themselves
                prep.release(j)

        # (the datasets laid out already first: the threads then share the rest)
        order = sorted(range(start, self.m), key=lambda j: j not in laid)
        share(lay_out, order, workers, NO_BAR)
        fused.count_by_key(
            sides, c,
            lambda tasks: share(lambda t: tasks[t](), range(len(tasks)), workers, NO_BAR),
            lambda j: bar.update(),
        )  # fmt: skip

    def count(
        self,
        r: Radius = _SAME,
        *,
        options: RiskOptions | None = None,
        progress: bool | None = None,
        n_jobs: int | None = None,
        warn: bool = True,
    ) -> IdentificationRiskResult:
        """The :class:`~idrisk.risk.IdentificationRiskResult` for radius ``r`` (default: the
        prepared options' radius) or for ``options`` (same known/syn/types/alignment as the
        prepared ones). ``warn``: the :class:`~idrisk.exceptions.RiskInputWarning` of the
        result's checks (a sweep may want them once, not per radius)."""
        options = self.resolve(r, options)
        c, own, checks, prep = self.counts(options, progress=progress, n_jobs=n_jobs)
        result = IdentificationRiskResult._from_counts(
            c, own, prep.index, checks, share=_sharing(prep.m, prep.n), **result_about(prep)
        )
        if warn:
            warn_about_checks(
                result, checks, prep.names, orig_name=prep.orig_name
            )
        return result

    def dataset_measures(self, r: Radius = _SAME) -> dict[str, np.ndarray]:
        """The per-dataset measures of :meth:`count` for radius ``r`` without its record-level
        result or its warnings: ``exp_risk``, ``true_rate``, ``false_rate``, ``s``, ``c_zero``
        and ``never_match`` (one value per dataset), as a radius sweep tabulates them.

        Examples
        --------
        >>> from idrisk import RiskOptions
        >>> from idrisk.datasets import load_demo
        >>> demo = load_demo(n=200, seed=1)
        >>> options = RiskOptions(known=["Age", "Urban"], syn="Income", r=0.1)
        >>> measures = prepare(demo, [demo], options).dataset_measures(0.05)
        >>> sorted(measures)
        ['c_zero', 'exp_risk', 'false_rate', 'never_match', 's', 'true_rate']
        """
        options = self.resolve(r)
        c, own, checks, _ = self.counts(options, progress=False, more=True)
        return _measures(c, own, checks, _n_workers(None, self.m, self.n, FUSED_THREAD_MIN_CELLS))

    def sweep_measures(self, radii: Sequence[Radius], bar: Any = NO_BAR) -> list[dict]:
        """:meth:`dataset_measures` of every radius, in order (``bar``: updated after each).

        When the datasets are counted from their stack (small inputs, more than one core;
        :meth:`counts` with ``more``), the radii after the first are pipelined: a helper
        thread counts a radius (one pass over the targets for every dataset) while this one
        lays out the next radius' targets, finds its own rows and sums the last one. The
        measures are those of :meth:`dataset_measures` one radius after the other.

        Examples
        --------
        >>> from idrisk import RiskOptions
        >>> from idrisk.datasets import load_demo
        >>> demo = load_demo(n=200, seed=1)
        >>> prepared = prepare(demo, [demo], RiskOptions(known=["Age", "Urban"], syn="Income"))
        >>> [round(float(m["exp_risk"][0]), 2) for m in prepared.sweep_measures([0.01, 0.1])]
        [177.0, 91.66]
        """
        radii = list(radii)
        out: list[dict] = []
        # (two cores and a stack: small inputs whose first radius laid every side out)
        pipelined = (_CORES > 1 and self.n * self.m <= STACK_MAX_CELLS
                     and _n_workers(None, self.m, self.n, FUSED_THREAD_MIN_CELLS) > 1)  # fmt: skip
        buffers: list[tuple[np.ndarray, np.ndarray]] = []
        pending = None  # (radius k's counting, its helper's future, its buffers)
        for k, r in enumerate(radii):
            if pending is None:  # (the first radius, or the sweep is not pipelined)
                out.append(self.dataset_measures(r))
                bar.update()
                if pipelined and k + 1 < len(radii):
                    buffers = buffers or [self._outputs(), self._outputs()]
                    pending = self._launch(radii[k + 1], buffers[(k + 1) % 2])
                    pipelined = pending is not None  # (else no later radius tries again)
                continue
            job, future, (c, own) = pending
            pending = None
            if k + 1 < len(radii):  # the next radius laid out and handed out first
                pending = self._launch(radii[k + 1], buffers[(k + 1) % 2])
                pipelined = pending is not None
            if future.cancel():  # (the helper had not started: counted here)
                job.fused.stack_counts(job.stack, c)
            else:
                future.result()
            out.append(_measures(c, own, job.checks, 1))
            bar.update()
        return out

    def _launch(self, r: Radius, buffers: tuple[np.ndarray, np.ndarray]) -> tuple | None:
        """Radius ``r`` of :meth:`sweep_measures` laid out, its pass over the targets handed
        to a helper thread and its own rows found into ``buffers``: ``(job, future,
        buffers)``, or None when its datasets are not counted from the kept stack."""
        options = self.resolve(r)
        kept = self._modes.get(options.r is None)  # (a mode is built by a count, not here)
        if kept is None or kept.cache is None or not kept.has_stack():  # (before any work)
            return None
        mode, _, rule, x, d, checks = self._radius(options)  # (mode is kept)
        cache = kept.cache.renew()
        fused = few_sweep(mode.encoder.keys, x, d, rule, mode.encoder.n_keys, cache,
                          before_first=True)  # fmt: skip
        stack = mode.stack(fused) if fused is not None else None
        if stack is None:
            return None
        mode.cache = cache
        job = _Job(fused, stack, checks)
        c, own = buffers
        future = _threads.start_helpers(lambda: fused.stack_counts(stack, c), 1)[0]
        fused.stack_own_rows(stack, own)
        return job, future, buffers


class _Job:
    """A radius of :meth:`Prepared.sweep_measures`: its sweep, the stack and input checks."""

    def __init__(self, fused: Any, stack: Any, checks: dict[str, Any]) -> None:
        self.fused, self.stack, self.checks = fused, stack, checks


def _measures(c: np.ndarray, own: np.ndarray, checks: dict[str, Any],
              workers: int) -> dict[str, np.ndarray]:  # fmt: skip
    """The per-dataset measures of :meth:`Prepared.dataset_measures` from the counts and own
    rows, each dataset summed on one of ``workers`` threads."""
    n, m = c.shape
    no_flags = np.empty((0, m), dtype=bool)  # T, K and F not written, only summed
    sums = np.zeros((m, 4), dtype=np.int64)
    exp_risk = np.zeros(m, dtype=np.float64)
    # each dataset summed alone (its sum in record order, R's): the datasets shared out
    cut = [m * t // workers for t in range(workers + 1)]
    share(lambda t: risk_summaries(
        c[:, cut[t]:cut[t + 1]], own[:, cut[t]:cut[t + 1]], no_flags, no_flags, no_flags,
        sums[cut[t]:cut[t + 1]], exp_risk[cut[t]:cut[t + 1]],
    ), range(workers), workers, NO_BAR)  # fmt: skip
    s, true_rate, false_rate, c_zero = dataset_measures(sums, n)
    return {
        "exp_risk": exp_risk, "true_rate": true_rate, "false_rate": false_rate, "s": s,
        "c_zero": c_zero, "never_match": np.broadcast_to(checks["never_match"], m),
    }  # fmt: skip


def prepare(
    confidential: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    options: RiskOptions,
    *,
    reusable: bool = True,
) -> Prepared:
    """Validate and encode the inputs of an identification-risk call once (see the module
    docstring). ``synthetic``: a frame, a list of frames or a
    :class:`~idrisk.SyntheticData`. ``reusable=False`` (one count, as
    :func:`~idrisk.identification_risk` does) releases each dataset's arrays once counted.

    Examples
    --------
    >>> import pandas as pd
    >>> from idrisk import RiskOptions
    >>> orig = pd.DataFrame({"Sex": ["F", "F", "M"], "Income": [10.0, 10.5, 30.0]})
    >>> prepared = prepare(orig, [orig], RiskOptions(known="Sex", syn="Income", r=0.1))
    >>> [prepared.count(r=r).c[1].tolist() for r in (0.01, 0.1)]
    [[1, 1, 1], [2, 2, 1]]
    """
    shared = _SHARED.get()
    if shared is None:
        return Prepared(check_inputs(confidential, synthetic, options), reusable=reusable)
    frames = synthetic_frames(synthetic)
    key = tuple(map(id, frames))
    first = shared.setdefault("confidential", confidential)
    found = shared.get(key)
    declared = set(options.categorical) | set(options.continuous)
    if (first is confidential and found is not None and not found[1].changed(options)
            and declared <= set(confidential.columns)):  # else check_inputs names them
        view = copy.copy(found[1])  # the same encoded inputs and caches, the caller's options
        view.options = options
        return view
    keep = (first is confidential and found is None
            and len(confidential) * len(frames) <= SHARE_MAX_CELLS)  # fmt: skip
    prepared = Prepared(check_inputs(confidential, frames, options), reusable=keep or reusable)
    if keep:
        shared[key] = (frames, prepared)
    return prepared


@contextmanager
def shared_preparation() -> Iterator[None]:
    """A block in which :func:`prepare` of the same frames and the same known/syn/types/
    alignment returns one :class:`Prepared` (see the module docstring)."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)
