"""Live synthpop for the disclosure tests: run R code in the embedded R (``LC_COLLATE=C``)
and bring data and results back as pandas objects."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

SETUP = 'invisible(Sys.setlocale("LC_COLLATE", "C")); suppressMessages(library(synthpop))'


def need_synthpop() -> None:
    """Skip unless R, rpy2 and synthpop are usable."""
    from idrisk.rcompat import RNotAvailableError, require_r_package

    try:
        require_r_package("synthpop")
    except RNotAvailableError as exc:
        pytest.skip(f"needs the R package synthpop: {exc}")


def run(code: str) -> Any:
    """Evaluate R code (after the C collation and synthpop are set up); return the value."""
    from idrisk.rcompat._session import robjects

    need_synthpop()
    ro = robjects()
    ro.r(SETUP)
    return ro.r(code)


def frame(name: str) -> pd.DataFrame:
    from idrisk.rcompat.convert import dataframe_from_r

    return dataframe_from_r(run(name))


def frames(name: str) -> list[pd.DataFrame]:
    from idrisk.rcompat.convert import dataframes_from_r

    return dataframes_from_r(run(name))


def value(code: str) -> Any:
    from idrisk.rcompat.convert import to_python

    return to_python(run(code))


def printed(code: str) -> list[str]:
    """Lines R prints for ``code``."""
    return list(run(f"utils::capture.output({code})"))


def assert_same(ours: Any, theirs: Any, where: str = "", rtol: float = 0.0) -> None:
    """Equal component by component: DataFrames with names, index and values (NaN = NaN)."""
    if isinstance(theirs, dict):
        for k, v in theirs.items():
            if k in ("call", "digits", "to.print", "attrib.plot", "output.list"):
                continue
            assert k in ours, f"{where}: component {k!r} missing"
            assert_same(ours[k], v, f"{where}${k}", rtol)
        return
    if isinstance(theirs, pd.DataFrame):
        assert isinstance(ours, pd.DataFrame), f"{where}: {type(ours)} is not a DataFrame"
        assert list(map(str, ours.columns)) == list(map(str, theirs.columns)), where
        assert list(map(str, ours.index)) == list(map(str, theirs.index)), (
            where, list(ours.index), list(theirs.index))
        for c in theirs.columns:
            a, b = ours[c], theirs[c]
            if pd.api.types.is_numeric_dtype(b.dtype) and not pd.api.types.is_bool_dtype(b):
                a, b = a.to_numpy(float), b.to_numpy(float)
                np.testing.assert_allclose(a, b, rtol=rtol, atol=0, equal_nan=True,
                                           err_msg=f"{where}${c}")
            else:
                if isinstance(b.dtype, pd.CategoricalDtype):
                    assert list(a.cat.categories) == list(b.cat.categories), f"{where}${c}"
                assert a.astype(str).tolist() == b.astype(str).tolist(), f"{where}${c}"
        return
    if isinstance(theirs, list):
        if not isinstance(ours, list):
            ours = [ours]
        assert len(ours) == len(theirs), (where, ours, theirs)
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_same(a, b, f"{where}[[{i + 1}]]", rtol)
        return
    if isinstance(theirs, float):
        if np.isnan(theirs):
            assert np.isnan(ours), where
        else:
            np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=0, err_msg=where)
        return
    if isinstance(ours, list) and len(ours) == 1 and not isinstance(theirs, list):
        ours = ours[0]
    if theirs is pd.NA:
        assert ours is None or np.isnan(ours), (where, ours)
        return
    assert ours == theirs, (where, ours, theirs)
