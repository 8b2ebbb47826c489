"""Read an IdentificationRisk case directory (``orig.csv``, ``syn_<j>.csv``, ``args.json``).

The layout (a case folder, as ``idrisk check-r CASE...`` reads it):

* ``orig.csv`` -- the confidential data, header = column names in R's column order;
* ``syn_1.csv`` ... ``syn_m.csv`` -- the synthetic datasets (each with its own header: R reads
  the synthetic columns by position);
* ``args.json`` -- the call: ``known``, ``syn`` (lists, in the order given to R; a name may
  repeat), ``r`` (null, a number or a list), ``percentage``, ``euclideanDist`` (booleans),
  ``column_types`` (column -> ``factor``/``character``/``integer``/``double``), ``m``;
  optional ``synthetic_column_types`` (the synthetic files' types, in their column order, when
  they differ from ``column_types``), ``synthetic_columns_positional`` and ``synthetic_n``
  (informative: the files are read as they are);
* ``expected.json`` (optional) -- R's answer: ``c_vector`` ... ``false.rate_vector`` (matrices as
  n lists of m values, ``"NaN"`` for NaN) and ``returned_null``. With it, ``check-r`` compares
  idrisk with the stored answer and needs no R.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["RiskCase", "read_case", "read_typed_csv"]


@dataclass
class RiskCase:
    """One IdentificationRisk call: data plus arguments."""

    name: str
    orig: pd.DataFrame
    syn: list[pd.DataFrame]
    known: list[str]
    syn_vars: list[str]
    r: Any
    percentage: bool
    euclidean_dist: bool
    expected: dict | None = None

    def __repr__(self) -> str:
        return (
            f"RiskCase({self.name!r}, n={len(self.orig)}, m={len(self.syn)}, known={self.known}, "
            f"syn={self.syn_vars}, r={self.r!r}, percentage={self.percentage}, "
            f"euclidean_dist={self.euclidean_dist})"
        )


def read_typed_csv(path: str | Path, column_types: dict[str, str] | None = None) -> pd.DataFrame:
    """Read a CSV the way R held it: ``factor`` -> category (sorted labels, as R's
    ``as.factor``), ``character`` -> str, ``integer`` -> int, ``double`` -> float.

    Without ``column_types`` the types are pandas' guesses (strings become categories).
    ``NA`` (and an empty field) is a missing value.
    """
    frame = pd.read_csv(
        path,
        keep_default_na=False,
        na_values=["NA", ""],
        dtype={c: str for c, t in (column_types or {}).items() if t in ("factor", "character")},
    )
    types = column_types or {
        c: ("factor" if not pd.api.types.is_numeric_dtype(frame[c]) else "double")
        for c in frame.columns
    }
    for col, kind in types.items():
        if col not in frame:
            raise ValueError(f"{path}: column {col!r} of column_types is not in the file")
        if kind == "factor":
            frame[col] = frame[col].astype("category")
        elif kind == "character":
            frame[col] = frame[col].astype("str")
        elif kind == "integer":
            frame[col] = frame[col].astype("Int32" if frame[col].isna().any() else "int32")
        elif kind == "double":
            frame[col] = frame[col].astype("float64")
        else:
            raise ValueError(f"column_types[{col!r}] must be factor/character/integer/double")
    return frame


def read_case(path: str | Path) -> RiskCase:
    """Read a case directory; ``expected.json`` is attached when present.

    Examples
    --------
    >>> case = read_case("../shared/fixtures/identification_risk/T0_c0_hand")  # doctest: +SKIP
    >>> case.known, len(case.syn)  # doctest: +SKIP
    (['K'], 2)
    """
    root = Path(path)
    args_file = root / "args.json"
    if not args_file.is_file():
        raise FileNotFoundError(f"{root} is not a case directory: no args.json")
    args = json.loads(args_file.read_text())
    types = args.get("column_types")
    orig = read_typed_csv(root / "orig.csv", types)
    m = args.get("m") or len(list(root.glob("syn_*.csv")))
    syn_types = args.get("synthetic_column_types", types)
    syn = [read_typed_csv(root / f"syn_{j}.csv", syn_types) for j in range(1, m + 1)]
    expected = root / "expected.json"
    return RiskCase(
        name=root.name,
        orig=orig,
        syn=syn,
        known=list(args["known"]),
        syn_vars=list(args["syn"]),
        r=args.get("r"),
        percentage=bool(args.get("percentage", True)),
        euclidean_dist=bool(args.get("euclideanDist", False)),
        expected=json.loads(expected.read_text()) if expected.is_file() else None,
    )
