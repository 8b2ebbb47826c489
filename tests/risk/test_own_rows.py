"""The own-row test T (does target i match its own synthetic row i?) of the compiled kernel
without branches, against the pair-by-pair brute force of ``test_fewgrid``: open and closed
windows, R's NA rule and its opposite, NA values and bounds, keys that differ or are dead;
with two variables, also the kernel that reads them as two columns."""

from __future__ import annotations

import numpy as np
import pytest

from idrisk.risk._kernels import own_rows_pair
from idrisk.risk.matching import MatchRule, interval_bounds
from idrisk.risk.matching import _own_rows_match as own_rows_match

from .test_fewgrid import brute


@pytest.mark.parametrize("closed", [False, True])
@pytest.mark.parametrize("na_matches", [True, False])
@pytest.mark.parametrize("p", [1, 2, 3])
def test_own_rows_equal_brute_force(closed, na_matches, p):
    rng = np.random.default_rng(7 + 10 * p + 2 * closed + na_matches)
    n = 400
    rule = MatchRule(closed=closed, na_matches=na_matches)
    tkey = rng.integers(-1, 3, n)
    skey = np.where(rng.random(n) < 0.8, tkey, rng.integers(-1, 3, n))
    x = rng.integers(-5, 6, (n, p)).astype(float)
    d = rng.integers(0, 4, (n, p)).astype(float)  # window ends exactly on values
    y = x + rng.integers(-2, 3, (n, p))
    x[rng.random((n, p)) < 0.05] = np.nan
    y[rng.random((n, p)) < 0.05] = np.nan
    lo, hi = interval_bounds(x, d)
    got = own_rows_match(tkey, skey, lo, hi, x, d, y, rule)
    want = [
        brute(tkey[i : i + 1], skey[i : i + 1], x[i : i + 1], d[i : i + 1], y[i : i + 1], rule)[0]
        > 0
        for i in range(n)
    ]
    assert got.tolist() == want
    assert 0 < got.sum() < n  # both outcomes occur
    if p == 2:  # the two variables as columns (a large count reads the frames' own arrays)
        pair = np.empty(n, dtype=bool)
        own_rows_pair(tkey, skey, lo, hi, y[:, 0], y[:, 1], closed, na_matches, pair)
        assert pair.tolist() == want
