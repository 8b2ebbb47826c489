"""Agency file formats (issue 29): SAS (``.sas7bdat``, ``.xpt``), Stata (``.dta``), SPSS
(``.sav``, ``.zsav``) through pyreadstat, R (``.rds``, ``.RData``/``.rda`` holding one data
frame) through pyreadr -- the optional extra ``formats`` (``pip install idrisk[formats]``).

Value labels become categories (the labels, in the order of their codes); user-defined
missing values (SPSS missing values and ranges, Stata's ``.a``-``.z``, SAS special missing
values) become NA. What was done is returned as notes that the readers report (one
:class:`FormatNote` warning per file).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd

from .exceptions import FormatNote, InputError

__all__ = ["AGENCY_SUFFIXES", "FormatNote", "read_agency"]

#: suffix -> (format name, the package that reads it)
AGENCY_SUFFIXES = {
    ".sas7bdat": ("SAS", "pyreadstat"),
    ".xpt": ("SAS transport (XPORT)", "pyreadstat"),
    ".dta": ("Stata", "pyreadstat"),
    ".sav": ("SPSS", "pyreadstat"),
    ".zsav": ("SPSS (compressed)", "pyreadstat"),
    ".rds": ("R (saveRDS)", "pyreadr"),
    ".rdata": ("R (save)", "pyreadr"),
    ".rda": ("R (save)", "pyreadr"),
}


def _import(package: str, kind: str, flag: str, path: Path):
    try:
        return __import__(package)
    except ImportError:
        raise InputError(
            f"{flag}: {path} is a {kind} file, which needs the optional package {package}: "
            "pip install 'idrisk[formats]'", flag=flag, file=str(path)) from None


def _read_statistical(path: Path, kind: str, flag: str) -> tuple[pd.DataFrame, list[str]]:
    pyreadstat = _import("pyreadstat", kind, flag, path)
    suffix = path.suffix.lower()
    reader = {".sas7bdat": pyreadstat.read_sas7bdat, ".xpt": pyreadstat.read_xport,
              ".dta": pyreadstat.read_dta, ".sav": pyreadstat.read_sav,
              ".zsav": pyreadstat.read_sav}[suffix]
    kwargs: dict = {}
    if suffix in (".dta", ".sav", ".zsav", ".sas7bdat"):
        kwargs = {"apply_value_formats": True, "formats_as_category": True,
                  "formats_as_ordered_category": False}
    try:
        # user-defined missing values are read as NA (pyreadstat's default)
        frame, meta = reader(str(path), **kwargs)
        _, raw_meta = reader(str(path), metadataonly=True, user_missing=True) \
            if suffix in (".sav", ".zsav", ".dta", ".sas7bdat") else (None, meta)
    except Exception as err:  # noqa: BLE001 -- any reader failure is the file's
        raise InputError(f"{flag}: {path} could not be read as {kind}: {err}", flag=flag,
                         file=str(path)) from None
    notes = []
    labelled = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)]
    if labelled:
        notes.append(f"value labels became categories in {len(labelled)} column(s) "
                     f"({', '.join(labelled[:8])}{', …' if len(labelled) > 8 else ''})")
    missing: dict[str, list[str]] = {}
    for source in (getattr(raw_meta, "missing_user_values", None) or {},
                   getattr(raw_meta, "missing_ranges", None) or {}):
        for c, values in source.items():
            shown = [f"{r['lo']}–{r['hi']}" if isinstance(r, dict) and r["lo"] != r["hi"]
                     else str(r["lo"] if isinstance(r, dict) else r) for r in values]
            missing.setdefault(c, []).extend(shown)
    if missing:
        notes.append("user-defined missing values became NA: " + "; ".join(
            f"{c}: {', '.join(dict.fromkeys(v))}" for c, v in missing.items()))
    return frame, notes


def _read_r(path: Path, kind: str, flag: str) -> tuple[pd.DataFrame, list[str]]:
    pyreadr = _import("pyreadr", kind, flag, path)
    try:
        result = pyreadr.read_r(str(path))
    except Exception as err:  # noqa: BLE001 -- any reader failure is the file's
        raise InputError(f"{flag}: {path} could not be read as {kind}: {err}", flag=flag,
                         file=str(path)) from None
    frames = {k: v for k, v in result.items() if isinstance(v, pd.DataFrame)}
    if len(frames) != 1:
        names = [str(k) for k in frames] or ["none"]
        raise InputError(f"{flag}: {path} holds {len(frames)} data frames ({', '.join(names)});"
                         " save the one to use alone (saveRDS(df, 'file.rds'))", flag=flag,
                         file=str(path))
    frame = next(iter(frames.values()))
    notes = []
    factors = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)]
    if factors:
        notes.append(f"R factors became categories ({', '.join(factors[:8])}"
                     f"{', …' if len(factors) > 8 else ''})")
    return frame.reset_index(drop=True), notes


def read_agency(path: Path, flag: str) -> pd.DataFrame:
    """Read a SAS, Stata, SPSS or R file (:data:`AGENCY_SUFFIXES`); report what was done as a
    :class:`FormatNote` warning.

    Raises
    ------
    InputError
        The reader is not installed, the file cannot be read, or an R file holds no or
        several data frames.
    """
    kind, package = AGENCY_SUFFIXES[path.suffix.lower()]
    reader = _read_r if package == "pyreadr" else _read_statistical
    frame, notes = reader(path, kind, flag)
    if notes:
        warnings.warn(f"{flag}: {path} ({kind}): " + "; ".join(notes), FormatNote,
                      stacklevel=3)
    return frame
