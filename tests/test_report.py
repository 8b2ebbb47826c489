"""``idrisk.report`` / ``idrisk report``: numbers equal to the engine's, a self-contained HTML
page that a real browser renders with every figure loaded."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from _browser import chromium, images_loaded, needs_chromium
from _shared import cedata_path, fixtures_dir

import idrisk
from idrisk import identification_risk
from idrisk.analysis import maximizing_radius, radius_sweep
from idrisk.cli import main
from idrisk.datasets import load_demo

KNOWN = ["Age", "Urban", "Marital"]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    from idrisk import syn

    data = load_demo(n=400, seed=3)
    scen = {
        "A": syn(data, m=3, syn=["Income"], seed=1, rng="numpy"),
        "B": syn(data, m=3, syn=["Expenditure", "Income"], seed=1,
                 rng="numpy"),
    }
    syn_vars = {"A": ["Income"], "B": ["Expenditure", "Income"]}
    out = tmp_path_factory.mktemp("report")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = idrisk.report(data, scen, KNOWN, syn_vars, r=0.1, out_dir=out,
                            radii=[0.05, 0.1, 0.2], maxorder=0, top=5)
    return data, scen, syn_vars, rep


def test_report_numbers_are_the_engines(small):
    data, scen, syn_vars, rep = small
    for name in ("A", "B"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = identification_risk(data, scen[name], KNOWN, syn_vars[name], r=0.1)
        row = rep.tables.summary.loc[name]
        assert row["exp_risk"] == res.exp_risk.mean()
        assert row["exp_risk_share"] == pytest.approx(res.exp_risk.mean() / len(data))
        assert row["true_rate"] == res.true_rate.mean()
        assert row["false_rate"] == pytest.approx(res.false_rate.mean())
        d = rep.tables.datasets
        np.testing.assert_array_equal(d[d.scenario == name].exp_risk, res.exp_risk)
        # highest-risk records: the top of record_risk, numbered from 1
        top = rep.tables.top_records
        top = top[top.scenario == name]
        want = np.sort(res.record_risk.to_numpy())[::-1][:5]
        np.testing.assert_array_equal(top.record_risk, want)
        np.testing.assert_array_equal(res.record_risk.to_numpy()[top.record - 1], want)
    sweep = radius_sweep(data, {k: scen[k] for k in scen}, KNOWN, syn_vars,
                         radii=[0.05, 0.1, 0.2], progress=False)
    best = maximizing_radius(sweep)
    assert rep.tables.summary["max_risk_radius"].tolist() == best["r"].tolist()


def test_report_files_are_self_contained(small):
    *_, rep = small
    html = rep.files.html.read_text()
    md = rep.files.markdown.read_text()
    # no network: every image is inline data, no external script, style or link
    srcs = re.findall(r"<img[^>]*src='([^']*)'", html)
    assert len(srcs) == len(rep.files.figures) >= 5
    assert all(s.startswith("data:image/png;base64,") for s in srcs)
    assert not re.search(r"(src|href)=['\"]?(https?:|//)", html)
    # Markdown: the same figures as files
    for path in rep.files.figures.values():
        assert path.name in md and path.stat().st_size > 1000
    for heading in ("Risk per scenario", "Checks on the data", "Record-level risk",
                    "Radius sweep", "Utility"):
        assert heading in html and f"## {heading}" in md
    assert "expected risk (records identified, of n)" in html
    assert (rep.files.folder / "summary.csv").exists()


@needs_chromium
def test_browser_renders_report_with_every_image(small, tmp_path):
    *_, rep = small
    # 1. every <img> decoded: a probe copy of the page records it in the DOM after 'load'
    images, loaded = images_loaded(rep.files.html.read_text(), tmp_path)
    assert images == len(rep.files.figures) and loaded == images
    # 2. the page itself renders to a PNG that is not blank
    png = tmp_path / "report.png"
    chromium([f"--screenshot={png}", "--window-size=1200,3000", rep.files.html.as_uri()],
             tmp_path)
    assert png.exists() and png.stat().st_size > 50_000
    from PIL import Image

    with Image.open(png) as im:
        assert im.size == (1200, 3000)
        colours = im.convert("RGB").resize((60, 150)).getcolors(maxcolors=100_000)
        assert colours is not None and len(colours) > 20  # text, tables and figures


def test_cli_report_on_ce_and_synthpop_files(tmp_path, capsys):
    """``idrisk report`` on the CE sample and synthpop's scenario files: R's exp_risk exactly."""
    base = fixtures_dir("synthpop")
    s1 = [str(base / "scenario1" / f"syn_{j:02d}.csv") for j in (1, 2)]
    s3 = [str(base / "scenario3" / f"syn_{j:02d}.csv") for j in (1, 2)]
    out = tmp_path / "rep"
    code = main(["report", str(cedata_path()), *s1, "--known", *KNOWN, "--syn", "Income",
                 "--scenario", "3:Expenditure,Income", *s3,
                 "--categorical", "Urban", "Tenure", "Marital", "-r", "0.1",
                 "--radii", "0.05", "0.1", "--maxorder", "0", "--top", "3",
                 "--out-dir", str(out), "--no-progress"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert (out / "report.html").stat().st_size > 20_000 and (out / "report.md").exists()
    assert "can never be matched" in captured.err  # the 449 records with Income <= 0
    datasets = pd.read_csv(out / "datasets.csv")
    want = pd.read_csv(base / "risk_by_radius.csv")
    for scenario in (1, 3):
        r_exp = want[(want.scenario == scenario) & (want.r == 0.1) & (want.dataset <= 2)]
        got = datasets[datasets.scenario == scenario]
        np.testing.assert_array_equal(got.exp_risk.to_numpy(), r_exp.exp_risk.to_numpy())
    html = (out / "report.html").read_text()
    assert "syn_01.csv" in html and "CEdata.csv" in html  # files named, not syndata[0]


def test_report_shows_every_option_in_its_signature():
    """help(idrisk.report) lists compute_report's options, and out_dir/overwrite."""
    import inspect

    from idrisk.reporting import compute_report

    shown = list(inspect.signature(idrisk.report).parameters)
    want = list(inspect.signature(compute_report).parameters)
    assert [p for p in shown if p not in ("out_dir", "overwrite")] == want
    assert shown.index("out_dir") == want.index("r") + 1


