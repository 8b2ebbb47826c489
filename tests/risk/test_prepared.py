"""Prepare once, count many (:mod:`idrisk.risk.prepared`) and the compact, read-only result.

Every count of a :class:`Prepared` must equal a fresh ``identification_risk`` call with the same
options, digit for digit, whatever was counted before it (other radii, the exact mode, other
rules), and the record-level arrays of a result cannot be changed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idrisk import RiskOptions, identification_risk
from idrisk.risk.prepared import prepare

R_KEYS = ("c_vector", "T_vector", "K_vector", "F_vector", "Risk_vector", "s_vector",
          "exp.risk_vector", "true.rate_vector", "false.rate_vector")


def _data(n=400, m=4, seed=3):
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame({
        "Age": rng.integers(18, 80, n).astype(float),
        "Sex": pd.Categorical(rng.choice(["F", "M"], n)),
        "Income": np.round(rng.lognormal(10, 1, n), 0),
        "Exp": np.round(rng.lognormal(8, 1, n), 0),
    })
    orig.loc[orig.index[:5], "Income"] = -3.0  # never matched under a percentage radius
    syns = []
    for _ in range(m):
        income = orig.Income.to_numpy()[rng.permutation(n)] * rng.lognormal(0, 0.05, n)
        s = orig.assign(Income=income, Exp=orig.Exp.to_numpy()[rng.permutation(n)])
        s.loc[s.index[rng.integers(0, n, 3)], "Exp"] = np.nan
        syns.append(s)
    return orig, syns


def _same(a, b):
    ra, rb = a.to_r_dict(), b.to_r_dict()
    for key in R_KEYS:
        np.testing.assert_array_equal(ra[key], rb[key], err_msg=key)
    pd.testing.assert_frame_equal(a.checks, b.checks)


CALLS = [
    dict(r=0.1),
    dict(r=0.02),
    dict(r=None),
    dict(r=0.3, closed=True),
    dict(r=0.05, na_matches=False),
    dict(r={"Age": 0.1, "Income": 0.2, "Exp": 0.01}, euclidean_dist=True),  # (Exp if in syn)
    dict(r=0.1, ellipsoid=True),
    dict(r=0.1),  # the first call again, after all the others
]


@pytest.mark.parametrize("syn", [["Income"], ["Income", "Exp"]])
def test_every_count_equals_a_fresh_call(syn):
    orig, syns = _data()
    base = RiskOptions(known=["Age", "Sex"], syn=syn, r=0.1)
    prepared = prepare(orig, syns, base)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for call in CALLS:
            if isinstance(call["r"], dict):
                call = {**call, "r": {k: v for k, v in call["r"].items() if k in ["Age", *syn]}}
            options = base.replace(**call)
            fresh = identification_risk(orig, syns, ["Age", "Sex"], syn, **call)
            _same(prepared.count(options=options), fresh)
            if set(call) == {"r"}:
                _same(prepared.count(r=call["r"]), fresh)


def test_count_refuses_other_columns():
    orig, syns = _data()
    prepared = prepare(orig, syns, RiskOptions(known=["Age", "Sex"], syn=["Income"], r=0.1))
    with pytest.raises(ValueError, match="prepare"):
        prepared.count(options=RiskOptions(known=["Age"], syn=["Income"], r=0.1))


def test_one_shot_prepared_is_not_reused():
    orig, syns = _data(m=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prepared = prepare(orig, syns, RiskOptions(known=["Sex"], syn=["Income"], r=0.1),
                           reusable=False)
        prepared.count()
        with pytest.raises(RuntimeError):
            prepared.count(r=None)


def test_result_is_compact_and_read_only():
    orig, syns = _data(m=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = identification_risk(orig, syns, ["Age", "Sex"], ["Income"], r=0.1)
    assert res.array("c").dtype == np.int32
    assert {res.array(k).dtype for k in "TKF"} == {np.dtype(bool)}
    for name in ("c", "T", "K", "F", "risk"):
        assert not res.array(name).flags.writeable
        frame = getattr(res, name)
        with pytest.raises(ValueError, match="read-only"):
            frame.iloc[0, 0] = 7
        with pytest.raises(ValueError, match="read-only"):
            frame.to_numpy()[0, 0] = 7
    # the R-shaped frames keep R's integer 0/1 and counts
    assert res.T.dtypes.tolist() == [np.dtype(np.int64)] * 3
    np.testing.assert_array_equal(res.risk.to_numpy(),
                                  np.where(res.c > 0, res.T / np.maximum(res.c, 1), 0.0))


def test_radii_that_reorder_the_bounds_and_dataset_measures():
    """A percentage radius above 1 reverses the order of the lower bounds of positive values
    (x - r|x| decreases in x): the targets' orders kept from the last radius must then be
    recomputed. Every count, and the per-dataset measures a sweep tabulates, equal a fresh
    call."""
    from idrisk.risk import _fewgrid

    orig, syns = _data(m=3)
    orig.loc[orig.index[5:40], "Income"] *= -1  # negative values too
    base = RiskOptions(known=["Age", "Sex"], syn=["Income"], r=0.1)
    prepared = prepare(orig, syns, base)
    kept = []
    real = _fewgrid.kept_orders
    with warnings.catch_warnings(), pytest.MonkeyPatch.context() as patch:
        patch.setattr(_fewgrid, "kept_orders", lambda *a: kept.append(real(*a)) or kept[-1])
        warnings.simplefilter("ignore")
        for r in (0.1, 1.5, 0.3, 3.0, 0.02, 0.1):
            fresh = identification_risk(orig, syns, ["Age", "Sex"], ["Income"], r=r)
            _same(prepared.count(r=r), fresh)
            measures = prepared.dataset_measures(r)
            for key in ("exp_risk", "true_rate", "false_rate", "s"):
                np.testing.assert_array_equal(measures[key], getattr(fresh, key).to_numpy())
            for key in ("c_zero", "never_match"):
                np.testing.assert_array_equal(measures[key], fresh.checks[key].to_numpy())
    assert any(k is None for k in kept[1:]) and any(k is not None for k in kept[1:])


def test_orders_by_key_kernel():
    from idrisk.risk import _fewgrid, _kernels

    rng = np.random.default_rng(35)
    for _ in range(300):
        n = int(rng.integers(1, 40))
        keys = rng.integers(-2, 3, n)
        values = rng.choice([1.0, 2.0, 3.0, np.nan], n)
        order = _fewgrid.target_order(keys, values)
        assert _kernels.orders_by_key(order, keys, values)
        other = rng.permutation(n)
        slot = np.maximum(keys + 1, 0)[other]
        v = np.where(np.isnan(values[other]), np.inf, values[other])
        want = bool(np.all((slot[1:] > slot[:-1]) | ((slot[1:] == slot[:-1]) & (v[1:] >= v[:-1]))))
        assert _kernels.orders_by_key(other, keys, values) == want


def test_kept_order_of_both_bounds_is_checked_on_the_new_upper_bounds():
    """abs_radius above 1 on values <= 0: the lower bounds (1 + r)x keep their order while the
    upper bounds (1 - r)x reverse theirs. The one order of both bounds kept from r = 0.1 must
    not be taken for the upper bounds at r = 1.2 (found by review: 22 of 60 records were
    miscounted)."""
    rng = np.random.default_rng(0)
    n = 60
    orig = pd.DataFrame({
        "Sex": rng.choice(["F", "M"], n),
        "A": -rng.integers(1, 200, n).astype(float),  # values <= 0, many (the searched one)
        "B": -rng.integers(1, 5, n).astype(float),  # few values
    })  # fmt: skip
    syns = [orig.assign(A=rng.integers(-200, 200, n).astype(float),
                        B=rng.choice(orig.B.unique(), n)) for _ in range(2)]  # fmt: skip
    call = dict(known="Sex", syn=["A", "B"], abs_radius=True)
    prepared = prepare(orig, syns, RiskOptions(r=0.1, **call))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in (0.1, 1.2, 0.5, 2.0):
            _same(prepared.count(r=r), identification_risk(orig, syns, r=r, **call))


def test_random_radius_sequences_equal_fresh_calls():
    """What one radius leaves for the next (orders, kept sides, cells, the fused path) never
    changes a count: random small problems, values of both signs, few- and many-valued
    variables, sequences of radii below and above 1 under every matching rule."""
    rng = np.random.default_rng(37)
    for _ in range(60):
        n, m = int(rng.integers(2, 40)), int(rng.integers(1, 4))
        orig = pd.DataFrame({
            "Sex": rng.choice(["F", "M"], n),
            "A": rng.integers(-50, 50, n).astype(float),
            "B": rng.choice([-2.0, 0.0, 1.0, 3.0], n),
        })  # fmt: skip
        sign = rng.choice([-1.0, 1.0, 0.0])  # values of one sign keep one bound's order
        if sign:
            orig["A"] = sign * np.abs(orig.A)
        syns = [orig.assign(A=rng.integers(-50, 50, n).astype(float)) for _ in range(m)]
        rules = dict(abs_radius=bool(rng.integers(2)), closed=bool(rng.integers(2)),
                     na_matches=bool(rng.integers(2)))  # fmt: skip
        call = dict(known=["Sex", "B"], syn=["A"], **rules)
        prepared = prepare(orig, syns, RiskOptions(r=0.1, **call))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for r in map(float, rng.choice([0.05, 0.3, 0.9, 1.2, 2.0, 5.0], 4)):
                _same(prepared.count(r=r), identification_risk(orig, syns, r=r, **call))


def _ages_and_incomes(n: int, m: int, seed: int):
    """Ages (few values), Urban and rounded incomes; m datasets with the incomes permuted (the
    few-values sweep's case)."""
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame({
        "Age": rng.integers(20, 70, n).astype(float),
        "Urban": rng.choice(["yes", "no"], n),
        "Income": np.round(rng.lognormal(10, 1, n)),
    })  # fmt: skip
    return orig, [orig.assign(Income=rng.permutation(orig.Income.to_numpy())) for _ in range(m)]


def test_later_radii_count_every_kept_side_in_one_pass(monkeypatch):
    """From the second radius on, a Prepared whose datasets all kept their few-values sides
    counts them together (``FewSweep.count_stack``, the stack built once); a dataset that did
    not fit the sweep (a missing Income, an age the first dataset did not have) leaves no
    stack and every dataset is counted one by one. Every count equals a fresh call, on one and
    two threads."""
    from idrisk.risk import _fewgrid

    orig, syns = _ages_and_incomes(n=300, m=5, seed=39)
    call = dict(known=["Age", "Urban"], syn=["Income"])
    stacks: list = []
    built = []
    real_count, real_init = _fewgrid.FewSweep.count_stack, _fewgrid.FewStack.__init__
    monkeypatch.setattr(_fewgrid.FewSweep, "count_stack",
                        lambda self, *a: stacks.append(a[0]) or real_count(self, *a))  # fmt: skip
    monkeypatch.setattr(_fewgrid.FewStack, "__init__",
                        lambda self, *a: built.append(1) or real_init(self, *a))  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for misfits in (False, True):
            if misfits:
                syns[1].loc[5, "Income"] = np.nan
                syns[3].loc[7, "Age"] = 99.0
            stacks.clear()
            built.clear()
            for n_jobs in (1, 2):
                prepared = prepare(orig, syns, RiskOptions(r=0.1, **call))
                for r in (0.1, 0.05, 0.2, 0.1):
                    fresh = identification_risk(orig, syns, r=r, n_jobs=n_jobs, **call)
                    _same(prepared.count(r=r, n_jobs=n_jobs), fresh)
            assert len(stacks) == (0 if misfits else 2 * 3)
            assert len(built) == (0 if misfits else 2)  # once per Prepared


def test_a_sweep_lays_every_side_out_at_its_first_radius(monkeypatch):
    """``dataset_measures`` (a sweep's count) lays the later datasets' sides out at the first
    radius and counts all of them in one pass; a dataset that does not fit is counted the
    general way and the others then one by one from their sides. The measures equal a fresh
    call's at every radius."""
    from idrisk.risk import _fewgrid

    orig, syns = _ages_and_incomes(n=250, m=4, seed=40)
    call = dict(known=["Age", "Urban"], syn=["Income"])
    laid: list = []
    real = _fewgrid.FewSweep.lay_out
    monkeypatch.setattr(_fewgrid.FewSweep, "lay_out",
                        lambda self, *a: laid.append(real(self, *a)) or laid[-1])  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for misfit in (False, True):
            if misfit:
                syns[2].loc[3, "Income"] = np.nan
            laid.clear()
            prepared = prepare(orig, syns, RiskOptions(r=0.1, **call))
            for r in (0.1, 0.03, 0.1):
                fresh = identification_risk(orig, syns, r=r, **call)
                measures = prepared.dataset_measures(r)
                for key in ("exp_risk", "true_rate", "false_rate", "s"):
                    np.testing.assert_array_equal(measures[key], getattr(fresh, key).to_numpy())
                _same(prepared.count(r=r), fresh)
            assert sorted(laid) == ([False] if misfit else []) + [True] * (2 if misfit else 3)


def test_sweep_measures_pipelined_equal_one_radius_at_a_time(monkeypatch):
    """``sweep_measures`` hands each later radius' pass to a helper thread while it lays out
    the next one (two cores, a stack). Its measures equal ``dataset_measures`` one radius
    after the other and a fresh call's, whether the helper counts, never starts (the radius is
    then counted by the caller) or fails (its error is raised); a dataset that does not fit
    leaves no stack and every radius is counted the usual way."""
    from concurrent.futures import Future

    from idrisk.risk import _threads
    from idrisk.risk import prepared as prepared_module

    monkeypatch.setattr(prepared_module, "_CORES", 2)
    monkeypatch.setattr(prepared_module, "FUSED_THREAD_MIN_CELLS", 0)
    orig, syns = _ages_and_incomes(n=300, m=5, seed=42)
    call = dict(known=["Age", "Urban"], syn=["Income"])
    radii = [0.1, 0.05, 0.2, 0.1, 0.01]
    launched: list = []
    real_launch = prepared_module.Prepared._launch
    monkeypatch.setattr(prepared_module.Prepared, "_launch",
                        lambda self, *a: launched.append(real_launch(self, *a)) or launched[-1])
    real_helpers = _threads.start_helpers

    def idle(work, count):  # a helper that never starts
        return [Future() for _ in range(count)]

    def failing(work, count):
        future: Future = Future()
        future.set_exception(RuntimeError("helper failed"))
        return [future]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fresh = [identification_risk(orig, syns, r=r, **call) for r in radii]
        for helpers, misfit in [(real_helpers, False), (idle, False), (real_helpers, True)]:
            if misfit:
                syns[2].loc[3, "Income"] = np.nan
                fresh = [identification_risk(orig, syns, r=r, **call) for r in radii]
            monkeypatch.setattr(_threads, "start_helpers", helpers)
            launched.clear()
            swept = prepare(orig, syns, RiskOptions(r=0.1, **call)).sweep_measures(radii)
            one_by_one = prepare(orig, syns, RiskOptions(r=0.1, **call))
            assert len(swept) == len(radii)
            for r, measures, want in zip(radii, swept, fresh):
                alone = one_by_one.dataset_measures(r)
                for key in ("exp_risk", "true_rate", "false_rate", "s", "c_zero", "never_match"):
                    np.testing.assert_array_equal(measures[key], alone[key])
                for key in ("exp_risk", "true_rate", "false_rate", "s"):
                    np.testing.assert_array_equal(measures[key], getattr(want, key).to_numpy())
            jobs = [job for job in launched if job is not None]
            assert len(jobs) == (0 if misfit else len(radii) - 1)
            assert len(launched) == (1 if misfit else len(radii) - 1)  # (no stack: tried once)
        launched.clear()  # inputs above the stack's size: never tried, the same measures
        monkeypatch.setattr(prepared_module, "STACK_MAX_CELLS", 10)
        swept = prepare(orig, syns, RiskOptions(r=0.1, **call)).sweep_measures(radii)
        assert not launched
        np.testing.assert_array_equal(swept[-1]["exp_risk"], fresh[-1].exp_risk.to_numpy())
        monkeypatch.setattr(prepared_module, "STACK_MAX_CELLS", 1_000_000)
        monkeypatch.setattr(_threads, "start_helpers", failing)
        syns[2].loc[3, "Income"] = syns[1].loc[3, "Income"]
        with pytest.raises(RuntimeError, match="helper failed"):
            prepare(orig, syns, RiskOptions(r=0.1, **call)).sweep_measures(radii)


def test_check_counts_kept_per_set_of_empty_intervals():
    """The input checks of a set of empty intervals are kept for the next radius (``memo``):
    the same counts as computed afresh, for every radius and rule, and a caller changing what
    it got changes nothing kept."""
    from idrisk.risk._checks import check_counts

    rng = np.random.default_rng(41)
    x = np.column_stack([rng.choice([-2.0, 0.0, 1.0, 5.0, np.nan], 200),
                         rng.choice([-1.0, 0.0, 3.0], 200)])  # fmt: skip
    memo: dict = {}
    for r, closed in [(0.1, False), (0.2, False), (0.0, False), (0.0, True), (0.1, False)]:
        d = r * x
        got = check_counts(x, ["a", "b"], d, closed, memo)
        assert got == check_counts(x, ["a", "b"], d, closed)
        got["never_by"].clear()
        got["never_values"].clear()
    assert 0 < len(memo) <= 3


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(0, 40),
    nan=st.sampled_from([0.0, 0.1]),
    bad=st.sampled_from([0.0, 0.1]),
    closed=st.booleans(),
    with_d=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_check_counts_is_a_count_of_each_record(n, nan, bad, closed, with_d, seed):
    """The input checks (a compiled pass finds the usual case, no NA and no empty interval,
    without temporaries) equal a count written record by record: NA in a column, and an empty
    interval (d < 0, or d = 0 when open) on a value that is not NA."""
    from idrisk.risk._checks import check_counts

    rng = np.random.default_rng(seed)
    x = rng.choice([1.0, 2.0, 7.5], (n, 2))
    x[rng.random((n, 2)) < nan] = np.nan
    d = 0.1 * x if with_d else None
    if d is not None:
        d[rng.random((n, 2)) < bad] = rng.choice([-1.0, 0.0], 1)[0]
    got = check_counts(x, ["a", "b"], d, closed)
    na = [[bool(np.isnan(x[i, v])) for v in range(2)] for i in range(n)]
    empty = [[d is not None and not na[i][v] and (d[i, v] < 0 or (d[i, v] == 0 and not closed))
              for v in range(2)] for i in range(n)]  # fmt: skip
    assert got["na"] == sum(any(row) for row in na)
    per_column = np.asarray(na, dtype=bool).reshape(n, 2).sum(axis=0).tolist()
    assert got["na_by"] == {c: k for c, k in zip("ab", per_column) if k}
    assert got["never"] == sum(any(row) for row in empty)
    per_column = np.asarray(empty, dtype=bool).reshape(n, 2).sum(axis=0).tolist()
    assert got["never_by"] == {c: k for c, k in zip("ab", per_column) if k}


def test_share_on_kept_helper_threads():
    """``share`` on the helper threads kept for the process: every item once for 1-5
    workers (more than the cores: the pool grows), from several threads at once, inside a
    helper (a nested hand-off never waits for itself), and an error on a helper is raised by
    the caller."""
    import threading

    from idrisk.risk import _threads

    class Bar:
        def update(self, k=1):
            pass

    def run(workers, nested=False):
        done = []
        lock = threading.Lock()

        def task(j):
            if nested:
                run(2)
            with lock:
                done.append(j)

        _threads.share(task, range(37), workers, Bar())
        assert sorted(done) == list(range(37))

    for workers in (1, 2, 3, 5):
        run(workers)
    run(2, nested=True)
    threads = [threading.Thread(target=run, args=(3, True)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive()

    def fail(j):
        if j == 5:
            raise RuntimeError("item 5 failed")

    with pytest.raises(RuntimeError, match="item 5 failed"):
        _threads.share(fail, range(40), 3, Bar())


def _share_in_child(queue) -> None:
    from idrisk.risk import _threads

    class Bar:
        def update(self, k=1):
            pass

    done: list = []
    _threads.share(done.append, range(20), 2, Bar())
    pool = _threads.HELPERS[0][0]
    queue.put((sorted(done) == list(range(20)), sum(t.is_alive() for t in pool._threads),
               pool._work_queue.qsize()))  # fmt: skip


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_share_in_a_forked_process_has_helpers_of_its_own():
    """A process forked after a count has none of its parent's helper threads: it starts its
    own (found by review: the inherited pool ran nothing, each call's work stayed queued and
    kept its arrays alive)."""
    import multiprocessing

    from idrisk.risk import _threads

    _threads.share(lambda j: None, range(4), 2, type("B", (), {"update": lambda *a: None})())
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_share_in_child, args=(queue,))
    child.start()
    ok, live, queued = queue.get(timeout=60)
    child.join(timeout=60)
    assert ok and live >= 1 and queued == 0
