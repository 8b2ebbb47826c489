""":func:`idrisk.risk._order.value_order` (numpy's integer sort of order-preserving keys with
the rows in their low bits) against numpy's own stable argsort: ties in row order, -0.0 equal
to 0.0, NaN of either sign last, infinities, subnormals, and values that differ only in the
bits the rows replace (runs sorted again); and the counting engine with it on every array
against the pair-by-pair brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idrisk.risk import _order
from idrisk.risk.matching import MatchRule, count_matches

from .test_fewgrid import brute
from .test_fewgrid_sweep import _problem

_NEG_NAN = np.array([0xFFF8000000000001], dtype=np.uint64).view(np.float64)[0]
_EPS = np.finfo(np.float64).eps
# values whose keys agree above the row bits (1 + k eps, 1e9 + k 1e-6) or straddle the
# sign, zero, NaN and infinity cases of the key
_POOL = [
    0.0, -0.0, np.nan, _NEG_NAN, np.inf, -np.inf, 5e-324, -5e-324, 1.0, -1.0, 2.5, -2.5,
    *(1.0 + k * _EPS for k in range(6)), *(-1.0 - k * _EPS for k in range(4)),
    *(1e9 + k * 1e-6 for k in range(6)), 1e300, -1e300,
]


@pytest.fixture(autouse=True)
def _kernels_always(monkeypatch):
    monkeypatch.setattr(_order, "ORDER_MIN_VALUES", 0)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    picks=st.lists(st.integers(0, len(_POOL) - 1), max_size=700),
    noise=st.integers(0, 2**32 - 1),
)
def test_value_order_is_numpys_stable_argsort(picks, noise):
    rng = np.random.default_rng(noise)
    v = np.array([_POOL[i] for i in picks], dtype=np.float64)
    if len(v) and noise % 3 == 0:  # some continuous values among the pool's
        mask = rng.random(len(v)) < 0.5
        v[mask] = rng.normal(0, 10, int(mask.sum()))
    np.testing.assert_array_equal(_order.value_order(v), np.argsort(v, kind="stable"))
    n_groups = int(rng.choice([1, 2, 5, 3000]))
    group = rng.integers(0, n_groups, len(v))
    np.testing.assert_array_equal(_order.value_order(v, group), np.lexsort((v, group)))


@pytest.mark.parametrize("n_groups", [2**20, 2**40])  # the value's bits too few: by group after
def test_groups_too_many_for_the_key_sort_by_value_then_group(n_groups):
    rng = np.random.default_rng(5)
    v = np.array(_POOL)[rng.integers(0, len(_POOL), 5000)]
    group = rng.integers(0, n_groups, len(v))
    group[:2500] = rng.integers(0, 3, 2500)  # ties of groups too
    np.testing.assert_array_equal(_order.value_order(v, group), np.lexsort((v, group)))


def test_values_that_differ_only_in_the_row_bits_come_out_sorted():
    """2**17 values 1e9 + k 1e-6 in random order: their keys agree in every bit above the row's
    17, so the order comes from sorting the runs again (bounded: one sort of each run)."""
    rng = np.random.default_rng(3)
    v = 1e9 + rng.integers(0, 5000, 2**17) * 1e-6
    np.testing.assert_array_equal(_order.value_order(v), np.argsort(v, kind="stable"))
    group = rng.integers(0, 7, len(v))
    np.testing.assert_array_equal(_order.value_order(v, group), np.lexsort((v, group)))


def test_the_counts_equal_the_brute_force_with_value_order_everywhere():
    rng = np.random.default_rng(8)
    for _ in range(60):
        n = int(rng.integers(1, 150))
        tkey, skey, x, d, y = _problem(rng, n)
        y[:, 1] += rng.integers(0, 3, n) * _EPS * np.abs(y[:, 1])  # neighbours in the row bits
        rule = MatchRule(closed=bool(rng.integers(2)), na_matches=bool(rng.integers(2)))
        got, _ = count_matches(tkey, skey, x, d, y, rule)
        np.testing.assert_array_equal(got, brute(tkey, skey, x, d, y, rule), err_msg=str(rule))
