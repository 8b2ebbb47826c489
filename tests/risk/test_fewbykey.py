"""The few-values sweep's datasets counted together by ranges of keys
(:mod:`idrisk.risk._fewbykey`, large inputs), forced on small random problems: the counts,
own rows and risks equal the vectorised brute force of ``reference`` and the datasets counted
one by one, with tasks cut small (many groups of datasets, many ranges of keys), datasets that
do not fit (a missing income, an age the first dataset lacks) or have other keys (a
synthesized category) counted the general way, Age synthesized (each dataset's own ranks),
dead keys (a missing category) and keys without targets or without synthetic rows; on one
and two threads, the later datasets' own rows found while the first is counted or after."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import brute_force_numpy

from idrisk import identification_risk
from idrisk.risk import _fewbykey, _fewgrid, _threads
from idrisk.risk import prepared as prepared_module
from idrisk.risk._order import VALUE_MIN_BITS


def _problem(rng, n: int, m: int):
    ages = rng.choice(np.arange(18, 91), int(rng.integers(3, 20)), replace=False)
    marital = list("pqrst")[: int(rng.integers(1, 6))]
    orig = pd.DataFrame({
        "Age": rng.choice(ages, n).astype(float),
        "Urban": rng.choice(["a", "b", "c"], n, p=[0.7, 0.25, 0.05]),
        "Marital": rng.choice(marital + [None], n),
        "Income": np.round(rng.lognormal(8, 1, n), int(rng.choice([-2, 0, 2]))),
    })  # fmt: skip
    syns = []
    for _ in range(m):
        income = orig["Income"].to_numpy()[rng.permutation(n)]
        syns.append(orig.assign(Income=income * rng.choice([1.0, 1.01, 0.99], n)))
    return orig, syns


def _spy(monkeypatch) -> list:
    laid: list = []
    real = _fewgrid.FewSweep.count_by_key
    monkeypatch.setattr(_fewgrid.FewSweep, "count_by_key",
                        lambda self, sides, *a: laid.append(sorted(sides))
                        or real(self, sides, *a))  # fmt: skip
    return laid


@pytest.mark.parametrize("cores,helpers", [(1, "real"), (2, "real"), (2, "idle"), (2, "eager")])
def test_by_key_counts_equal_the_brute_force_and_one_by_one(monkeypatch, cores, helpers):
    """(Two cores: the own rows of the later datasets are found by a helper while the first
    is laid out or counted, then their sides by key; ``idle``: helpers that never start, so
    this thread does all of it; ``eager``: the helper is stopped only once it is done, so
    every later dataset is laid out by it.)"""
    from concurrent.futures import Future

    early_sides: list = []
    if helpers == "idle":
        monkeypatch.setattr(_threads, "start_helpers",
                            lambda work, count: [Future() for _ in range(count)])  # fmt: skip
    elif helpers == "eager":
        real_stop = prepared_module._EarlyOwnRows.stop

        def stop(self):
            self._ready.set()
            self._future.result(timeout=60)
            early_sides.append(len(self.sides))
            return real_stop(self)

        monkeypatch.setattr(prepared_module._EarlyOwnRows, "stop", stop)
    monkeypatch.setattr(prepared_module, "_CORES", cores)
    monkeypatch.setattr(prepared_module, "THREAD_MIN_CELLS", 0)
    monkeypatch.setattr(prepared_module, "FUSED_THREAD_MIN_CELLS", 0)
    laid = _spy(monkeypatch)
    rng = np.random.default_rng(17 + cores + len(helpers))
    taken = fallen = with_first = 0
    for case in range(50):
        n, m = int(rng.integers(20, 250)), int(rng.integers(2, 7))
        orig, syns = _problem(rng, n, m)
        # a dataset that does not fit, or has other keys (the first one: on two cores, then
        # counted the general way before the others are counted by key)
        odd = int(rng.integers(0 if cores > 1 else 1, m))
        kind = case % 5
        if kind == 1:
            syns[odd].loc[int(rng.integers(n)), "Income"] = np.nan
        elif kind == 2:
            syns[odd].loc[int(rng.integers(n)), "Age"] = 17.0  # (not among the first's ages)
        elif kind == 3:
            syns[odd]["Urban"] = rng.permutation(syns[odd]["Urban"].to_numpy())
        elif kind == 4:  # Age synthesized too: each dataset's own ranks of w
            for frame in syns:
                frame["Age"] = rng.permutation(frame["Age"].to_numpy())
        known = {3: ["Age", "Marital"], 4: ["Urban", "Marital"]}.get(
            kind, ["Age", "Urban", "Marital"]
        )
        syn = {3: ["Urban", "Income"], 4: ["Age", "Income"]}.get(kind, ["Income"])
        call = dict(known=known, syn=syn, r=float(rng.choice([0.05, 0.1, 0.3])))
        monkeypatch.setattr(_fewbykey, "TASK_ROWS", int(rng.integers(1, 400)))
        monkeypatch.setattr(_fewbykey, "TASK_KEYS", int(rng.integers(1, 4)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            monkeypatch.setattr(prepared_module, "BY_KEY_MIN_CELLS", 10**12)
            laid.clear()
            alone = identification_risk(orig, syns, **call)
            assert not laid
            monkeypatch.setattr(prepared_module, "BY_KEY_MIN_CELLS", 0)
            together = identification_risk(orig, syns, **call)
            want = brute_force_numpy(orig, syns, **call)
        for name in ("c", "T", "risk"):
            got = getattr(together, name).to_numpy()
            np.testing.assert_array_equal(got, getattr(alone, name).to_numpy(), err_msg=name)
            np.testing.assert_array_equal(got, getattr(want, name).to_numpy(), err_msg=name)
        if laid:
            taken += 1
            fallen += kind in (1, 2, 3) and odd not in laid[-1]
            # on two threads (two cores, three datasets) the sweep is laid out from the first
            # dataset, counted with the others (matching.few_plan), unless it does not fit
            with_first += 0 in laid[-1]
            # (a NaN income, unless its record's key is dead: it does not fit)
            if cores == 1 or m == 2:
                assert 0 not in laid[-1]
            elif not (odd == 0 and kind == 1):
                assert 0 in laid[-1]
    assert taken >= 30 and fallen >= 12  # (most cases took the path; the odd dataset left it)
    assert with_first >= 25 if cores > 1 else not with_first
    if helpers == "eager":
        assert sum(k > 0 for k in early_sides) >= 25


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 2**34), min_size=1, max_size=40),
    targets=st.lists(st.integers(0, 3), min_size=40, max_size=40),
    m=st.integers(1, 30),
    task_rows=st.integers(1, 2**22),
    task_keys=st.integers(1, 2**16),
)
def test_tasks_cover_every_key_and_dataset_once_within_their_bounds(
    sizes, targets, m, task_rows, task_keys
):
    """Every (key with targets, dataset) pair is in exactly one task; a task of several keys
    holds at most TASK_ROWS rows and TASK_KEYS keys, and its sort keys keep at least
    VALUE_MIN_BITS of the value (the kernel's guard never fires)."""
    row_starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    counts = np.asarray(targets[: len(sizes)], dtype=np.int64)
    target_starts = np.concatenate([[0], np.cumsum(counts)])
    datasets = list(range(3, 3 + m))
    original = _fewbykey.TASK_ROWS, _fewbykey.TASK_KEYS
    _fewbykey.TASK_ROWS, _fewbykey.TASK_KEYS = task_rows, task_keys
    try:
        groups, ranges = _fewbykey._tasks(row_starts, target_starts, datasets)
        tasks = [(k0, k1, group) for group in groups for k0, k1 in ranges]
    finally:
        _fewbykey.TASK_ROWS, _fewbykey.TASK_KEYS = original
    seen: dict = {}
    for k0, k1, group in tasks:
        assert k0 < k1 and counts[k0] > 0 and counts[k1 - 1] > 0
        rows = int(row_starts[k1] - row_starts[k0]) * len(group)
        shift = max(1, (max(rows, 1) - 1).bit_length())
        if k1 - k0 > 1:
            assert rows <= task_rows and k1 - k0 <= task_keys
            assert 64 - (k1 - 1 - k0).bit_length() - shift >= VALUE_MIN_BITS
        else:
            assert 64 - shift >= VALUE_MIN_BITS
        for k in range(k0, k1):
            for j in group:
                seen[k, j] = seen.get((k, j), 0) + 1
    assert set(seen.values()) <= {1}
    assert {(k, j) for k in range(len(sizes)) if counts[k] > 0 for j in datasets} <= set(seen)


@pytest.mark.parametrize("values", ["inexact", "whole_ties", "inexact_ties"])
@pytest.mark.parametrize("closed", [False, True])
def test_slot_keys_decide_each_window_end_or_count_the_target_again(monkeypatch, values, closed):
    """A task's sorted slot keys keep only the values' high bits. Where a bound's kept bits
    equal a row's, whole values (every dropped bit zero) are compared exactly; for inexact ones
    the end steps over those rows and the target is counted again from the values, unless a
    task has more than UNDECIDED_MAX such targets (it is then counted the exact way, and so are
    the later ones). Ties are made with a radius of 0.5 on Income: the lower bound of x is
    x / 2 exactly, and some synthetic incomes are such halves (few or many). The counts equal
    the brute force (open windows) and the datasets counted one by one."""
    monkeypatch.setattr(prepared_module, "THREAD_MIN_CELLS", 0)
    monkeypatch.setattr(prepared_module, "FUSED_THREAD_MIN_CELLS", 0)
    calls: list = []
    real = _fewbykey._count_slot_keys
    monkeypatch.setattr(_fewbykey, "_count_slot_keys",
                        lambda *a: calls.append((a[4], out := real(*a))) or out)  # fmt: skip
    rng = np.random.default_rng(["inexact", "whole_ties", "inexact_ties"].index(values) + 7)
    for case in range(16):
        n, m = int(rng.integers(40, 200)), int(rng.integers(2, 6))
        orig, syns = _problem(rng, n, m)
        income = rng.lognormal(8, 1, n)
        if values == "whole_ties":
            income = 2 * np.round(income)
        orig["Income"] = income
        share = 0.3 if case % 2 else 0.01
        for frame in syns:
            drawn = income[rng.permutation(n)] * rng.choice([1.0, 1.01, 0.99], n)
            if values == "whole_ties":
                drawn = 2 * np.round(drawn / 2)
            halves = rng.random(n) < share
            drawn[halves] = income[rng.integers(0, n, int(halves.sum()))] / 2
            frame["Income"] = drawn if values != "inexact" else drawn * 1.001
        call = dict(known=["Age", "Urban", "Marital"], syn=["Income"],
                    r={"Age": 0.1, "Income": 0.5 if values != "inexact" else 0.1},
                    closed=closed)  # fmt: skip
        monkeypatch.setattr(_fewbykey, "TASK_ROWS", int(rng.integers(1, 400)))
        monkeypatch.setattr(_fewbykey, "TASK_KEYS", int(rng.integers(1, 4)))
        monkeypatch.setattr(_fewbykey, "UNDECIDED_MAX", int(rng.choice([1, 2, 8])))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            monkeypatch.setattr(prepared_module, "BY_KEY_MIN_CELLS", 10**12)
            alone = identification_risk(orig, syns, **call)
            monkeypatch.setattr(prepared_module, "BY_KEY_MIN_CELLS", 0)
            together = identification_risk(orig, syns, **call)
            if not closed:
                del call["closed"]
                want = brute_force_numpy(orig, syns, **call)
        for name in ("c", "T", "risk"):
            got = getattr(together, name).to_numpy()
            np.testing.assert_array_equal(got, getattr(alone, name).to_numpy(), err_msg=name)
            if not closed:
                np.testing.assert_array_equal(got, getattr(want, name).to_numpy(),
                                              err_msg=name)  # fmt: skip
    exact = {e for e, _ in calls}
    found = [f for _, f in calls]
    assert len(calls) >= 30
    if values == "whole_ties":
        assert exact == {True} and set(found) == {0}
    elif values == "inexact":
        assert exact == {False} and set(found) == {0}
    else:  # targets counted again, and tasks with too many of them: the exact way after
        assert False in exact  # (a task of a few rows may have lost only zero bits)
        assert sum(f > 0 for f in found) >= 10 and found.count(-1) >= 3
