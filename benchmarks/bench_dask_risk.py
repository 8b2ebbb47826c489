"""Speed of ``identification_risk_dask`` (pytest-benchmark).

Run:  python -m pytest benchmarks/bench_dask_risk.py --benchmark-enable \
          --benchmark-json benchmarks/results/dask_risk.json

* n = 1,000,000 records, m = 4 synthetic datasets, three categorical known variables (50 keys)
  and one continuous synthesized variable (r = 0.1), on the local threaded scheduler: dask
  DataFrames (8 partitions), 8 key buckets; the single-machine engine runs on the same data
  and the two results are checked to be identical.
* n = 10,000,000 records, m = 5, read from Parquet (20 files per dataset) by a
  ``distributed.LocalCluster`` of 2 worker processes with 2 GB each (known Age, Urban,
  Marital; Income synthesized; r = 0.1), the record-level results written to Parquet by the
  workers (``out_dir``): time, the driver's and each worker's peak RSS and CPU seconds; the
  same on the first 1,000,000 records, checked against the single-machine engine. Identity is
  tested on small data in ``tests/risk/test_dask_records.py`` (a LocalCluster too).
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pandas as pd
import pytest

from idrisk import identification_risk

dd = pytest.importorskip("dask.dataframe")

from idrisk import RiskOptions  # noqa: E402
from idrisk.risk.dask_engine import identification_risk_dask  # noqa: E402

N, M, PARTS = 1_000_000, 4, 8
CALL = dict(known=["Urban", "Marital", "Tenure"], syn=["Income"], r=0.1)
_results: dict[str, object] = {}


def make_data(n: int, m: int, seed: int = 1) -> tuple[pd.DataFrame, list[pd.DataFrame]]:
    """Confidential data (3 categorical known variables, a lognormal income) and m synthetic
    versions (income resampled and jittered)."""
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame(
        {
            "Urban": pd.Categorical(rng.choice(["1", "2"], n, p=[0.93, 0.07])),
            "Marital": pd.Categorical(rng.choice(list("12345"), n)),
            "Tenure": pd.Categorical(rng.choice(list("12456"), n)),
            "Income": np.round(rng.lognormal(10.5, 1.0, n), 2),
        }
    )
    syns = []
    for _ in range(m):
        income = orig["Income"].to_numpy()[rng.permutation(n)] * rng.lognormal(0, 0.05, n)
        syns.append(orig.assign(Income=income))
    return orig, syns


@pytest.fixture(scope="module")
def data():
    orig, syns = make_data(N, M)
    return orig, syns


def test_dask_threads_n1e6_m4(benchmark, data):
    orig, syns = data
    d_orig = dd.from_pandas(orig, npartitions=PARTS)
    d_syns = [dd.from_pandas(s, npartitions=PARTS) for s in syns]
    result = benchmark.pedantic(
        identification_risk_dask,
        args=(d_orig, d_syns, RiskOptions(**CALL)),
        kwargs=dict(npartitions=PARTS, scheduler="threads"),
        rounds=2,
        iterations=1,
    )
    _results["dask"] = result
    benchmark.extra_info.update(
        n=N, m=M, partitions=PARTS, scheduler="threads",
        mean_exp_risk=float(result.exp_risk.mean()),
    )  # fmt: skip


def test_single_machine_n1e6_m4(benchmark, data):
    orig, syns = data
    result = benchmark.pedantic(
        identification_risk, args=(orig, syns), kwargs=CALL, rounds=2, iterations=1
    )
    benchmark.extra_info.update(n=N, m=M, mean_exp_risk=float(result.exp_risk.mean()))
    if "dask" in _results:
        other = _results["dask"]
        for name in ("c", "T", "risk", "exp_risk", "true_rate", "false_rate"):
            np.testing.assert_array_equal(
                getattr(other, name).to_numpy(), getattr(result, name).to_numpy()
            )
        benchmark.extra_info["dask_identical"] = True


# --------------------------------------------------------------------------- a real cluster

BIG_N, BIG_M, BIG_FILES = 10_000_000, 5, 20
SUBSET_FILES = 2  # the first 1,000,000 records: the check against the single-machine engine
BIG_DIR = os.environ.get("IDRISK_BENCH_DIR", os.path.join(tempfile.gettempdir(), "idrisk-10m"))
#: the figure before the records stayed on the workers (4 GB workers, n x m results gathered)
PREVIOUS = dict(seconds=134.7, peak_rss_mb=2630, worker_peak_rss_mb=[2250, 2290],
                memory_limit="4GB", out_dir=False)

_WRITE = """
import os, numpy as np, pandas as pd, dask.dataframe as dd
rng = np.random.default_rng(3)
n, m, folder = {n}, {m}, {folder!r}
orig = pd.DataFrame({{
    "Age": rng.integers(18, 91, n).astype(np.float64),
    "Urban": pd.Categorical(rng.choice(["1", "2"], n, p=[0.93, 0.07])),
    "Marital": pd.Categorical(rng.choice(list("12345"), n)),
    "Income": np.round(rng.lognormal(10.5, 1.0, n), 2),
}})
dd.from_pandas(orig, npartitions={files}).to_parquet(os.path.join(folder, "orig"),
                                                     write_index=False)
for j in range(m):
    income = orig["Income"].to_numpy()[rng.permutation(n)] * rng.lognormal(0, 0.05, n)
    dd.from_pandas(orig.assign(Income=income), npartitions={files}).to_parquet(
        os.path.join(folder, f"syn{{j}}"), write_index=False)
