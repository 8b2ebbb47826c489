"""``idrisk._schema``: the check that a numeric column holds codes (few whole numbers), which
decides the type warnings of the risk's inputs, against a brute force of its definition on
columns longer than the head it looks at first."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from idrisk._schema import CODES_MAX_DISTINCT, _codes_like


def _brute_force(values: list[float]) -> int | None:
    present = [v for v in values if not np.isnan(v)]
    if not present or any(not np.isfinite(v) or v != round(v) for v in present):
        return None
    k = len(set(present))
    return k if k <= CODES_MAX_DISTINCT and 2 * k <= len(present) else None


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 9000),
    pool=st.sampled_from([1, 2, 5, CODES_MAX_DISTINCT, CODES_MAX_DISTINCT + 1, 40]),
    odd=st.sampled_from([None, 0.5, np.inf, -np.inf, "many", "nan"]),
    where=st.floats(0, 1),
    seed=st.integers(0, 2**16),
)
def test_codes_like_is_its_definition(n, pool, odd, where, seed):
    """Few whole numbers (at most CODES_MAX_DISTINCT, each twice on average) are codes; a
    fraction, an infinity or more distinct values anywhere, in the first rows or after
    them, make the column no codes."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, pool, n).astype(float)
    at = int(where * (n - 1))
    if odd == "many":  # distinct whole numbers from row `at` on
        values[at:] = np.arange(n - at) + 1000.0
    elif odd == "nan":
        values[at:] = np.nan
    elif odd is not None:
        values[at] = odd
    want = _brute_force(values.tolist())
    assert _codes_like(pd.Series(values)) == want
