"""``identification_risk_dask(..., out_dir=...)``: the workers write the record-level results,
the client gets R's measures, bit for bit those of ``identification_risk``.

* random problems with every option (hypothesis) and many partitions: the written records
  (c, T, K, F, risk, by record position) equal the single-machine result's, and s, exp_risk,
  true_rate, false_rate and the checks are the same doubles;
* the expected risk is R's sum in record order: on data where adding the partitions' own sums
  gives other doubles, the chain over partitions still gives R's;
* a ``distributed.LocalCluster`` of two worker processes with a memory limit, reading Parquet;
* a failure leaves no ``out_dir`` and no temporary folder; an existing folder is refused.

The cluster tests are bounded by a watchdog: a hang ends the test process with a traceback
instead of holding CI.
"""

from __future__ import annotations

import faulthandler
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idrisk import RiskOptions, identification_risk
from idrisk.exceptions import ColumnTypeError, OutputError

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("pyarrow")

from strategies import risk_problems  # noqa: E402

from idrisk.risk import dask_engine  # noqa: E402
from idrisk.risk._dask_records import WrittenRiskResult  # noqa: E402
from idrisk.risk.dask_engine import identification_risk_dask  # noqa: E402

RECORDS = ("c", "T", "K", "F", "risk")
MEASURES = ("s", "exp_risk", "true_rate", "false_rate")
WATCHDOG_SECONDS = 240


def as_dask(frame: pd.DataFrame, parts: int):
    return dd.from_pandas(frame, npartitions=parts, sort=False)


def assert_written_equal(got: WrittenRiskResult, want) -> None:
    """Records in the files == the single-machine matrices; measures the same doubles."""
    assert isinstance(got, WrittenRiskResult)
    records = got.records().compute()
    assert len(records) == want.n * want.m
    for j in range(1, want.m + 1):
        rows = records[records["dataset"].astype(int) == j].sort_values("record")
        np.testing.assert_array_equal(rows["record"].to_numpy(), np.arange(want.n))
        for name in RECORDS:
            np.testing.assert_array_equal(
                rows[name].to_numpy(), want.array(name)[:, j - 1], err_msg=f"{name}, {j}"
            )
    for name in MEASURES:
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype, name
        # the same doubles, bit for bit (NaN false_rate included)
        assert a.to_numpy().tobytes() == b.to_numpy().tobytes(), (name, a, b)
    pd.testing.assert_frame_equal(got.checks, want.checks)
    assert (got.n, got.m, got.r, got.options) == (want.n, want.m, want.r, want.options)
    assert (got.categorical, got.continuous) == (want.categorical, want.continuous)


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# --------------------------------------------------------------------------- exactness


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(problem=risk_problems(), npartitions=st.integers(1, 4), parts=st.integers(1, 5),
       scheduler=st.sampled_from(["synchronous", "threads"]))  # fmt: skip
def test_written_records_equal_single_machine(tmp_path_factory, problem, npartitions, parts,
                                              scheduler):
    orig, syns, call = problem
    want = _quiet(identification_risk, orig, syns, **call)
    d_orig = as_dask(orig.reset_index(drop=True), parts)
    d_syns = [as_dask(f.reset_index(drop=True), 1 + j % 3) for j, f in enumerate(syns)]
    out = tmp_path_factory.mktemp("risk") / "records"
    got = _quiet(identification_risk_dask, d_orig, d_syns, RiskOptions(**call),
                 npartitions=npartitions, scheduler=scheduler, out_dir=out)
    assert_written_equal(got, want)


def _problem(n: int, m: int, seed: int):
    """Age, sex and tenure known, income synthesized (1% missing in the confidential data,
    matching anything under R's rule): c from 1 to hundreds."""
    rng = np.random.default_rng(seed)
    income = np.round(rng.lognormal(10, 1, n), 2)
    income[rng.random(n) < 0.01] = np.nan
    orig = pd.DataFrame({"Age": rng.integers(18, 90, n) * 1.0, "Income": income,
                         "Sex": pd.Categorical(rng.choice(["F", "M"], n)),
                         "Tenure": rng.choice(["own", "rent", "other"], n, p=[0.6, 0.3, 0.1])})
    syns = [orig.assign(Income=rng.permutation(income) * rng.lognormal(0, 0.05, n))
            for _ in range(m)]  # fmt: skip
    return orig, syns, RiskOptions(known=["Age", "Sex", "Tenure"], syn=["Income"], r=0.1)


def _partition_sums_differ(want, bounds) -> bool:
    """Would adding the partitions' own record-order sums give another double than R's?"""
    risk = want.array("risk")
    for j in range(want.m):
        naive = 0.0
        for a, b in zip(bounds[:-1], bounds[1:]):
            naive += float(np.cumsum(risk[a:b, j])[-1]) if b > a else 0.0
        if naive != want.exp_risk.iloc[j]:
            return True
    return False


