"""The engine at the machine's limit (issue 30): each figure beside its lower bound.

Run:  python -m pytest benchmarks/bench_engine.py --benchmark-enable \
          --benchmark-json benchmarks/results/engine.json

* CE scenario 1 (n = 5,571, m = 20, r = 0.1), warm: ``identification_risk`` (one call: read,
  encode, count, result), ``Prepared.count`` (the inputs prepared once,
  :mod:`idrisk.risk.prepared`) and a radius sweep over 10 radii (``radius_sweep``, which
  prepares once per scenario and pipelines the radii after the first:
  ``Prepared.sweep_measures``). Lower bound: ``np.sort`` of the 20 synthetic Income columns.
  Targets: one call <= 8 ms; the sweep <= 3x one call.
* 1,000,000 x 20, Age known (continuous) + Urban, Marital, Income synthesized, r = 0.1: the
  call beside ``np.sort`` of the 20 synthetic Income columns in the same process (target
  <= 4.5x), peak RSS of a fresh process (target <= 1.5 GB, data included); Age and Income
  both synthesized (target <= 3 s); the minimum of three calls after one to warm up (the
  first call of a process, its memory fresh, is the fresh process' figure). The datasets
  after the first are counted together by ranges of keys (:mod:`idrisk.risk._fewbykey`).
* The counting steps of one dataset by the per-dataset sweep (``test_*_counting_steps``: CE,
  and the later datasets of a large count whose keys are not the first one's), each beside its
  own lower bound, in CPU time (``time.process_time``, min of rounds): the engine's sort of the
  synthetic u column (``value_order``: numpy's integer sort of order-preserving keys) beside
  ``np.sort`` and ``np.argsort`` of it; the synthetic side's compiled pass (group by key,
  ranks, prefix table) and the targets' compiled pass (merge, table reads) beside a plain pass
  over the same column (``np.sum``); the own-row pass; the fused count that the datasets after
  the first take (``fused_dataset``: the value order and one compiled call for the side, the
  targets' pass and the own rows). The whole count of the dataset through ``count_matches``
  (the targets' work done) is the benchmark.

Every result records the machine load (``uptime``) in ``extra_info``: the machine is shared.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from _data import CE1_CALL, ce_scenario1, machine_load, make_age_income, run_measured
from bench_risk import quiet

from idrisk import RiskOptions, identification_risk
from idrisk.analysis import radius_sweep
from idrisk.risk import _fewgrid, _kernels, matching
from idrisk.risk._order import value_order
from idrisk.risk.prepared import prepare

RADII = [0.01 * k for k in range(1, 11)]
_seconds: dict[str, float] = {}


@pytest.fixture(scope="module")
def ce1():
    return ce_scenario1(m=20)


def _record(benchmark, name, **extra):
    _seconds[name] = benchmark.stats.stats.min
    benchmark.extra_info.update(load=machine_load(), **extra)
    for other, t in _seconds.items():
        if other != name:
            benchmark.extra_info[f"ratio_to_{other}"] = benchmark.stats.stats.min / t


def test_ce1_sort_lower_bound(benchmark, ce1):
    _, syns = ce1
    cols = [s["Income"].to_numpy() for s in syns]
    benchmark.pedantic(lambda: [np.sort(c) for c in cols], rounds=50, iterations=1,
                       warmup_rounds=2)
    _record(benchmark, "sort")


def test_ce1_call(benchmark, ce1):
    orig, syns = ce1
    benchmark.pedantic(quiet, args=(identification_risk, orig, syns), kwargs=CE1_CALL,
                       rounds=60, iterations=1, warmup_rounds=3)
    _record(benchmark, "call", target_s=0.008, previous_s=0.00752)


def test_ce1_prepared_count(benchmark, ce1):
    orig, syns = ce1
    prepared = prepare(orig, syns, RiskOptions(**CE1_CALL))
    benchmark.pedantic(quiet, args=(prepared.count,), rounds=30, iterations=1, warmup_rounds=3)
    _record(benchmark, "prepared_count")


def test_ce1_sweep_10_radii(benchmark, ce1):
    orig, syns = ce1
    call = dict(CE1_CALL)
    known, syn = call.pop("known"), call.pop("syn")
    benchmark.pedantic(quiet, args=(radius_sweep, orig, syns, known, syn, RADII),
                       kwargs={"progress": False}, rounds=20, iterations=1, warmup_rounds=2)
    _record(benchmark, "sweep10", target_ratio_to_call=3, previous_s=0.0185)


_CHILD = """
import sys, time, warnings
sys.path[:0] = {paths!r}
warnings.simplefilter("ignore")
import numpy as np
from _data import make_age_income
from idrisk import identification_risk
orig, syns, call = make_age_income({n}, 20, {both})
cols = [s["Income"].to_numpy() for s in syns]
start = time.perf_counter()
for c in cols:
    np.sort(c)
sort_s = time.perf_counter() - start
start = time.perf_counter()
res = identification_risk(orig, syns, **call)
result = dict(seconds=time.perf_counter() - start, sort_seconds=sort_s,
              mean_exp_risk=float(res.exp_risk.mean()))
