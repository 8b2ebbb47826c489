"""idrisk.r.IdentificationRisk against R where a synthetic dataset's columns are in another
order (issue 29): R reads them by position, coercing a column read as continuous with
as.double (a factor gives its codes, text NA). Random problems, the pinned stand-in
(``irc_standin``) in the embedded R; every answer equal, no refusal R would answer, and no
internal (pandas) error."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from _irc import STANDIN_DIR

from idrisk.r import IdentificationRisk

pytestmark = pytest.mark.needs_r

N_PROBLEMS = 120


@pytest.fixture(scope="module")
def standin():
    from idrisk.rcompat import RNotAvailableError
    from idrisk.rcompat._session import robjects

    try:
        ro = robjects()
    except RNotAvailableError as exc:
        pytest.skip(f"needs R and rpy2: {exc}")
    env = ro.r("new.env()")
    ro.r["sys.source"](str(STANDIN_DIR / "IdentificationRisk.R"), envir=env)
    return env["IdentificationRisk"]


def problem(seed: int):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(4, 14)), int(rng.integers(2, 5))
    cols: dict = {}
    for k in range(p):
        kind = rng.choice(["num", "int", "fac", "chr"])
        if kind == "num":
            cols[f"v{k}"] = np.round(rng.normal(10, 3, n), 1)
        elif kind == "int":
            cols[f"v{k}"] = rng.integers(1, 4, n).astype(np.int32)
        elif kind == "fac":
            cols[f"v{k}"] = pd.Categorical(rng.choice(["a", "b"], n))
        else:
            cols[f"v{k}"] = rng.choice(["x", "y"], n).astype(object)
    orig = pd.DataFrame(cols)
    names = list(orig.columns)
    kk = int(rng.integers(1, p))
    known, syn = names[:kk], names[kk:]
    syns = []
    for _ in range(int(rng.integers(1, 3))):
        s = orig.sample(frac=1.0, random_state=int(rng.integers(1 << 30))).reset_index(drop=True)
        s = s.iloc[:, list(rng.permutation(p))]
        if rng.random() < 0.3:
            s = s.assign(extra=1.5)
        syns.append(s)
    r = None if rng.random() < 0.2 else float(rng.choice([0.05, 0.1, 0.3]))
    return orig, syns, known, syn, r


def _r_answer(standin, orig, syns, known, syn, r):
    from rpy2 import robjects as ro

    from idrisk.rcompat.convert import dataframe_to_r, dataframes_to_r, to_python

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = standin(dataframe_to_r(orig), dataframes_to_r(syns), ro.StrVector(known),
                      ro.StrVector(syn), ro.NULL if r is None else ro.FloatVector([r]))
    return to_python(res)


def test_permuted_columns_equal_r(standin):
    refused, internal, wrong = [], [], []
    for seed in range(N_PROBLEMS):
        orig, syns, known, syn, r = problem(seed)
        want = _r_answer(standin, orig, syns, known, syn, r)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = IdentificationRisk(orig, syns, known, syn, r=r)
        except (ValueError, TypeError, KeyError) as exc:
            if type(exc).__module__.startswith("pandas"):
                internal.append((seed, repr(exc)))
            elif want is not None:
                refused.append((seed, str(exc)[:200]))
            continue
        except Exception as exc:  # noqa: BLE001 -- any other error is internal
            internal.append((seed, repr(exc)))
            continue
        for key in ("c_vector", "T_vector", "Risk_vector", "exp.risk_vector", "s_vector"):
            if not np.allclose(np.asarray(got[key], dtype=float),
                               np.asarray(want[key], dtype=float).reshape(
                                   np.shape(got[key])), rtol=0, atol=1e-12, equal_nan=True):
                wrong.append((seed, key))
                break
    assert internal == [] and refused == [] and wrong == [], (internal, refused[:5], wrong[:5])
