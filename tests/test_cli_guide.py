"""docs/guide/cli.md lists every subcommand and every flag of the command (issue 29)."""

from __future__ import annotations

import argparse
from pathlib import Path

from idrisk.cli import build_parser

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "cli.md"


def test_cli_guide_lists_every_subcommand_and_flag():
    text = GUIDE.read_text(encoding="utf-8")
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = []
    for name, sp in sub.choices.items():
        if f"idrisk {name}" not in text:
            missing.append(f"idrisk {name}")
        for action in sp._actions:
            flags = [f for f in action.option_strings if f not in ("-h", "--help")]
            if flags and not any(f"`{f}" in text or f" {f}" in text for f in flags):
                missing.append(f"{name} {flags[0]}")
    assert missing == [], missing
    assert "`-r` has no default" in text
    assert "Choosing a radius and reading the risk" in text
