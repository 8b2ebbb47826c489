"""``identification_risk`` on Dask: the same exact counts for data beyond one machine.

A target can only match synthetic records with the same *categorical key* (all categorical
known/syn variables equal; a categorical NA never matches). Records are therefore sent to
``npartitions`` buckets by their key; each bucket (its targets and, for one synthetic
dataset at a time, the synthetic records of its keys, with their global record ids) is counted
on its own by the single-machine engine (:mod:`idrisk.risk.matching`). T_i needs only row i itself,
which has the same key as target i whenever it can match, so it lands in the same bucket.

Work is organised as follows (every step is a Dask task graph run with ``scheduler``; the
per-task work is in :mod:`idrisk.risk._dask_buckets`):

1. one pass over the factor columns of the confidential data and the first synthetic dataset:
   row counts, the confidential index and the factor levels (R's rule: union of the levels of
   the confidential data and of the *first* synthetic dataset, computed by
   :mod:`idrisk.risk._prepare`); the row counts of the other synthetic datasets (from the
   Parquet metadata when Dask knows them without reading);
2. the confidential records are encoded (level codes, continuous values, record id), their
   keys placed in the buckets by size (largest first into the least loaded bucket), and each
   bucket's targets prepared once (key encoder, half-widths, the engine's cache of sorts) and
   persisted;
3. for each synthetic dataset in turn: its partitions are encoded and split the same way, and
   every bucket is counted; on a distributed cluster the next dataset is submitted while one
   runs (at most two in flight), and a task holds one partition or one bucket of one.

The result is an ordinary :class:`~idrisk.risk.IdentificationRiskResult` (n x m matrices on the
client, 9 bytes per record and dataset for c and T); the large inputs are the synthetic datasets,
which are never gathered. With ``out_dir`` the counts stay on the workers, which write the
record-level results to Parquet and return R's measures (:mod:`idrisk.risk._dask_records`).
"""

from __future__ import annotations

import dataclasses
import operator
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

import numpy as np
import pandas as pd

from .._output import atomic_dir, check_target
from .._progress import progress_bar
from .._schema import column_levels
from .._synthetic import synthetic_frames, synthetic_name
from ._checks import (
    checks_from_counts,
    merge_check_counts,
    result_about,
    warn_about_checks,
)
from ._dask_buckets import (
    Spec,
    count_bucket,
    encode,
    encode_split,
    key_sizes,
    least_loaded,
    place,
    prepare_targets,
    split,
)
from ._dask_records import (
    TaskGraph,
    WrittenRiskResult,
    check_written,
    cluster_client,
    compute_each,
    record_tasks,
    written_result,
)
from ._prepare import prepare_inputs
from .matching import MatchRule
from .options import RiskOptions
from .result import IdentificationRiskResult

__all__ = ["identification_risk_dask"]

_INSTALL_HINT = "pip install 'idrisk[dask]'"


def _import_dask():
    """``(dask, dask.dataframe)``, or an ImportError saying how to install them."""
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as exc:  # pragma: no cover - exercised only without dask
        raise ImportError(
            "identification_risk_dask needs the optional dependency dask[dataframe]: "
            + _INSTALL_HINT
        ) from exc
    return dask, dd


# --------------------------------------------------------------------------- inputs


@dataclass
class _Source:
    """One input frame as a list of lazily loaded pandas partitions."""

    parts: list[Any]  # dask Delayed objects, each a pandas DataFrame
    probe: pd.DataFrame  # two rows with the frame's dtypes (for validation)
    frame: pd.DataFrame | None  # the frame itself when it was given as pandas
    lengths: list[int] | None  # partition lengths, when known without computing
    lazy: Any = None  # the dask frame

    def columns(self, names: list[str]) -> list[Any]:
        """The partitions with only the columns ``names`` (less to read from Parquet)."""
        if self.lazy is None or not names:
            return self.parts
        return list(self.lazy[names].to_delayed())


