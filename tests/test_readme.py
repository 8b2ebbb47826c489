"""The README's quick start runs and prints what the README shows."""

from __future__ import annotations

import contextlib
import io
import re

from _shared import REPO_ROOT


def test_quick_start_runs_and_output_matches():
    text = (REPO_ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert out.getvalue().strip() == shown.strip()


def test_readme_opens_with_the_two_commands():
    first_block = (REPO_ROOT / "README.md").read_text().split("```")[1]
    commands = [ln for ln in first_block.splitlines()[1:] if ln.strip()]
    assert [c.split("#")[0].strip() for c in commands] == [
        "bash scripts/dev.sh demo",
        "bash scripts/dev.sh test",
    ]
