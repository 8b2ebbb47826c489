"""The vignettes' findings tables are data (``vignettes/findings/*.csv``) kept true by this test.

* the Markdown table of each vignette equals the one rendered from its CSV;
* every verdict equals the vignette's one rule applied to the row, and every printed factor
  equals (ours - against) / noise from the printed numbers;
* every "ours" / "against" number traces to a stored result file under ``vignettes/figures``
  by its key, equal to the stored value to the printed digits, and every file equals what
  ``vignettes/findings/_build.py`` computes from those files (the noise values included);
* every ``Table N`` / ``Fig. N`` the papers' texts name (``shared/papers``; a supplement's
  as ``supp. Fig. N``) appears as a row of some vignette.
"""

from __future__ import annotations

import importlib.util
import math
import re
from pathlib import Path

import pytest
from _shared import shared_dir

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("_findings", ROOT / "vignettes" / "_findings.py")
F = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(F)

VIGNETTES = list(F.RULES)
#: the heading at which a paper's supplement starts (its Fig./Table numbers restart)
SUPPLEMENT = {"000": "Supplementary Material for", "004": "Supplementary Material to"}


@pytest.fixture(params=VIGNETTES)
def vignette(request) -> str:
    return request.param


def test_every_vignette_has_a_findings_file():
    assert sorted(p.stem for p in F.FINDINGS.glob("*.csv")) == sorted(VIGNETTES)
    assert sorted(p.stem for p in (ROOT / "vignettes").glob("*.md")) == sorted(VIGNETTES)


def test_rendered_table_equals_the_file(vignette):
    text = (ROOT / "vignettes" / f"{vignette}.md").read_text(encoding="utf-8")
    assert text.count(F.BEGIN) == 1 and text.count(F.END) == 1
    assert F.block(text) == F.render(vignette), (
        f"{vignette}.md: run `python vignettes/_findings.py {vignette}`")


def test_every_verdict_follows_the_rule(vignette):
    rows = F.read_rows(vignette)
    assert [r["id"] for r in rows] == [str(i) for i in range(1, len(rows) + 1)]
    for row in rows:
        assert row["verdict"] in F.VERDICTS, row
        assert row["direction"] in ("", "<", ">", "="), row
        assert row["verdict"] == F.row_verdict(vignette, row), (row["id"], row["finding"])
        if row["verdict"] == "descriptive":
            assert not row["paper_value"], (row["id"], "descriptive rows have no published number")
        if not row["ours"]:
            # a finding we cannot compute says why
            assert row["verdict"] in ("not established", "descriptive") and row["note"], row["id"]
        if row["factor"]:
            stated = [F.number(f) for f in F.split(row["factor"])]
            for s, c in zip(stated, F.factors(row), strict=True):
                if math.isinf(c):
                    assert s == c, (row["id"], s, c)
                else:
                    assert abs(s - c) <= 0.05 + 1e-9, (row["id"], s, c)
        else:
            assert not row["noise"], row["id"]


def _traced(key: str, printed: str) -> tuple[float, float]:
    stored = F.lookup(key)
    return stored, 0.5 * 10 ** -F.decimals(printed) + 1e-12


def test_every_number_traces_to_a_stored_result(vignette):
    for row in F.read_rows(vignette):
        for keys, values in ((row["ours_key"], row["ours"]), (row["against_key"], row["against"])):
            ks, vs = F.split(keys), F.split(values)
            if not ks:
                continue
            assert len(ks) == len(vs), (row["id"], ks, vs)
            for k, v in zip(ks, vs, strict=True):
                stored, tol = _traced(k, v)
                assert abs(stored - F.number(v)) <= tol, (vignette, row["id"], k, stored, v)
        if row["ours"] and not row["ours_key"]:
            pytest.fail(f"{vignette} row {row['id']}: a number without a key")


def test_every_file_equals_what_its_builder_computes_from_the_stored_results(vignette):
    """Noise values included: ``vignettes/findings/_build.py`` derives them from the stored
    per-dataset / per-repeat / per-fit results, so an edited CSV or stored number fails."""
    spec = importlib.util.spec_from_file_location("_build", F.FINDINGS / "_build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    assert build.BUILDERS[vignette]().rows == F.read_rows(vignette)


def _paper_refs() -> dict[str, set[str]]:
    out = {}
    for path in sorted((shared_dir() / "papers").glob("0*.txt")):
        paper = path.name[:3]
        text = path.read_text(encoding="utf-8")
        head = SUPPLEMENT.get(paper)
        parts = re.split(f"^{head}", text, maxsplit=1, flags=re.M) if head else [text]
        if len(parts) == 2:
            main, supp = parts
            # the supplement numbers its own figures and tables up to its last caption; a
            # higher number in the supplement's text names one of the main text's
            last = {kind: max([int(n) for k, n in re.findall(r"^(Figure|Table) (\d+):", supp,
                                                             re.M) if k == kind], default=0)
                    for kind in ("Figure", "Table")}
            refs = F.paper_refs(main)
            for ref in F.paper_refs(supp):
                kind, num = ref.split()
                own = int(num) <= last["Table" if kind == "Table" else "Figure"]
                refs.add(f"supp. {ref}" if own else ref)
            out[paper] = refs
        else:
            out[paper] = F.paper_refs(text)
    assert sorted(out) == ["000", "001", "002", "003", "004"], sorted(out)
    return out


def test_every_table_and_figure_of_the_papers_has_a_row():
    covered: dict[str, set[str]] = {}
    for v in VIGNETTES:
        for row in F.read_rows(v):
            covered.setdefault(row["paper"], set()).update(F.row_refs(row["source"]))
    missing = {p: sorted(refs - covered.get(p, set())) for p, refs in _paper_refs().items()}
    missing = {p: m for p, m in missing.items() if m}
    assert not missing, f"paper tables/figures without a findings row: {missing}"
