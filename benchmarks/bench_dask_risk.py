"""Speed of ``identification_risk_dask`` (pytest-benchmark).

Run:  python -m pytest benchmarks/bench_dask_risk.py --benchmark-enable \
          --benchmark-json benchmarks/results/dask_risk.json

* n = 1,000,000 records, m = 4 synthetic datasets, three categorical known variables (50 keys)
  and one continuous synthesized variable (r = 0.1), on the local threaded scheduler: dask
  DataFrames (8 partitions), 8 key buckets; the single-machine engine runs on the same data
  and the two results are checked to be identical.
* n = 10,000,000 records, m = 5, read from Parquet (20 files per dataset) by a
  ``distributed.LocalCluster`` of 2 worker processes with 4 GB each (known Age, Urban,
  Marital; Income synthesized; r = 0.1): time, the driver's and each worker's peak RSS.
  Identity with the single-machine engine is tested on small data in
  ``tests/risk/test_dask_risk.py`` (a LocalCluster too).
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

BIG_N, BIG_M = 10_000_000, 5
BIG_DIR = os.environ.get("IDRISK_BENCH_DIR", os.path.join(tempfile.gettempdir(), "idrisk-10m"))

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
dd.from_pandas(orig, npartitions=20).to_parquet(os.path.join(folder, "orig"), write_index=False)
for j in range(m):
    income = orig["Income"].to_numpy()[rng.permutation(n)] * rng.lognormal(0, 0.05, n)
    dd.from_pandas(orig.assign(Income=income), npartitions=20).to_parquet(
        os.path.join(folder, f"syn{{j}}"), write_index=False)
open(os.path.join(folder, "DONE"), "w").close()
result = {{}}
"""

_RUN = """
import os, resource, time, warnings
warnings.simplefilter("ignore")
import dask.dataframe as dd
from distributed import Client, LocalCluster
from idrisk import RiskOptions
from idrisk.risk.dask_engine import identification_risk_dask
folder, m = {folder!r}, {m}
def peak():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
if __name__ == "__main__":
    with LocalCluster(n_workers=2, threads_per_worker=2, processes=True, memory_limit="4GB",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(lambda: __import__("idrisk.risk.matching"))  # imports outside the timing
        orig = dd.read_parquet(os.path.join(folder, "orig"))
        syns = [dd.read_parquet(os.path.join(folder, f"syn{{j}}")) for j in range(m)]
        start = time.perf_counter()
        options = RiskOptions(known=["Age", "Urban", "Marital"], syn=["Income"], r=0.1)
        res = identification_risk_dask(orig, syns, options, npartitions=20, scheduler=client)
        seconds = time.perf_counter() - start
        workers = client.run(peak)
    result = dict(seconds=seconds, n=len(res.c), m=res.c.shape[1],
                  mean_exp_risk=float(res.exp_risk.mean()),
                  worker_peak_rss_mb=sorted(workers.values()))
"""


def test_local_cluster_parquet_10m_m5(benchmark):
    """10,000,000 records x 5 datasets from Parquet on 2 worker processes with 4 GB each.

    The data are written once (in a separate process) to ``IDRISK_BENCH_DIR``; the call runs
    in a fresh driver process whose peak RSS (``peak_rss_mb``: the n x m results and the
    index) is recorded with each worker's peak RSS.
    """
    from _data import machine_load, run_measured

    if not os.path.exists(os.path.join(BIG_DIR, "DONE")):
        os.makedirs(BIG_DIR, exist_ok=True)
        run_measured(_WRITE.format(n=BIG_N, m=BIG_M, folder=BIG_DIR), timeout=3600)
    code = _RUN.format(folder=BIG_DIR, m=BIG_M)
    # LocalCluster's worker processes need an importable __main__: run from a file
    script = os.path.join(BIG_DIR, "run.py")
    with open(script, "w") as handle:
        handle.write(code + "\n    import json, resource\n"
                     "    result['peak_rss_mb'] = "
                     "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
                     "    print(json.dumps(result))\n")
    out = benchmark.pedantic(_run_script, args=(script,), rounds=1, iterations=1)
    benchmark.extra_info.update(load=machine_load(), workers=2, memory_limit="4GB", **out)


def _run_script(script: str) -> dict:
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, script], capture_output=True, text=True,
                          timeout=7200, check=False)
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])
