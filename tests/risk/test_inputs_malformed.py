"""Issue 10: malformed inputs through the API and the CLI.

Every case must fail with the right exception (API) or exit code 2 (CLI), and the message must
name the column, the file or the argument at fault.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from idrisk import identification_risk
from idrisk.cli import main


def _orig(n: int = 10) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    return pd.DataFrame({
        "Sex": pd.Categorical(rng.choice(["F", "M"], n)),
        "Age": rng.integers(20, 80, n).astype(float),
        "Inc": rng.lognormal(10, 0.5, n).round(0),
    })


def _textual(frame: pd.DataFrame, column: str, row: int, value: str) -> pd.DataFrame:
    out = frame.copy()
    out[column] = out[column].astype(object)
    out.loc[out.index[row], column] = value
    return out


O = _orig()
S = [O.assign(Inc=O.Inc * 1.02), O.assign(Inc=O.Inc * 0.97)]
BASE = dict(known=["Sex", "Age"], syn=["Inc"], r=0.1)

#: (id, origdata, syndata, keyword overrides, exception, regex the message must match)
API_CASES = [
    ("known column missing", O, S, dict(known=["Sex", "Agee"]), KeyError,
     r"known: column\(s\) \['Agee'\] not found in the confidential data"),
    ("syn column missing in dataset 2", O, [S[0], S[1].drop(columns="Inc")], {}, KeyError,
     r"syn: column\(s\) \['Inc'\] not found in synthetic dataset 2 \(synthetic\[1\]\)"),
    ("row count differs", O, [S[0].iloc[:9], S[1]], {}, ValueError,
     r"synthetic dataset 1 \(synthetic\[0\]\) has 9 rows but the confidential data has 10"),
    ("known and syn overlap", O, S, dict(known=["Sex", "Inc"]), ValueError,
     r"known and syn overlap in \['Inc'\]"),
    ("empty syndata", O, [], {}, ValueError, r"synthetic is empty"),
    ("syndata is a file name", O, "syn.csv", {}, TypeError, r"synthetic must be a DataFrame"),
    ("syndata holds a non-frame", O, [S[0], 3], {}, TypeError,
     r"synthetic dataset 2 \(synthetic\[1\]\) is a int"),
    ("negative radius", O, S, dict(r=-0.1), ValueError,
     r"r: the radius for column 'Age' must be finite and >= 0"),
    ("NaN radius for one column", O, S, dict(r=[0.1, float("nan")]), ValueError,
     r"r: the radius for column 'Inc'"),
    ("too few radii", O.assign(Exp=O.Inc / 2), [s.assign(Exp=s.Inc / 2) for s in S],
     dict(syn=["Inc", "Exp"], r=[0.1, 0.2]), ValueError,
     r"r has 2 entries but there are 3 continuous known/syn columns \['Age', 'Inc', 'Exp'\]"),
    ("dict radius misses a column", O, S, dict(r={"Inc": 0.1}), ValueError,
     r"r: no radius given for continuous column\(s\) \['Age'\]"),
    ("text in a continuous synthetic column", O, [S[0], _textual(S[1], "Inc", 3, "abc")], {},
     TypeError, r"'Inc' is continuous .* synthetic dataset 2 .*\['abc'\]"),
    ("number stored as text in origdata", _textual(O, "Inc", 2, "n/a"), S, {}, TypeError,
     r"\['Inc'\] hold numbers stored as text.*'n/a'"),
    ("shuffled synthetic index", O, [S[0].iloc[::-1], S[1]], {}, ValueError,
     r"synthetic dataset 1 \(synthetic\[0\]\): its index differs from the confidential "
     r"data's .*align="),
    ("bad align value", O, S, dict(align="rows"), ValueError, r"align must be None"),
    ("categorical names an unknown column", O, S, dict(categorical=["Nope"]), KeyError,
     r"categorical: column\(s\) \['Nope'\] not found in the confidential data"),
    ("declared both categorical and continuous", O, S,
     dict(categorical=["Age"], continuous=["Age"]), ValueError,
     r"\['Age'\] declared both categorical and continuous"),
    ("continuous without a radius", O, S, dict(r=None, continuous=["Inc"]), ValueError,
     r"continuous=\['Inc'\] needs a radius r"),
    ("declared continuous with a non-number", _textual(O, "Inc", 1, "x"), S,
     dict(continuous=["Inc"]), TypeError,
     r"'Inc' is declared continuous but holds values that are not numbers in the confidential "
     r"data: \['x'\]"),
    ("origdata without rows", O.iloc[:0], [S[0].iloc[:0]], {}, ValueError,
     r"the confidential data has no rows"),
    ("duplicated column in origdata", pd.concat([O, O[["Inc"]]], axis=1), S, {}, ValueError,
     r"the confidential data has more than one column named \['Inc'\]"),
    ("known and syn both empty", O, S, dict(known=[], syn=[]), ValueError,
     r"known and syn are both empty"),
]


def test_at_least_twenty_cases():
    assert len(API_CASES) >= 20 and len(CLI_CASES) >= 20
    assert len({c[0] for c in API_CASES}) == len(API_CASES)


@pytest.mark.parametrize("case", API_CASES, ids=[c[0] for c in API_CASES])
def test_api_rejects_malformed_input(case):
    _, orig, syndata, overrides, exc, pattern = case
    kwargs = {**BASE, **overrides}
    with pytest.raises(exc) as info:
        identification_risk(orig, syndata, **kwargs)
    message = info.value.args[0] if isinstance(info.value, KeyError) else str(info.value)
    assert re.search(pattern, message), message


# --------------------------------------------------------------------------- CLI

def _write(tmp_path, name: str, frame: pd.DataFrame | str) -> str:
    path = tmp_path / name
    if isinstance(frame, str):
        path.write_text(frame)
    else:
        frame.to_csv(path, index=False)
    return str(path)


STD = ["--known", "Sex", "Age", "--syn", "Inc", "-r", "0.1"]

#: (id, files {name: frame or raw text}, argv after "risk" ({name} = path), regex ({name} too)
CLI_CASES = [
    ("known column missing", {}, ["{o}", "{s1}", "--known", "Agee", "--syn", "Inc", "-r", "0.1"],
     r"known: column\(s\) \['Agee'\] not found in {o} \(the confidential data\)"),
    ("syn column missing in a file", {"s2": S[1].drop(columns="Inc")}, ["{o}", "{s1}", "{s2}"]
     + STD, r"syn: column\(s\) \['Inc'\] not found in {s2} \(synthetic dataset 2\)"),
    ("row count differs", {"s1": S[0].iloc[:9]}, ["{o}", "{s1}"] + STD,
     r"{s1} \(synthetic dataset 1\) has 9 rows but {o} \(the confidential data\) has 10"),
    ("known and syn overlap", {}, ["{o}", "{s1}", "--known", "Inc", "--syn", "Inc"],
     r"known and syn overlap in \['Inc'\]"),
    ("no synthetic file", {}, ["{o}"] + STD, r"no synthetic file given"),
    ("no file at all", {}, STD, r"no confidential file given"),
    ("file does not exist", {}, ["{o}", "{missing}"] + STD, r"no such file: {missing}"),
    ("empty file", {"s1": ""}, ["{o}", "{s1}"] + STD, r"{s1} is empty"),
    ("header only", {"o": "Sex,Age,Inc\n", "s1": "Sex,Age,Inc\n"}, ["{o}", "{s1}"] + STD,
     r"{o} has a header but no rows"),
    ("ragged CSV", {"s1": "Sex,Age,Inc\nF,30,1000\nM,40,2000,7,8\n"}, ["{o}", "{s1}"] + STD,
     r"{s1} could not be read"),
    ("negative radius", {}, ["{o}", "{s1}", "--known", "Sex", "Age", "--syn", "Inc",
                             "-r", "-0.1"], r"r: the radius for column 'Age'"),
    ("radius not a number", {}, ["{o}", "{s1}", "--known", "Sex", "--syn", "Inc", "-r", "abc"],
     r"-r/--radius: cannot read 'abc' as a number"),
    ("R-style radius unclosed", {}, ["{o}", "{s1}", "--known", "Sex", "--syn", "Inc", "-r",
                                     "c(0.1,"], r"-r/--radius: cannot read 'c\(0.1,'"),
    ("too few radii", {"o": O.assign(Exp=O.Inc / 2), "s1": S[0].assign(Exp=1.0)},
     ["{o}", "{s1}", "--known", "Sex", "Age", "--syn", "Inc", "Exp", "-r", "c(0.1, 0.2)"],
     r"r has 2 entries but there are 3 continuous"),
    ("text in a continuous synthetic column", {"s1": _textual(S[0], "Inc", 3, "abc")},
     ["{o}", "{s1}"] + STD, r"'Inc' is continuous .* {s1} \(synthetic dataset 1\).*\['abc'\]"),
    ("number stored as text in the confidential file", {"o": _textual(O, "Inc", 2, "n/a")},
     ["{o}", "{s1}"] + STD,
     r"{o} \(the confidential data\): column\(s\) \['Inc'\] hold numbers stored as "
     r"text.*'n/a'.*--categorical"),
    ("--categorical names an unknown column", {}, ["{o}", "{s1}"] + STD
     + ["--categorical", "Nope"], r"--categorical: column\(s\) \['Nope'\] not found in {o}"),
    ("declared both", {}, ["{o}", "{s1}"] + STD + ["--categorical", "Age", "--continuous",
                                                   "Age"], r"\['Age'\] declared both"),
    ("--continuous without a radius", {}, ["{o}", "{s1}", "--known", "Sex", "--syn", "Inc",
                                           "--continuous", "Inc"],
     r"continuous=\['Inc'\] needs a radius"),
    ("--continuous with a non-number", {"o": _textual(O, "Inc", 1, "x")},
     ["{o}", "{s1}"] + STD + ["--continuous", "Inc"],
     r"'Inc' is declared continuous .* in {o} \(the confidential data\): \['x'\]"),
    ("bad --align", {}, ["{o}", "{s1}"] + STD + ["--align", "rows"], r"invalid choice: 'rows'"),
]


@pytest.mark.parametrize("case", CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_cli_rejects_malformed_input(case, tmp_path, capsys):
    _, files, argv, pattern = case
    paths = {"o": O, "s1": S[0], "s2": S[1]}
    paths.update(files)
    names = {k: _write(tmp_path, f"{k}.csv", v) for k, v in paths.items()}
    names["missing"] = str(tmp_path / "nope.csv")
    args = ["risk", *[a.format(**names) for a in argv], "--out-dir", str(tmp_path / "out")]
    try:
        code = main(args)
    except SystemExit as stop:  # argparse's own errors
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2, err
    regex = pattern.format(**{k: re.escape(v) for k, v in names.items()})
    assert re.search(regex, err), err
    assert not (tmp_path / "out" / "records.csv").exists()