def _source(frame: Any, chunks: int, used: list[str], dask, dd) -> _Source:
    from dask.dataframe.utils import meta_nonempty

    if isinstance(frame, pd.DataFrame):
        bounds = np.linspace(0, len(frame), max(1, min(chunks, len(frame))) + 1).astype(int)
        pieces = [frame.iloc[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        return _Source(
            parts=[dask.delayed(p) for p in pieces],
            probe=meta_nonempty(frame.iloc[:0]),
            frame=frame,
            lengths=[len(p) for p in pieces],
        )
    cols = [c for c in frame.columns if c in set(used)]
    return _Source(
        parts=list(frame[cols].to_delayed()),
        probe=meta_nonempty(frame._meta),
        frame=None,
        lengths=_known_lengths(frame),
        lazy=frame,
    )


def _known_lengths(frame: Any) -> list[int] | None:
    """Partition lengths Dask knows without reading the data (Parquet metadata, pandas
    frames), or None."""
    try:
        from dask.dataframe.dask_expr._expr import Lengths

        lengths = Lengths(frame.expr).optimize()
    except Exception:  # another Dask: the lengths are read
        return None
    value = getattr(lengths, "value", None)
    return [int(v) for v in value] if isinstance(value, tuple) else None


def _sources(confidential, synthetic, dask, dd) -> tuple[Any, list[Any]]:
    """Check the container types (as ``identification_risk`` does) and list the frames."""
    frame_types = (pd.DataFrame, dd.DataFrame)
    if not isinstance(confidential, frame_types):
        raise TypeError(
            f"confidential must be a pandas or dask DataFrame, got {type(confidential).__name__}"
        )
    return confidential, synthetic_frames(synthetic, frame_types=frame_types)


def _scan(
    part: pd.DataFrame, factors: list[str], index: bool
) -> tuple[pd.Index | None, int, dict[str, list[str]]]:
    """Index (if ``index``), length and per-column factor levels of one partition."""
    return part.index if index else None, len(part), {c: column_levels(part[c]) for c in factors}


def _merge_levels(per_part: list[list[str]], categorical: bool) -> list[str]:
    """Levels of a whole column from its partitions' levels.

    Categorical columns keep their declared order (partition by partition); other columns are
    sorted by label, as :func:`idrisk._schema.column_levels` does. Only the *set* of
    levels can change a result (codes are compared for equality only).
    """
    merged = list(dict.fromkeys(label for labels in per_part for label in labels))
    return merged if categorical else sorted(merged)


# --------------------------------------------------------------------------- public API


@overload
def identification_risk_dask(
    confidential: Any, synthetic: Any, options: RiskOptions, *, npartitions: int | None = ...,
    scheduler: Any = ..., progress: bool | None = ..., out_dir: None = ..., overwrite: bool = ...,
) -> IdentificationRiskResult: ...


@overload
def identification_risk_dask(
    confidential: Any, synthetic: Any, options: RiskOptions, *, npartitions: int | None = ...,
    scheduler: Any = ..., progress: bool | None = ..., out_dir: str | os.PathLike,
    overwrite: bool = ...,
) -> WrittenRiskResult: ...


def identification_risk_dask(
    confidential: Any,
    synthetic: Any,
    options: RiskOptions,
    *,
    npartitions: int | None = None,
    scheduler: Any = None,
    progress: bool | None = None,
    out_dir: str | os.PathLike | None = None,
    overwrite: bool = False,
) -> IdentificationRiskResult | WrittenRiskResult:
    """:func:`idrisk.identification_risk` computed with Dask, with identical results.

    Same rules, checks and result as :func:`idrisk.identification_risk` (R's factor-level
    union with the first synthetic dataset, radius hand-out in data-frame order, NA semantics,
    empty ``known``, ``exp_risk`` summed in record order); the options are one
    :class:`~idrisk.RiskOptions`.

    Parameters
    ----------
    confidential
        Confidential data: a pandas or a dask DataFrame (n rows).
    synthetic
        One synthetic DataFrame or a list of m, each pandas or dask; row i (by position, whatever
        the partitioning) is the synthetic version of confidential record i.
    options
        What to match and how (known/syn, radius, ...): see :class:`~idrisk.RiskOptions`.
    npartitions
        Number of key buckets the counting is split into (default: the number of partitions of
        ``confidential`` if it is a dask DataFrame, at least the number of CPUs). pandas inputs are
        cut into this many row chunks for encoding. Records of one categorical key always share a
        bucket, so without categorical variables all the counting is one task.
    scheduler
        Passed to ``dask.compute``/``dask.persist``: ``"synchronous"``, ``"threads"``,
        ``"processes"``, a ``distributed.Client``... (default: Dask's current default).
    progress
        Progress bar on the client, advanced per finished task (default: only for n x m of
        5,000,000 or more).
    out_dir
        A folder for the record-level results (it must not exist, or be empty): the workers
        write them there as Parquet, ``out_dir/dataset=<j>/part-<r>.parquet`` (one file per
        partition r of ``confidential``; columns ``record``, the record's 0-based position in
        ``confidential``, ``c``, ``T``, ``K``, ``F``, ``risk``), and only the per-dataset
        measures and checks come back: a :class:`~idrisk.risk._dask_records.WrittenRiskResult`
        (``.records()`` opens the files as a dask DataFrame). The folder appears only when
        every file is written. On a cluster it must be on storage that the workers and the
        client share. Default None: the n x m results come back to the client.
    overwrite
        Replace an existing, non-empty ``out_dir`` (otherwise an error before any work).

    ``options.align`` applies to pandas inputs (dask frames are paired by position). The NA,
    never-matched and c = 0 counts of ``result.checks`` (and their warnings) are computed as
    by the single-machine engine; the checks that read whole columns at once (numbers stored as
    text, integer codes given a radius) are left to it.

    Returns
    -------
    IdentificationRiskResult or WrittenRiskResult
        Equal, value for value, to ``identification_risk`` on the computed frames; with
        ``out_dir``, the same measures (``exp_risk`` to the last digit: R's sum in record
        order) and the records in the files.

    Raises
    ------
    ImportError
        Dask is not installed (``pip install 'idrisk[dask]'``).
    KeyError, ValueError, TypeError
        As :func:`idrisk.identification_risk`; also a non-positive ``npartitions``.
    idrisk.exceptions.OutputError
        ``out_dir`` exists and is not empty (and ``overwrite`` is false), or the workers'
        files cannot be seen from the client.

    Notes
    -----
    Memory: the confidential data is held once, encoded and bucketed (persisted); synthetic
    datasets are processed one after another, a partition or a bucket per task, and never
    gathered. Without ``out_dir`` the n x m results come back to the client (9 bytes per record
    and dataset); with it, the client holds a few numbers per partition.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from idrisk import RiskOptions, identification_risk_dask
    >>> orig = pd.DataFrame({"Sex": ["F", "F", "M", "M"], "Income": [10.0, 11.0, 30.0, 50.0]})
    >>> syn1 = dd.from_pandas(orig.assign(Income=[10.5, 14.0, 31.0, 20.0]), npartitions=2)
    >>> options = RiskOptions(known="Sex", syn="Income", r=0.1)
    >>> res = identification_risk_dask(orig, [syn1], options, scheduler="synchronous")
    >>> res.c[1].tolist(), res.T[1].tolist()
    ([1, 1, 1, 0], [1, 0, 1, 1])
    >>> float(res.exp_risk[1])
    2.0

    The record-level results written by the workers, the measures returned:

    >>> import os, tempfile
    >>> folder = os.path.join(tempfile.mkdtemp(), "risk")
    >>> res = identification_risk_dask(orig, [syn1], options, scheduler="synchronous",
    ...                                out_dir=folder)
    >>> float(res.exp_risk[1]), sorted(os.listdir(folder))
    (2.0, ['_SUCCESS', 'dataset=1'])
    >>> records = res.records().compute()
    >>> records["record"].tolist(), records["c"].tolist(), records["risk"].tolist()
    ([0, 1, 2, 3], [1, 1, 1, 0], [1.0, 0.0, 1.0, 0.0])

    On an existing cluster, connect a client to its scheduler's address and pass it (the
    inputs read lazily, e.g. from Parquet, so that the workers read them)::

        from distributed import Client
        client = Client("tcp://scheduler-host:8786")
        confidential = dd.read_parquet("/shared/confidential/")
        synthetic = [dd.read_parquet(f"/shared/synthetic{j}/") for j in range(1, 6)]
        res = identification_risk_dask(confidential, synthetic, options, scheduler=client,
                                       out_dir="/shared/risk-records", progress=True)
        res.exp_risk                      # R's measures, per synthetic dataset
        res.records()                     # the records, as a lazy dask DataFrame
    """
    dask, dd = _import_dask()
    if not isinstance(options, RiskOptions):
        raise TypeError(
            f"options must be a RiskOptions (e.g. RiskOptions(known=..., syn=..., r=...)), got "
            f"{type(options).__name__}"
        )
    if npartitions is not None and (
        isinstance(npartitions, bool)
        or not isinstance(npartitions, (int, np.integer))
        or npartitions < 1
    ):
        raise ValueError(f"npartitions must be a positive integer or None, got {npartitions!r}")
    if out_dir is not None:  # before any work
        out_dir = Path(out_dir).resolve()  # the workers' working directory may be another
        check_target(out_dir, overwrite=overwrite)
    confidential, frames = _sources(confidential, synthetic, dask, dd)
    frames = _aligned(confidential, frames, options.align)
    if npartitions is None:
        npartitions = max(
            confidential.npartitions if isinstance(confidential, dd.DataFrame) else 1,
            os.cpu_count() or 1,
        )
    buckets = int(npartitions)
    used = list(options.variables)
    orig_src = _source(confidential, buckets, used, dask, dd)
    syn_src = [_source(f, buckets, used, dask, dd) for f in frames]

    # validation, categorical/continuous split and radius hand-out: the engine's own rules,
    # applied to two-row probes with the inputs' dtypes (no data is read)
    prep = prepare_inputs(
        orig_src.probe, [s.probe for s in syn_src], options, value_checks=False
    )
    factors = list(prep.levels)

    # pass 1: row counts, the confidential index, factor levels of the confidential data and
    # of synthetic[0]
    scans: dict[str, Any] = {}
    if orig_src.frame is None:
        scans["orig"] = [
            dask.delayed(_scan)(p, factors, out_dir is None) for p in orig_src.columns(factors)
        ]
    if syn_src[0].frame is None:
        scans["syn1"] = [
            dask.delayed(_scan)(p, factors, False) for p in syn_src[0].columns(factors)
        ]
    for j, s in enumerate(syn_src[1:], start=2):
        if s.lengths is None:
            scans[f"len{j}"] = [dask.delayed(len)(p) for p in s.parts]
    (scanned,) = dask.compute(scans, scheduler=scheduler) if scans else ({},)

    def levels_and_lengths(src: _Source, key: str) -> tuple[dict[str, list[str]], list[int]]:
        if src.frame is not None:
            assert src.lengths is not None  # known for in-memory frames
            return {c: column_levels(src.frame[c]) for c in factors}, src.lengths
        rows = scanned[key]
        levels = {
            c: _merge_levels(
                [lv[c] for _, _, lv in rows], isinstance(src.probe[c].dtype, pd.CategoricalDtype)
            )
            for c in factors
        }
        return levels, [length for _, length, _ in rows]

    orig_levels, orig_lengths = levels_and_lengths(orig_src, "orig")
    syn1_levels, _ = levels_and_lengths(syn_src[0], "syn1")
    n = int(sum(orig_lengths))
    syn_lengths = []
    for j, s in enumerate(syn_src, start=1):
        if s.lengths is not None:
            lengths = s.lengths
        elif j == 1:
            lengths = [length for _, length, _ in scanned["syn1"]]
        else:
            lengths = list(scanned[f"len{j}"])
        total = int(sum(lengths))
        if total != n:
            raise ValueError(
                f"{synthetic_name(j)} has {total} rows but the "
                f"confidential data has {n}: row i of every synthetic dataset must be the "
                "synthetic version of confidential record i"
            )
        syn_lengths.append(lengths)
    if n == 0:
        raise ValueError("the confidential data has no rows")

    levels = {}
    for col in factors:
        lv = orig_levels[col]
        lv = lv + [x for x in syn1_levels[col] if x not in set(lv)]
        levels[col] = pd.Index(lv)
    spec = Spec(
        categorical=tuple(prep.categorical),
        levels=levels,
        continuous=tuple(prep.continuous),
        radii=None if prep.radii is None else prep.radius_vector,
        cont_known=prep.cont_known,
        percentage=options.percentage,
        abs_radius=options.abs_radius,
        euclidean_dist=options.euclidean_dist,
        rule=MatchRule(
            closed=options.closed, na_matches=options.na_matches, ellipsoid=options.ellipsoid
        ),
        buckets=buckets,
        parse=frozenset(c for c in options.continuous if c in set(used)),
    )

    # pass 2: the confidential records, encoded (persisted), keys placed in buckets by their
    # sizes, then bucketed once
    offsets = np.concatenate([[0], np.cumsum(orig_lengths)[:-1]]).astype(int)
    encoded = dask.persist(
        *[
            dask.delayed(encode)(part, int(off), spec, "the confidential data", True)
            for part, off in zip(orig_src.parts, offsets)
        ],
        scheduler=scheduler,
    )
    sizes_by_part, orig_counts = dask.compute(
        [dask.delayed(key_sizes)(e) for e in encoded],
        [dask.delayed(operator.getitem)(e, 1) for e in encoded],
        scheduler=scheduler,
    )  # fmt: skip
    placed = place(sizes_by_part, buckets)
    spec = dataclasses.replace(spec, placed=None if placed is None else placed[:2])
    tsplit = [dask.delayed(split, nout=buckets)(e, spec) for e in encoded]
    client = cluster_client(scheduler)
    owner = np.zeros(buckets, dtype=np.int64)
    workers: list[Any] = [None]
    if client is not None and placed is not None:
        # buckets spread over the workers by size: each bucket's counts run where it is
        workers = sorted(client.scheduler_info()["workers"])
        owner, _ = least_loaded(placed[2], len(workers))
    prepared = []
    for b in range(buckets):
        where = {} if workers[owner[b]] is None else {"workers": [workers[owner[b]]]}
        with dask.annotate(**where, allow_other_workers=True):
            prepared.append(dask.delayed(prepare_targets)([t[b] for t in tsplit], spec))
    tbuckets = dask.persist(*prepared, scheduler=scheduler)
    del encoded, tsplit, prepared  # released once the buckets are built
    (sizes,) = dask.compute([dask.delayed(len)(t) for t in tbuckets], scheduler=scheduler)
    live = [b for b in range(buckets) if sizes[b] > 0]

    # pass 3: synthetic datasets one at a time
    m = len(syn_src)
    if progress is None:
        progress = n * m >= 5_000_000
    per_dataset = len(live) if out_dir is None else len(orig_lengths) + 1
    bar = progress_bar(total=sum(per_dataset + len(src.parts) for src in syn_src),
                       desc="identification risk (dask)", unit="task", show=progress)

    def counted(j: int) -> tuple[TaskGraph, list[tuple], list[tuple]]:
        """The graph of synthetic dataset j (0-based): keys of its count tasks (one per live
        bucket) and of its check counts (one per partition)."""
        src, offsets = syn_src[j], np.cumsum([0, *syn_lengths[j][:-1]])
        graph = TaskGraph("count", [*src.parts, *(tbuckets[b] for b in live)])
        spec_key, where = graph.value(("spec",), spec), synthetic_name(j + 1)
        pieces: list[dict[int, tuple]] = []
        for i, (part, off) in enumerate(zip(src.parts, offsets)):
            cut = graph.add(("split", i), encode_split, part.key, int(off), spec_key, where,
                              False)  # fmt: skip
            # the pieces of the buckets that have targets, and the check counts (last)
            pieces.append({b: graph.add(("split", i, b), operator.getitem, cut, b)
                           for b in [*live, buckets]})  # fmt: skip
        tasks = [
            graph.add(("count", b), count_bucket, tbuckets[b].key, [p[b] for p in pieces],
                      spec_key)
            for b in live
        ]  # fmt: skip
        return graph, tasks, [p[buckets] for p in pieces]

    names = [synthetic_name(j) for j in range(1, m + 1)]
    about = result_about(prep)
    syn_counts = []
    with bar:
        if out_dir is None:
            c = np.zeros((n, m), dtype=np.int64, order="F")
            own = np.zeros((n, m), dtype=bool, order="F")

            def count_batches() -> Iterator[list[Any]]:
                for j in range(m):
                    graph, tasks, checked = counted(j)
                    yield graph.outputs([*tasks, *checked])

            for j, done in enumerate(compute_each(count_batches(), scheduler, bar)):
                for tid, cb, ob in done[: len(live)]:
                    c[tid, j], own[tid, j] = cb, ob
                syn_counts.append(merge_check_counts(done[len(live):]))
            checks = checks_from_counts(merge_check_counts(orig_counts), syn_counts)
            result = IdentificationRiskResult.from_counts(
                c, own, index=_index(orig_src, scanned), checks=checks, **about
            )
            warn_about_checks(result, checks, names)
            return result
        bounds = np.concatenate([[0], np.cumsum(orig_lengths)]).astype(np.int64)
        sums = np.zeros((m, 4), dtype=np.int64)
        exp_risk = np.zeros(m, dtype=np.float64)
        parts = len(orig_lengths)
        with atomic_dir(out_dir, overwrite=overwrite) as tmp:

            def write_batches() -> Iterator[list[Any]]:
                for j in range(m):
                    graph, tasks, checked = counted(j)
                    folder = tmp / f"dataset={j + 1}"
                    folder.mkdir()
                    writes, chain = record_tasks(graph, tasks, bounds, folder)
                    yield graph.outputs([*writes, chain, *checked])

            for j, done in enumerate(compute_each(write_batches(), scheduler, bar)):
                sums[j] = np.sum(done[:parts], axis=0)
                exp_risk[j] = done[parts]
                syn_counts.append(merge_check_counts(done[parts + 1:]))
            check_written(tmp, m, parts)
    checks = checks_from_counts(merge_check_counts(orig_counts), syn_counts)
    written = written_result(sums, exp_risk, n, Path(out_dir), checks, about)
    warn_about_checks(written, checks, names)  # type: ignore[arg-type]  # n, r, checks
    return written


def _index(src: _Source, scanned: dict[str, Any]) -> pd.Index:
    """The confidential data's index (of the frame, or from the scan of its partitions)."""
    if src.frame is not None:
        return src.frame.index
    parts = [i for i, _, _ in scanned["orig"]]
    return parts[0].append(parts[1:]) if len(parts) > 1 else parts[0]


def _aligned(confidential: Any, frames: list[Any], align: str | None) -> list[Any]:
    """idrisk._align's row rule for pandas inputs (dask frames are taken by position)."""
    from .._align import check_align, check_frame_alignment

    rule = check_align(align)
    if not isinstance(confidential, pd.DataFrame):
        return frames
    return [
        check_frame_alignment(confidential, f, synthetic_name(j), rule)
        if isinstance(f, pd.DataFrame)
        else f
        for j, f in enumerate(frames, start=1)
    ]