open(os.path.join(folder, "DONE"), "w").close()
result = {{}}
"""

# the driver: a fresh process (its peak RSS is the driver's); the workers write the records
_RUN = """
import glob, json, os, resource, shutil, sys, time, warnings
warnings.simplefilter("ignore")
import numpy as np
import dask.dataframe as dd
from distributed import Client, LocalCluster
from idrisk import RiskOptions
from idrisk.risk.dask_engine import identification_risk_dask
folder, m, files, check = {folder!r}, {m}, {files}, {check}
def peak():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
def cpu():
    import resource
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
def inputs(name):
    paths = sorted(glob.glob(os.path.join(folder, name, "*.parquet")),
                   key=lambda p: int(p.rsplit(".", 2)[-2]))
    return paths[:files] if files else paths
if __name__ == "__main__":
    out = os.path.join(folder, "records-check" if check else "records")
    shutil.rmtree(out, ignore_errors=True)
    options = RiskOptions(known=["Age", "Urban", "Marital"], syn=["Income"], r=0.1)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="2GB",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(lambda: __import__("idrisk.risk.dask_engine"))  # imports outside the timing
        orig = dd.read_parquet(inputs("orig"))
        syns = [dd.read_parquet(inputs(f"syn{{j}}")) for j in range(m)]
        cpu0, driver_cpu0 = client.run(cpu), cpu()
        start = time.perf_counter()
        res = identification_risk_dask(orig, syns, options, npartitions=20, scheduler=client,
                                       out_dir=out, progress=False)
        seconds = time.perf_counter() - start
        driver_cpu = cpu() - driver_cpu0
        cpu1, workers = client.run(cpu), client.run(peak)
    result = dict(seconds=seconds, n=res.n, m=res.m, driver_cpu_s=driver_cpu,
                  worker_cpu_s=sorted(cpu1[w] - cpu0[w] for w in cpu1),
                  mean_exp_risk=float(res.exp_risk.mean()),
                  worker_peak_rss_mb=sorted(workers.values()),
                  peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    if check:  # the written records and the measures against the single-machine engine
        from idrisk import identification_risk
        want = identification_risk(orig.compute(), [s.compute() for s in syns],
                                   **options.as_dict())
        records = res.records().compute()
        same = True
        for j in range(1, m + 1):
            rows = records[records["dataset"].astype(int) == j].sort_values("record")
            same &= bool(np.array_equal(rows["record"].to_numpy(), np.arange(want.n)))
            for name in ("c", "T", "K", "F", "risk"):
                same &= bool(np.array_equal(rows[name].to_numpy(), want.array(name)[:, j - 1]))
        for name in ("s", "exp_risk", "true_rate", "false_rate"):
            same &= getattr(res, name).to_numpy().tobytes() == \
                getattr(want, name).to_numpy().tobytes()
        result["identical_to_single_machine"] = same
    shutil.rmtree(out, ignore_errors=True)
    print(json.dumps(result))
"""


def _cluster_run(files: int, check: bool) -> dict:
    from _data import run_measured

    if not os.path.exists(os.path.join(BIG_DIR, "DONE")):
        os.makedirs(BIG_DIR, exist_ok=True)
        run_measured(_WRITE.format(n=BIG_N, m=BIG_M, folder=BIG_DIR, files=BIG_FILES),
                     timeout=3600)
    # LocalCluster's worker processes need an importable __main__: run from a file
    script = os.path.join(BIG_DIR, "run_check.py" if check else "run.py")
    with open(script, "w") as handle:
        handle.write(_RUN.format(folder=BIG_DIR, m=BIG_M, files=files, check=check))
    return _run_script(script)


def test_local_cluster_parquet_10m_m5_records_written(benchmark):
    """10,000,000 records x 5 datasets from Parquet (20 files each) on 2 worker processes
    with 2 GB each (one thread each); the workers write the record-level results to Parquet
    and the client gets R's measures. Targets: <= 60 s, driver peak RSS <= 1 GB.

    The data are written once (in a separate process) to ``IDRISK_BENCH_DIR``; the call runs
    in a fresh driver process whose peak RSS (``peak_rss_mb``) is recorded with each worker's
    peak RSS and the CPU seconds of the driver and the workers.
    """
    from _data import machine_load

    load_before = machine_load()
    out = benchmark.pedantic(_cluster_run, args=(0, False), rounds=1, iterations=1)
    benchmark.extra_info.update(load_before=load_before, load=machine_load(), workers=2,
                                threads_per_worker=1, memory_limit="2GB", out_dir=True,
                                target_seconds=60, target_driver_peak_mb=1000,
                                previous=PREVIOUS, **out)


def test_local_cluster_parquet_1m_subset_equals_single_machine(benchmark):
    """The same cluster and call on the first 1,000,000 records (2 files of each dataset): the
    written records (c, T, K, F, risk) and the measures equal the single-machine engine's."""
    from _data import machine_load

    out = benchmark.pedantic(_cluster_run, args=(SUBSET_FILES, True), rounds=1, iterations=1)
    benchmark.extra_info.update(load=machine_load(), workers=2, memory_limit="2GB", **out)
    assert out["identical_to_single_machine"]


def _run_script(script: str) -> dict:
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, script], capture_output=True, text=True,
                          timeout=7200, check=False)
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])