def test_exp_risk_is_the_record_order_sum_not_a_sum_of_partition_sums(tmp_path):
    orig, syns, options = _problem(3000, 3, seed=7)
    want = _quiet(identification_risk, orig, syns, **options.as_dict())
    d_orig = as_dask(orig, 6)
    bounds = np.concatenate([[0], np.cumsum(d_orig.map_partitions(len).compute())])
    # the test can tell the two apart: partition sums added together give other doubles
    assert _partition_sums_differ(want, bounds)
    got = _quiet(identification_risk_dask, d_orig, [as_dask(s, 4) for s in syns], options,
                 npartitions=3, scheduler="threads", out_dir=tmp_path / "out")
    assert_written_equal(got, want)
    # nothing of record length is held on the client
    assert not any(isinstance(v, np.ndarray) and v.size >= want.n
                   for v in vars(got).values())


# --------------------------------------------------------------------------- the folder


def test_existing_folder_is_refused_before_any_work(tmp_path):
    orig, syns, options = _problem(50, 1, seed=1)
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.parquet").write_text("x")
    with pytest.raises(OutputError, match=r"out_dir: .*out exists; pass overwrite=True"):
        # a scheduler that would fail on any work: the error comes first
        identification_risk_dask(orig, syns, options, out_dir=out, scheduler="no-such")
    assert os.listdir(out) == ["old.parquet"]
    got = _quiet(identification_risk_dask, orig, syns, options, out_dir=out, overwrite=True,
                 scheduler="synchronous")
    assert sorted(os.listdir(out)) == ["_SUCCESS", "dataset=1"]
    assert int(got.s.iloc[0]) == int(got.records().compute()["K"].sum() +
                                     got.records().compute()["F"].sum())
    # an empty folder is fine
    empty = tmp_path / "empty"
    empty.mkdir()
    _quiet(identification_risk_dask, orig, syns, options, out_dir=empty, scheduler="synchronous")
    assert (empty / "_SUCCESS").exists()


def _failing_inputs(tmp_path):
    """Synthetic dataset 2 holds a text income with one unparsable value in its last
    partition: it fails while dataset 2 is counted, after dataset 1 was written."""
    orig, syns, options = _problem(400, 2, seed=3)
    bad = syns[1].assign(Income=syns[1]["Income"].astype(str))
    bad.loc[390, "Income"] = "oops"
    options = options.replace(continuous=("Income",))
    return orig, [syns[0], bad], options


def test_failure_leaves_nothing(tmp_path, monkeypatch):
    orig, syns, options = _failing_inputs(tmp_path)
    finished = []

    def compute_each(batches, scheduler, bar):
        for out in real(batches, scheduler, bar):
            finished.append(len(out))
            yield out

    real = dask_engine.compute_each
    monkeypatch.setattr(dask_engine, "compute_each", compute_each)
    out = tmp_path / "run" / "out"
    with pytest.raises(ColumnTypeError, match="oops"):
        _quiet(identification_risk_dask, orig, [syns[0], as_dask(syns[1], 3)], options,
               npartitions=2, scheduler="threads", out_dir=out)
    assert len(finished) == 1  # dataset 1 was written, dataset 2 failed
    assert os.listdir(tmp_path / "run") == []  # no out_dir, no temporary folder


# --------------------------------------------------------------------------- a real cluster


@pytest.fixture(scope="module")
def cluster_client():
    """Two worker processes, one thread each, 1 GiB each; closed whatever happens."""
    distributed = pytest.importorskip("distributed")
    faulthandler.dump_traceback_later(WATCHDOG_SECONDS, exit=True)
    try:
        with distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GiB",
            dashboard_address=None,
        ) as cluster, distributed.Client(cluster) as client:  # fmt: skip
            yield client
    finally:
        faulthandler.cancel_dump_traceback_later()


def _to_parquet(frame: pd.DataFrame, folder, parts: int):
    as_dask(frame, parts).to_parquet(folder, write_index=False)
    return dd.read_parquet(folder)


def test_local_cluster_writes_the_records(cluster_client, tmp_path):
    """2,000 x 3 from Parquet on two worker processes: the files hold the single-machine
    records and the measures are bit-identical; the client drives a progress bar."""
    import distributed

    orig, syns, options = _problem(2000, 3, seed=12)
    want = _quiet(identification_risk, orig, syns, **options.as_dict())
    d_orig = _to_parquet(orig, tmp_path / "orig", 5)
    d_syns = [_to_parquet(s, tmp_path / f"syn{j}", 2 + j) for j, s in enumerate(syns)]
    with distributed.get_task_stream(cluster_client) as stream:
        got = _quiet(identification_risk_dask, d_orig, d_syns, options, npartitions=4,
                     scheduler=cluster_client, out_dir=tmp_path / "out", progress=True)
    workers = {task["worker"] for task in stream.data}
    assert len(workers) == 2  # both worker processes took part
    assert_written_equal(got, want)
    assert len(os.listdir(tmp_path / "out" / "dataset=1")) == 5  # one file per partition
    assert str(tmp_path / "out") in repr(got)


def test_local_cluster_failure_leaves_nothing(cluster_client, tmp_path):
    orig, syns, options = _failing_inputs(tmp_path)
    d_syns = [_to_parquet(s, tmp_path / f"syn{j}", 3) for j, s in enumerate(syns)]
    (tmp_path / "run").mkdir()
    with pytest.raises(ColumnTypeError, match="oops"):
        _quiet(identification_risk_dask, orig, d_syns, options, npartitions=2,
               scheduler=cluster_client, out_dir=tmp_path / "run" / "out")
    assert os.listdir(tmp_path / "run") == []
