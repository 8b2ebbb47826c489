"""Record-level results that stay on the cluster: :func:`identification_risk_dask` with
``out_dir``.

The workers turn the match counts of each synthetic dataset into the record-level results
(record, c, T, K, F, risk) of each confidential partition and write them as one Parquet file
per partition and dataset, under ``out_dir/dataset=<j>/`` (a hive partition column, so
``dask.dataframe.read_parquet(out_dir)`` gives one frame with a ``dataset`` column). Only four
integers per partition (s, Σ K, Σ F, records with c = 0) and the expected risk come back.

The expected risk is R's sum of T_i / c_i **in record order** with one double accumulator
(:func:`idrisk.risk._kernels.risk_summaries`). Partial sums added together are not that sum in
general (floating-point addition is not associative), so it is computed by a chain of small
tasks: partition r's task starts from the running total of partitions 0..r-1 and adds its own
risks one by one, in record order (``np.cumsum`` adds left to right). The chain moves one
double from task to task; the risks stay where they were computed.

Everything is written into a temporary folder beside ``out_dir`` and moved into place only
when every file is written (:func:`idrisk._output.atomic_dir`): after a failure no
``out_dir`` appears, and nothing half-written carries its name.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._result import Result
from ..exceptions import OutputError
from ._kernels import risk_summaries
from .options import RiskOptions
from .result import checks_table, dataset_measures, measures_summary, span_text

__all__ = ["TaskGraph", "WrittenRiskResult", "cluster_client", "compute_each", "record_tasks",
           "written_result"]

#: columns of the written records (``dataset`` is the folder's partition column)
RECORD_COLUMNS = ("record", "c", "T", "K", "F", "risk")
SUCCESS = "_SUCCESS"


# --------------------------------------------------------------------------- worker tasks


def _by_range(counted: tuple[np.ndarray, np.ndarray, np.ndarray], bounds: np.ndarray) -> list:
    """Split one bucket's ``(record ids, c, own)`` (ids ascending) by confidential partition."""
    tid, c, own = counted
    cuts = np.searchsorted(tid, bounds)
    return [(tid[a:b], c[a:b], own[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]


def _records(
    pieces: Sequence[tuple], start: int, stop: int
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Record-level results (columns :data:`RECORD_COLUMNS`) of the confidential records
    ``start..stop-1`` (one partition) and their counts ``(s, Σ K, Σ F, records with c = 0)``.

    Records in no bucket (a missing key value) match nothing: c = 0, as in the engine.
    """
    n = stop - start
    c = np.zeros((n, 1), dtype=np.int32, order="F")
    own = np.zeros((n, 1), dtype=bool, order="F")
    for tid, cb, ob in pieces:
        c[tid - start, 0], own[tid - start, 0] = cb, ob
    t, k, f = (np.empty((n, 1), dtype=bool, order="F") for _ in range(3))
    sums = np.zeros((1, 4), dtype=np.int64)
    risk_summaries(c, own, t, k, f, sums, np.zeros(1))  # R's T, K, F (the engine's kernel)
    hit = t[:, 0] & (c[:, 0] > 0)
    risk = np.empty(n, dtype=np.float64)
    np.divide(hit, np.maximum(c[:, 0], 1), out=risk)  # T / c, 0 when c = 0 (as result.risk)
    record = np.arange(start, stop, dtype=np.int64)
    values: list[np.ndarray] = [record, c[:, 0], t[:, 0], k[:, 0], f[:, 0], risk]
    return dict(zip(RECORD_COLUMNS, values)), sums[0]


def _write(records: tuple[dict[str, np.ndarray], np.ndarray], path: str) -> np.ndarray:
    """Write one partition's records (into a folder the client created) and return its
    counts. A folder removed after a failure is not created again."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns, sums = records
    # no dictionary pages: a third faster to write, for files a little larger
    pq.write_table(pa.table(columns), path, use_dictionary=False)
    return sums


def _add_risks(total: float, records: tuple[dict[str, np.ndarray], np.ndarray]) -> float:
    """``total`` + the partition's risks, added one at a time in record order."""
    return float(np.cumsum(np.concatenate([[total], records[0]["risk"]]))[-1])


# --------------------------------------------------------------------------- the graph


class TaskGraph:
    """The tasks of one step as one low-level graph (one Dask layer).

    Chained ``dask.delayed`` calls merge and cull their inputs' graphs at every call (seconds
    of client time for a few thousand tasks); here the tasks are listed once and wrapped in
    Delayed objects at the end. ``inputs``: the Delayed objects the tasks refer to by key.
    """

    def __init__(self, name: str, inputs: Sequence[Any]) -> None:
        import uuid

        self.name = f"{name}-{uuid.uuid4().hex}"
        self.inputs = list(inputs)
        self.layer: dict[Any, Any] = {}

    def add(self, label: tuple, function: Any, *args: Any) -> tuple:
        """Add the task ``function(*args)`` (keys in ``args`` stand for results) under
        ``label``; returns its key."""
        key = (self.name, *label)
        self.layer[key] = (function, *args)
        return key

    def value(self, label: tuple, value: Any) -> tuple:
        """Put ``value`` in the graph once (shipped once per worker, not with every task)."""
        key = (self.name, *label)
        self.layer[key] = value
        return key

    def outputs(self, keys: Sequence[tuple]) -> list[Any]:
        from dask.delayed import Delayed
        from dask.highlevelgraph import HighLevelGraph

        graph = HighLevelGraph.from_collections(self.name, self.layer, dependencies=self.inputs)
        return [Delayed(key, graph, layer=self.name) for key in keys]


def record_tasks(
    graph: TaskGraph, counted: list[tuple], bounds: np.ndarray, folder: Path
) -> tuple[list[tuple], tuple]:
    """Add the tasks writing one synthetic dataset's records into ``folder`` (one file per
    partition of the confidential data, ``bounds``: their first record ids and n) and the task
    of its expected risk (the record-order chain); returns their keys."""
    import operator

    parts = len(bounds) - 1
    pieces = [graph.add(("range", b), _by_range, key, bounds) for b, key in enumerate(counted)]
    writes, total = [], graph.value(("total", -1), 0.0)
    for r in range(parts):
        mine = [graph.add(("piece", b, r), operator.getitem, key, r)
                for b, key in enumerate(pieces)]  # fmt: skip
        records = graph.add(("records", r), _records, mine, int(bounds[r]), int(bounds[r + 1]))
        path = str(folder / f"part-{r:05d}.parquet")
        writes.append(graph.add(("write", r), _write, records, path))
        total = graph.add(("total", r), _add_risks, total, records)
    return writes, total


def cluster_client(scheduler: Any) -> Any:
    """The ``distributed.Client`` a computation runs on, or None (another scheduler)."""
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - distributed is optional
        return None
    if isinstance(scheduler, Client):
        return scheduler
    if scheduler is None:  # dask's default: a client made current, if any
        import dask.base

        owner = getattr(dask.base.get_scheduler(), "__self__", None)
        return owner if isinstance(owner, Client) else None
    return None


def compute_each(batches: Iterable[list[Any]], scheduler: Any, bar: Any) -> Iterator[list[Any]]:
    """The results of each batch of tasks, in order (``bar`` advanced per finished task on a
    distributed cluster, per batch otherwise).

    On a distributed cluster the next batch is submitted while the current one runs: its
    tasks fill the workers' idle time at the end of a batch (the scheduler runs older batches
    first). On a failure the cluster's unfinished tasks are cancelled.
    """
    client = cluster_client(scheduler)
    if client is None:
        import dask

        for tasks in batches:
            (out,) = dask.compute(tasks, scheduler=scheduler)
            bar.update(len(tasks))
            yield list(out)
        return
    submitted: deque[list[Any]] = deque()
    try:
        for tasks in batches:
            submitted.append(client.compute(tasks))
            if len(submitted) > 1:
                yield _gathered(client, submitted.popleft(), bar)
        while submitted:
            yield _gathered(client, submitted.popleft(), bar)
    except BaseException:
        for futures in submitted:
            client.cancel(futures)
        raise


def _gathered(client: Any, futures: list[Any], bar: Any) -> list[Any]:
    from distributed import as_completed

    try:
        for _ in as_completed(futures):
            bar.update(1)
        return list(client.gather(futures))
    except BaseException:
        client.cancel(futures)
        raise


def check_written(folder: Path, m: int, parts: int, argument: str = "out_dir") -> None:
    """Every file the workers were asked to write is there (on a cluster, ``out_dir`` must be
    on storage that the workers and this process share)."""
    missing = [
        f"dataset={j}/part-{r:05d}.parquet"
        for j in range(1, m + 1) for r in range(parts)
        if not (folder / f"dataset={j}" / f"part-{r:05d}.parquet").is_file()
    ]  # fmt: skip
    if missing:
        raise OutputError(
            f"{argument}: the workers' files are not visible from this process "
            f"({len(missing)} missing, e.g. {missing[0]}); {argument} must be on storage that "
            "every worker and the client share",
            flag=argument,
            file=str(folder),
        )
    (folder / SUCCESS).write_text("")


# --------------------------------------------------------------------------- the result


@dataclass(frozen=True, repr=False, eq=False)
class WrittenRiskResult(Result):
    """:func:`idrisk.identification_risk_dask` with ``out_dir``: R's per-dataset measures,
    with the record-level results left in Parquet files written by the workers.

    The measures are those of :class:`~idrisk.IdentificationRiskResult`, to the last digit
    (``exp_risk`` summed in record order); no n x m array is held. :meth:`records` opens the
    written records lazily.

    Attributes
    ----------
    s, exp_risk, true_rate, false_rate
        R's measures per synthetic dataset (Series indexed by dataset 1..m).
    n
        Number of confidential records.
    out_dir
        The folder of the record-level results: ``dataset=<j>/part-<r>.parquet``, one file per
        confidential partition r, columns ``record`` (the record's position, 0-based, in the
        confidential data), ``c`` (int32), ``T``, ``K``, ``F`` (bool) and ``risk`` (float64).
    checks
        Per dataset, the records with NA, never matched and with c = 0 (as the single-machine
        result's ``checks``).
    options, r, categorical, continuous
        What the call used (as on :class:`~idrisk.IdentificationRiskResult`).
    """

    s: pd.Series
    exp_risk: pd.Series
    true_rate: pd.Series
    false_rate: pd.Series
    n: int
    out_dir: str
    checks: pd.DataFrame
    options: RiskOptions | None = None
    r: dict[str, float] | None = None
    categorical: tuple[str, ...] = ()
    continuous: tuple[str, ...] = ()

    @property
    def m(self) -> int:
        return len(self.s)

    def records(self) -> Any:
        """The written record-level results as a lazy dask DataFrame (columns ``record``, ``c``,
        ``T``, ``K``, ``F``, ``risk`` and the partition column ``dataset``)."""
        import dask.dataframe as dd

        return dd.read_parquet(self.out_dir)

    def to_frame(self, rows: str = "dataset") -> pd.DataFrame:
        """One row per synthetic dataset (s, exp_risk, true_rate, false_rate); the record-level
        rows are in ``out_dir`` (:meth:`records`)."""
        if rows != "dataset":
            raise ValueError(
                f"rows must be 'dataset' (the records are in {self.out_dir}: use .records()), "
                f"got {rows!r}"
            )
        return pd.concat([self.s, self.exp_risk, self.true_rate, self.false_rate], axis=1)

    def interval(self, level: float = 0.95) -> pd.DataFrame:
        """Monte-Carlo mean, se and t-interval of the measures over the m datasets
        (as :meth:`idrisk.IdentificationRiskResult.interval`)."""
        from .precision import interval

        return interval(self, level)

    def summary(self) -> pd.DataFrame:
        """Mean, sd, min and max over the m datasets of the measures and the ``checks``
        counts, with the 95% interval (as :meth:`idrisk.IdentificationRiskResult.summary`)."""
        return measures_summary(self)

    def _header(self) -> str:
        return f"WrittenRiskResult(n={self.n}, m={self.m}, out_dir={self.out_dir!r})"

    def _display(self) -> pd.DataFrame:
        table = self.to_frame()
        mean = table.mean().to_frame("mean").T
        return pd.concat([table.astype(object), mean.astype(object)])

    def _notes(self) -> list[str]:
        return [
            f"record-level results (record, c, T, K, F, risk): {self.out_dir}/dataset=<j>/ "
            "(open with .records())",
            f"records of {self.n} with c = 0 (T = 1, risk 0): {span_text(self.checks['c_zero'])}",
        ]


def written_result(
    sums: np.ndarray, exp_risk: np.ndarray, n: int, out_dir: Path, checks: dict[str, Any],
    about: dict[str, Any],
) -> WrittenRiskResult:
    """The result from the per-dataset counts ``sums`` (m x 4: s, Σ K, Σ F, c = 0) and
    expected risks; ``checks`` as :func:`~idrisk.risk._checks.checks_from_counts`."""
    columns = pd.RangeIndex(1, len(exp_risk) + 1, name="dataset")
    s, true_rate, false_rate, c_zero = dataset_measures(sums, n)

    def series(values: Any, name: str) -> pd.Series:
        return pd.Series(np.asarray(values), index=columns, name=name)

    return WrittenRiskResult(
        s=series(s, "s"), exp_risk=series(exp_risk, "exp_risk"),
        true_rate=series(true_rate, "true_rate"), false_rate=series(false_rate, "false_rate"),
        n=n, out_dir=os.fspath(out_dir), checks=checks_table(checks, c_zero), **about,
    )  # fmt: skip
