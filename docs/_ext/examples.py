"""Render the paper reproductions in ``vignettes/`` as the site's Examples.

Once the configuration is read, every ``vignettes/*.md`` and the figures it uses are copied to
``docs/examples/generated/`` (ignored by git): the committed text, tables and figures of each
run, nothing recomputed (no Stan run at build time). A figure that a page names in its text
(``figures/x.png``) without showing it is appended, under a heading, so every figure of a run
appears on its page.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

FIGURE = re.compile(r"figures/([\w.{},-]+?\.(?:png|svg|jpg))")
EMBEDDED = re.compile(r"!\[[^\]]*\]\(figures/([^)\s]+)\)")
BRACES = re.compile(r"\{([^{}]*)\}")
IMAGES = {".png", ".svg", ".jpg"}


def expand_braces(name: str) -> list[str]:
    """``a_{x,y}.png`` -> ``['a_x.png', 'a_y.png']`` (one brace group at a time)."""
    match = BRACES.search(name)
    if not match:
        return [name]
    out: list[str] = []
    for part in match.group(1).split(","):
        out += expand_braces(name[: match.start()] + part + name[match.end() :])
    return out


def named_figures(text: str) -> list[str]:
    """Figures the text names (in order, once each), braces expanded."""
    seen: list[str] = []
    for match in FIGURE.finditer(text):
        for name in expand_braces(match.group(1)):
            if name not in seen:
                seen.append(name)
    return seen


def render(text: str, figures_dir: Path) -> tuple[str, list[str]]:
    """The page's text with its named-but-not-shown figures appended; the figures it uses."""
    shown = EMBEDDED.findall(text)
    missing = [f for f in named_figures(text) if f not in shown and (figures_dir / f).is_file()]
    if missing:
        text = text.rstrip("\n") + "\n\n## Figures of this run\n\n"
        text += "\n\n".join(f"![{Path(f).stem}](figures/{f})" for f in missing) + "\n"
    used = [f for f in shown + missing if (figures_dir / f).is_file()]
    return text, used


def copy_examples(vignettes: Path, out: Path) -> list[str]:
    """Copy the vignettes and the figures into ``out``; return the page names."""
    (out / "figures").mkdir(parents=True, exist_ok=True)
    names = []
    for src in sorted(vignettes.glob("*.md")):
        text, _ = render(src.read_text(encoding="utf-8"), vignettes / "figures")
        target = out / src.name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        names.append(src.stem)
    # every figure, also those other pages show (the report's radius sweep in the guide)
    for src_fig in sorted((vignettes / "figures").glob("*")):
        dst = out / "figures" / src_fig.name
        if src_fig.suffix in IMAGES and (
            not dst.exists() or dst.stat().st_mtime < src_fig.stat().st_mtime
        ):
            shutil.copy2(src_fig, dst)
    # a vignette removed from the repository leaves no stale page behind
    for old in out.glob("*.md"):
        if old.stem not in names:
            old.unlink()
    return names


def _config_inited(app, config) -> None:  # noqa: ANN001 - Sphinx application, config
    srcdir = Path(app.srcdir)
    copy_examples(srcdir.parent / "vignettes", srcdir / "examples" / "generated")


def setup(app):  # noqa: ANN001, ANN201 - Sphinx extension entry point
    app.connect("config-inited", _config_inited)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