"""


@pytest.mark.parametrize("both", [False, True], ids=["age_known", "age_and_income_syn"])
def test_million_m20(benchmark, both):
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [here, os.path.join(os.path.dirname(here), "tests")]
    orig, syns, call = make_age_income(1_000_000, 20, both)
    cols = [s["Income"].to_numpy() for s in syns]
    start = time.perf_counter()
    for c in cols:
        np.sort(c)
    sort_s = time.perf_counter() - start
    result = benchmark.pedantic(quiet, args=(identification_risk, orig, syns), kwargs=call,
                                rounds=3, iterations=1, warmup_rounds=1)
    mean_risk = float(result.exp_risk.mean())
    del result, orig, syns, cols
    child = run_measured(_CHILD.format(paths=paths, n=1_000_000, both=both))
    assert child["mean_exp_risk"] == mean_risk
    benchmark.extra_info.update(
        load=machine_load(), sort_20_income_s=sort_s,
        ratio_to_sort=benchmark.stats.stats.min / sort_s,
        target_ratio_to_sort=None if both else 4.5, target_s=3.0 if both else None,
        target_peak_rss_mb=1536, peak_rss_mb=child["peak_rss_mb"],
        fresh_process_seconds=child["seconds"], fresh_sort_seconds=child["sort_seconds"],
        previous_s=1.76 if both else 2.09, previous_peak_rss_mb=1556 if both else 1400,
    )  # fmt: skip


def _cpu(func, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        func()
        best = min(best, time.process_time() - start)
    return best


def _counting_steps(benchmark, orig, syns, call, rounds):
    """One dataset's counting, step by step, each beside its lower bound (see the module's
    notes); the benchmark is the dataset's whole count with the targets' work already done."""
    prepared = prepare(orig, syns, RiskOptions(**call))
    options = prepared.resolve()
    mode, prep = prepared.inputs(options)
    x = prep.cont_orig
    d = matching.half_widths(x, prep.radius_vector, percentage=options.percentage)
    tkey, skey, y = mode.encoder.keys, mode.skey(1), prep.cont_syn[1]
    n_keys, rule = mode.encoder.n_keys, matching.MatchRule()
    cache = matching.CountCache()
    matching.count_matches(tkey, mode.skey(0), x, d, prep.cont_syn[0], rule, n_keys, cache)
    lo, hi = cache.bounds(x, d)
    u = cache.grid_axis
    assert u is not None
    yu = np.ascontiguousarray(y[:, u])
    targets = cache.grid_targets[u]
    limit = matching._GRID_BUCKETS
    few = _fewgrid.side(skey, y, u, n_keys, cache.ranks[1 - u], limit)
    assert few is not None
    own = np.empty(len(tkey), dtype=bool)
    fused = matching.few_sweep(tkey, x, d, rule, n_keys, cache)
    c_out = np.empty(len(tkey), dtype=np.int32)
    steps = {
        "np_sort_u": _cpu(lambda: np.sort(yu), rounds),
        "argsort_u": _cpu(lambda: np.argsort(yu), rounds),
        "value_order_u": _cpu(lambda: value_order(yu), rounds),
        "plain_pass_u": _cpu(lambda: yu.sum(), rounds),
        "synthetic_side": _cpu(
            lambda: _fewgrid.side(skey, y, u, n_keys, cache.ranks[1 - u], limit), rounds
        ),
        "targets_pass": _cpu(
            lambda: _fewgrid.count(targets, few, lo[:, 1 - u], hi[:, 1 - u], False, True), rounds
        ),
        "own_rows": _cpu(
            lambda: _kernels.own_rows(tkey, skey, lo, hi, x, d, y, False, True, False, own),
            rounds,
        ),
    }
    if fused is not None:  # the datasets after the first: one compiled call after the argsort
        steps["fused_dataset"] = _cpu(lambda: fused(skey, y, c_out, own), rounds)
    benchmark.pedantic(
        matching.count_matches, args=(tkey, skey, x, d, y, rule, n_keys, cache), rounds=rounds,
        iterations=1, warmup_rounds=1,
    )  # fmt: skip
    steps["whole_count_cpu"] = _cpu(
        lambda: matching.count_matches(tkey, skey, x, d, y, rule, n_keys, cache), rounds
    )
    benchmark.extra_info.update(
        load=machine_load(), steps_cpu_s=steps,
        ratio_to_np_sort={k: v / steps["np_sort_u"] for k, v in steps.items()},
    )  # fmt: skip


def test_ce1_counting_steps(benchmark, ce1):
    orig, syns = ce1
    _counting_steps(benchmark, orig, syns, CE1_CALL, rounds=50)


@pytest.mark.parametrize("both", [False, True], ids=["age_known", "age_and_income_syn"])
def test_million_counting_steps(benchmark, both):
    orig, syns, call = make_age_income(1_000_000, 2, both)
    _counting_steps(benchmark, orig, syns, call, rounds=5)