def test_report_utility_with_a_radius_per_column():
    """U_p of the report with a vector radius (it was refused and noted as not computed)."""
    import warnings

    from idrisk.datasets import load_demo
    from idrisk.reporting import compute_report

    d = load_demo(n=300, seed=1)
    s = d.assign(Income=d.Income.sample(frac=1, random_state=1).to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = compute_report(d, [s], ["Age"], ["Income"], r=[0.1, 0.2], radii=None, maxorder=0)
    assert rep.summary()["U_p"].notna().all()
    assert not any("could not be computed" in n for n in rep.notes)


_NUM = re.compile(r"^[-+−]?(\d[\d,]*\.?\d*|\.\d+)([eE][-+]?\d+)?\s*%?$")


def _reads_as_number(cell: str) -> bool:
    return cell == "–" or bool(_NUM.match(cell.strip()))


def test_report_tables_align_text_left_and_numbers_right(small):
    """Every table in report.md and report.html: a column whose cells are all numbers is
    right-aligned, any other column (names, files, notes) left-aligned."""
    *_, rep = small
    md = rep.files.markdown.read_text()
    html = rep.files.html.read_text()
    seen = {"txt": set(), "num": set()}
    # Markdown: the alignment row (":--" left, "--:" right) under each header
    lines = md.splitlines()
    n_md = 0
    for k, line in enumerate(lines):
        if not (line.startswith("| ") and k + 1 < len(lines)
                and re.fullmatch(r"\|( (:--|--:) \|)+", lines[k + 1])):
            continue
        n_md += 1
        header = [c.strip() for c in line.strip("|").split(" | ")]
        align = [c.strip() for c in lines[k + 1].strip("|").split("|") if c.strip()]
        body = []
        for row in lines[k + 2:]:
            if not row.startswith("| "):
                break
            body.append([c.strip() for c in re.split(r"(?<!\\) \| ", row.strip()[2:-2])])
        assert len(align) == len(header)
        for j, (h, a) in enumerate(zip(header, align, strict=True)):
            cells = [r[j] for r in body]
            numeric = all(_reads_as_number(c) for c in cells) and any(c != "–" for c in cells)
            assert a == ("--:" if numeric else ":--"), (h, a, cells[:3])
            seen["num" if numeric else "txt"].add(h)
    assert n_md >= 5
    # HTML: every th/td has the alignment class of its column, and the CSS aligns them
    assert "table.tbl .txt{text-align:left}" in html
    tables = re.findall(r"<table class='tbl'>(.*?)</table>", html, flags=re.S)
    assert len(tables) == n_md
    for t in tables:
        head = re.findall(r"<th class='(\w+)'>(.*?)</th>", t)
        rows = [re.findall(r"<td class='(\w+)'>(.*?)</td>", r)
                for r in re.findall(r"<tr>(.*?)</tr>", t, flags=re.S)[1:]]
        for j, (cls, h) in enumerate(head):
            cells = [r[j][1] for r in rows]
            assert all(r[j][0] == cls for r in rows)
            numeric = all(_reads_as_number(c) for c in cells) and any(c != "–" for c in cells)
            assert cls == ("num" if numeric else "txt"), (h, cls, cells[:3])
    # the sharing table's file names and the scenario names are text; counts are numbers
    assert {"file", "scenario"} <= seen["txt"]
    assert "m" in seen["num"]


def _significant_digits(token: str) -> int:
    mantissa = token.lstrip("-").split("e")[0].split("E")[0].replace(".", "").lstrip("0")
    return len(mantissa)


def test_report_csvs_write_numbers_at_the_precision_they_have(tmp_path):
    """Every report CSV but datasets.csv (R's results, compared with R to the last bit) holds
    at most 15 significant digits: a radius 0.1 + 0.05 is written 0.15."""
    from idrisk import syn

    data = load_demo(n=300, seed=5)
    scen = {"A": syn(data, m=2, syn=["Income"], seed=1, rng="numpy")}
    odd = 0.1 + 0.05
    assert repr(odd) == "0.15000000000000002"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = idrisk.report(data, scen, KNOWN, {"A": ["Income"]}, r=odd, out_dir=tmp_path / "o",
                            radii=[0.05, odd], maxorder=0, top=3)
    number = re.compile(r"(?<![\w.])-?\d+\.\d+(?:[eE][-+]?\d+)?(?![\w.])")
    long_in_datasets = 0
    for path in sorted(rep.files.folder.glob("*.csv")):
        digits = [_significant_digits(t) for t in number.findall(path.read_text())]
        if path.name == "datasets.csv":
            long_in_datasets = max(digits)
        else:
            assert max(digits, default=0) <= 15, path.name
    assert long_in_datasets > 15  # R's doubles, every bit
    sweep = pd.read_csv(rep.files.folder / "risk_by_radius.csv")
    assert sorted(sweep.r.unique()) == [0.05, 0.15]
    # the rounded values are the engine's to 15 digits
    np.testing.assert_allclose(sweep.exp_risk, rep.tables.sweep.exp_risk, rtol=1e-14)
