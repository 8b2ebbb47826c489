"""Every Python block of README.md runs as written, and prints what the README shows.

Each ```python block runs on its own, in a fresh namespace and an empty working directory, so
a block must load or build its own data. When a ```text block follows it directly, the
block's standard output must equal that text (trailing spaces ignored).

A block may be preceded by one HTML comment that says what it needs (shown nowhere on GitHub):

* ``<!-- needs: R synthpop -->`` - R packages: the block runs when R, rpy2 and those packages
  are installed (CI installs them) and is skipped, naming them, otherwise;
* ``<!-- needs: IdentificationRiskCalculation -->`` - that R package cannot be shipped (no
  licence): the block runs in a subprocess, with the real package where it is installed and
  otherwise with the test stand-in pinned to the package's recorded outputs
  (``tests/rcompat/irc_standin``);
* ``<!-- needs: stan -->`` - compiles a Stan program (marked ``stan`` and ``slow``).

No other way to leave a block out exists: a marker this test does not know fails it.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from dataclasses import dataclass, field

import pytest
from _shared import REPO_ROOT

README = REPO_ROOT / "README.md"
IRC = "IdentificationRiskCalculation"
KNOWN_NEEDS = {"R", "synthpop", "stan", IRC}


@dataclass
class Block:
    line: int  # 1-based line of the opening fence
    section: str
    code: str
    shown: str | None = None  # the ```text block right after it
    needs: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", self.section.lower()).strip("-")
        return f"L{self.line}-{slug}"


FENCE = re.compile(r"^```(\w*)\s*$")
NEEDS = re.compile(r"^<!--\s*needs:\s*(.*?)\s*-->\s*$")


def parse_readme(text: str) -> list[Block]:
    """The Python blocks of a Markdown text, with their markers and shown output."""
    lines = text.splitlines()
    blocks: list[Block] = []
    section = "top"
    i = 0
    previous_python: Block | None = None
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            section = line.lstrip("#").strip()
        match = FENCE.match(line)
        if not match:
            if line.strip():
                previous_python = None
            i += 1
            continue
        lang = match.group(1)
        end = i + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        body = "\n".join(lines[i + 1 : end]) + "\n"
        if lang == "python":
            needs: list[str] = []
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            marker = NEEDS.match(lines[j]) if j >= 0 else None
            if marker:
                needs = marker.group(1).split()
            elif j >= 0 and lines[j].lstrip().startswith("<!--"):
                needs = ["<unknown marker: " + lines[j].strip() + ">"]
            block = Block(i + 1, section, body, needs=needs)
            blocks.append(block)
            previous_python = block
        elif lang == "text" and previous_python is not None:
            previous_python.shown = body
            previous_python = None
        else:
            previous_python = None
        i = end + 1
    return blocks


BLOCKS = parse_readme(README.read_text())


def _params():
    out = []
    for b in BLOCKS:
        marks = [pytest.mark.stan, pytest.mark.slow] if "stan" in b.needs else []
        if any(n in b.needs for n in ("R", "synthpop", IRC)):
            marks.append(pytest.mark.needs_r)
        out.append(pytest.param(b, id=b.id, marks=marks))
    return out


def _normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def _skip_without_r_packages(packages: list[str]) -> None:
    from idrisk.rcompat import RNotAvailableError, require_r_package

    for package in packages:
        try:
            require_r_package(package)
        except RNotAvailableError as exc:
            pytest.skip(f"README block needs the R package {package}: {exc}")


def _run_with_irc(block: Block, tmp_path) -> str:
    """Run the block in a subprocess with the real package or the pinned stand-in."""
    sys.path.insert(0, str(REPO_ROOT / "tests" / "rcompat"))
    try:
        from _irc import real_irc_available, run_idrisk, standin_library
    finally:
        sys.path.pop(0)
    from _shared import cedata_path

    _skip_without_r_packages(["stats"] + [n for n in block.needs if n not in ("R", IRC)])
    lib = None if real_irc_available() else standin_library(cedata_path())
    code = f"import os\nos.chdir({str(tmp_path)!r})\n" + block.code
    proc = run_idrisk([], lib, python_code=code)
    assert proc.returncode == 0, f"README block at line {block.line} failed:\n{proc.stderr}"
    return proc.stdout


def test_readme_has_python_blocks_and_only_known_markers():
    assert len(BLOCKS) >= 5
    for b in BLOCKS:
        unknown = [n for n in b.needs if n not in KNOWN_NEEDS]
        assert not unknown, f"README line {b.line}: unknown marker {unknown}"


@pytest.mark.parametrize("block", _params())
def test_readme_block_runs_and_prints_what_is_shown(block: Block, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    if IRC in block.needs:
        stdout = _run_with_irc(block, tmp_path)
    else:
        if "R" in block.needs or "synthpop" in block.needs:
            _skip_without_r_packages(["stats"] + [n for n in block.needs if n != "R"])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block.code, f"README.md:{block.line}", "exec"), {"__name__": "readme"})
        stdout = out.getvalue()
    if block.shown is not None:
        assert _normalise(stdout) == _normalise(block.shown), f"README line {block.line}"


def test_readme_opens_with_the_two_commands():
    first_block = README.read_text().split("```")[1]
    commands = [ln for ln in first_block.splitlines()[1:] if ln.strip()]
    assert [c.split("#")[0].strip() for c in commands] == [
        "bash scripts/dev.sh demo",
        "bash scripts/dev.sh test",
    ]


def test_parser_sees_markers_and_shown_output():
    text = (
        "# A\n\n```python\nprint(1)\n```\n\n```text\n1\n```\n\n"
        "<!-- needs: R synthpop -->\n```python\nx = 1\n```\nprose\n\n```text\nnot output\n```\n"
    )
    first, second = parse_readme(text)
    assert (first.line, first.code, first.shown, first.needs) == (3, "print(1)\n", "1\n", [])
    assert second.needs == ["R", "synthpop"] and second.shown is None
