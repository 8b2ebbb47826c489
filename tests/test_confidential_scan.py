"""Nothing confidential by construction (issue 29): every default output of ``idrisk risk``,
``report``, ``disclosure`` and ``survey-table`` -- the files written, the messages printed --
is scanned for values unique in the confidential data, on the demo data, the CE sample and a
messy survey-like file; and the report's sharing table is true for report.html."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _shared import cedata_path, fixtures_dir

from idrisk.cli import main
from idrisk.datasets import load_demo

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_report_messy import messy  # noqa: E402
from test_report_messy import synthetic as messy_synthetic  # noqa: E402


def unique_tokens(conf: pd.DataFrame) -> dict[str, str]:
    """token -> column, for values exactly one record has that are distinctive enough to be
    searched for as text: numbers with at least 4 digits, labels of at least 4 characters."""
    out = {}
    for c in conf.columns:
        counts = conf[c].dropna().value_counts()
        for v in counts.index[counts.to_numpy() == 1]:
            if isinstance(v, (int, float, np.integer, np.floating)):
                f = float(v)
                text = str(int(f)) if f.is_integer() else repr(round(f, 6))
                if len(text.lstrip("-").replace(".", "")) >= 4:
                    out[text] = c
            elif len(str(v).strip()) >= 4:
                out[str(v)] = c
    return out


_BASE64 = re.compile(r"data:[a-z/+]+;base64,[A-Za-z0-9+/=]+|<style>.*?</style>", re.S)


def scan(text: str, tokens: dict[str, str]) -> list[str]:
    text = _BASE64.sub("", text).replace("−", "-")
    found = []
    for tok, col in tokens.items():
        if re.fullmatch(r"-?[\d.]+", tok):
            digits = tok.lstrip("-")
            sign = "-" if tok.startswith("-") else ""
            grouped = f"{int(float(digits)):,}" if "." not in digits else digits
            for form in {digits, grouped}:
                pat = rf"(?<![\d.,]){re.escape(sign)}{re.escape(form)}(?![\d]|\.\d|,\d)"
                if not sign:
                    pat = r"(?<!-)" + pat
                if re.search(pat, text):
                    found.append(f"{col}={tok}")
        elif re.search(rf"(?<!\w){re.escape(tok)}(?!\w)", text):
            found.append(f"{col}={tok}")
    return found


def _partial(conf: pd.DataFrame, col: str, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return conf.assign(**{col: np.round(conf[col] * rng.uniform(0.9, 1.1, len(conf)))})


def _datasets(folder: Path) -> dict[str, dict]:
    demo = load_demo(n=1500, seed=3)
    ce = pd.read_csv(cedata_path())
    sv = messy()
    # survey weights with three decimals (as real weights have several): with one decimal on
    # 50-150 the 1,000 possible values are too dense to be told from the report's own
    # statistics printed with one decimal (a half-width of 133.4 matched a weight of 133.4)
    sv["weight"] = np.round(np.random.default_rng(1).uniform(50, 150, len(sv)), 3)
    out = {}
    for name, conf, syns, known, syn, keys, target in [
        ("demo", demo, [_partial(demo, "Income", s) for s in (1, 2)],
         ["Age", "Urban", "Marital"], ["Income"], ["Urban", "Marital", "Tenure"], "Educ"),
        ("ce", ce, [pd.read_csv(fixtures_dir("synthpop") / "scenario1" / f"syn_0{j}.csv")
                    for j in (1, 2)],
         ["Age", "Urban", "Marital", "Tenure", "Educ"], ["Income"],
         ["Urban", "Marital", "Tenure"], "Educ"),
        ("survey", sv, [messy_synthetic(sv, j).assign(weight=sv["weight"]) for j in (1, 2)],
         ["sex", "age", "region"], ["edu", "marital", "income"], ["sex", "region"], "marital"),
    ]:
        d = folder / name
        d.mkdir()
        conf.to_csv(d / "conf.csv", index=False)
        for j, s in enumerate(syns, start=1):
            s.to_csv(d / f"syn{j}.csv", index=False)
        out[name] = {"dir": d, "conf": conf, "known": known, "syn": syn, "keys": keys,
                     "target": target}
    return out


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scan")
    return folder, _datasets(folder)


def _run(args: list[str], capsys) -> str:
    main(args)
    cap = capsys.readouterr()
    return cap.out + cap.err


@pytest.mark.parametrize("name", ["demo", "ce", "survey"])
def test_no_default_output_holds_a_value_unique_in_the_confidential_data(outputs, name,
                                                                         capsys):
    _, data = outputs
    d = data[name]["dir"]
    info = data[name]
    files = [str(d / "conf.csv"), str(d / "syn1.csv"), str(d / "syn2.csv")]
    common = ["--known", *info["known"], "--syn", *info["syn"]]
    texts = [
        _run(["risk", *files, *common, "-r", "0.1", "--out-dir", str(d / "risk")], capsys),
        _run(["report", *files, *common, "-r", "0.1", "--radii", "0.05", "0.1", "--no-progress",
              "--out-dir", str(d / "report")], capsys),
        _run(["disclosure", *files, "--known", *info["keys"], "--syn", info["target"],
              "--out-dir", str(d / "disclosure")], capsys),
    ]
    if name == "survey":
        for method in ("direct", "laplace"):
            texts.append(_run(["survey-table", files[0], "--y", "income", "--weight", "weight",
                               "--by", "sex", "--method", method, "--epsilon", "1",
                               "--out", str(d / f"table_{method}.csv"), "--seed", "1"],
                              capsys))
    for path in sorted(d.rglob("*")):
        if path.is_file() and path.suffix in (".csv", ".md", ".html", ".txt", ".json") and \
                path.name not in ("conf.csv", "syn1.csv", "syn2.csv") and \
                path.name not in ("records.csv", "top_records.csv"):
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    tokens = unique_tokens(info["conf"])
    assert len(tokens) > 20  # the scan has something to look for
    found = sorted({f for t in texts for f in scan(t, tokens)})
    assert found == [], found


def test_scan_finds_a_unique_value_when_one_is_printed():
    conf = pd.DataFrame({"Income": [0.0] * 10 + [-25426.0, 1234.5, 880.0]})
    tokens = unique_tokens(conf)
    assert scan("most frequent: Income: 0, −25426", tokens) == ["Income=-25426"]
    assert scan("Income 1,234.5", tokens) == []  # other number
    assert scan("x 1234.5 y", tokens) == ["Income=1234.5"]
    assert scan("n = 12345, 0.25426", tokens) == []


def test_shareable_report_holds_no_record_numbers(outputs, capsys):
    """The sharing table says report.html is for anyone who may see the summary tables:
    the record-number table is only in top_records.csv (custodian only)."""
    _, data = outputs
    d = data["demo"]["dir"]
    out = d / "report_share"
    main(["report", str(d / "conf.csv"), str(d / "syn1.csv"), "--known", "Age", "Urban",
          "--syn", "Income", "-r", "0.1", "--no-sweep", "--no-utility", "--no-progress",
          "--out-dir", str(out)])
    capsys.readouterr()
    top = pd.read_csv(out / "top_records.csv")
    assert len(top)
    for page in ("report.html", "report.md"):
        text = (out / page).read_text(encoding="utf-8")
        assert "top_records.csv" in text
        assert "highest-risk records of each scenario (record = row number" not in text


def test_csv_numbers_are_written_at_their_precision(outputs):
    """No binary-rounding tails (27.900000000000002) in the disclosure tables (the risk
    files keep every bit, for the comparison with R)."""
    folder, _ = outputs
    tails = []
    for path in sorted(folder.rglob("disclosure/*.csv")):
        if path.name in ("conf.csv", "syn1.csv", "syn2.csv"):
            continue
        text = path.read_text(encoding="utf-8")
        tails += [f"{path.name}: {m}" for m in re.findall(r"\d\.\d*(?:0{6,}|9{6,})\d", text)]
    assert tails == [], tails[:5]


def test_disclosure_measures_csv_has_no_rounding_tails(tmp_path, capsys):
    """A case whose measures.csv held 0.7000000000000001 before (issue 29: 27.900000000000002)."""
    conf = load_demo(n=1000, seed=3)
    syn = conf.assign(Educ=np.random.default_rng(1).permutation(conf["Educ"].to_numpy()))
    conf.to_csv(tmp_path / "c.csv", index=False)
    syn.to_csv(tmp_path / "s.csv", index=False)
    main(["disclosure", str(tmp_path / "c.csv"), str(tmp_path / "s.csv"), "--known", "Urban",
          "Marital", "Tenure", "--syn", "Educ", "--out-dir",
          str(tmp_path / "d")])
    capsys.readouterr()
    text = (tmp_path / "d" / "measures.csv").read_text()
    assert re.findall(r"\d\.\d*(?:0{6,}|9{6,})\d", text) == []
    assert "0.7," in text or ",0.7\n" in text or ",0.7," in text
