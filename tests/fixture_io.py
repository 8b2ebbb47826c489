"""Read a case of ``shared/fixtures/identification_risk`` into pandas as R saw it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from _shared import fixtures_dir

MATRICES = ("c_vector", "T_vector", "K_vector", "F_vector", "Risk_vector")
VECTORS = ("s_vector", "exp.risk_vector", "true.rate_vector", "false.rate_vector")


@dataclass
class Case:
    name: str
    orig: pd.DataFrame
    syn: list[pd.DataFrame]
    args: dict
    expected: dict

    def call(self) -> dict:
        """The recorded R call as keyword arguments of ``identification_risk``."""
        a = self.args
        return dict(
            known=a["known"],
            syn=a["syn"],
            r=a["r"],
            percentage=a["percentage"],
            euclidean_dist=a["euclideanDist"],
        )

    def r_value(self, key: str) -> np.ndarray:
        """Expected component as float array (NaN where R gave NaN)."""
        raw = self.expected[key]
        return np.array(
            [[np.nan if v == "NaN" else v for v in row] for row in raw]
            if key in MATRICES
            else [np.nan if v == "NaN" else v for v in raw],
            dtype=np.float64,
        )


#: the fixture folders: the 80 public cases and the 12 R-parity cases (``r_parity_*``)
FOLDERS = ("identification_risk", "identification_risk_parity")


def case_names(folder: str = "identification_risk") -> list[str]:
    root = fixtures_dir(folder)
    return sorted(p.name for p in root.iterdir() if (p / "args.json").is_file())


def read_frame(path: Path, types: dict[str, str]) -> pd.DataFrame:
    dtypes = {
        col: (str if t in ("factor", "character") else "float64" if t == "double" else "Int64")
        for col, t in types.items()
    }
    frame = pd.read_csv(path, dtype=dtypes, keep_default_na=False, na_values=["NA"])
    for col, t in types.items():
        if t == "factor":
            frame[col] = frame[col].astype("category")
        elif t == "character":
            frame[col] = frame[col].astype(object)
        elif t == "integer" and not frame[col].isna().any():
            frame[col] = frame[col].astype(np.int64)
    return frame


def load_case(name: str, folder: str = "identification_risk") -> Case:
    """A case as R held it; the parity folder's extra keys are honoured: the synthetic CSVs
    are read with their own header and ``synthetic_column_types`` (positional columns, a
    factor of the original that is a double in the synthetic data), and ``synthetic_n`` rows."""
    root = fixtures_dir(folder) / name
    args = json.loads((root / "args.json").read_text())
    expected = json.loads((root / "expected.json").read_text())
    types = args["column_types"]
    orig = read_frame(root / "orig.csv", types)
    syn_types = args.get("synthetic_column_types", types)
    syn = [read_frame(root / f"syn_{j}.csv", syn_types) for j in range(1, args["m"] + 1)]
    for j, frame in enumerate(syn):
        want = args.get("synthetic_n", [args["n"]] * args["m"])[j]
        assert len(frame) == want, f"{name}: syn_{j + 1}.csv has {len(frame)} rows, not {want}"
    # R factors: levels of each frame are its own sorted labels (as.factor)
    return Case(name, orig, syn, args, expected)
