"""The package layout: one subpackage per part, imports that run one way, no cycles."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "idrisk"

PARTS = ("risk", "synthesis", "weighted", "survey", "categorical", "utility", "stan", "rcompat")
#: the application layer: nothing inside a subpackage uses it
TOP_ONLY = {"cli", "demo", "analysis", "plots", "reporting"}

#: which other parts each part may import (absolute or relative). ``risk`` is the bottom layer.
ALLOWED = {
    "risk": set(),
    "utility": {"synthesis"},  # the CART propensity model uses the rpart-compatible tree
    "stan": set(),
    "synthesis": {"risk"},
    "weighted": {"risk", "utility", "stan"},
    "survey": {"risk", "utility", "stan"},
    "categorical": {"risk", "utility", "stan"},
    "rcompat": {"risk", "synthesis"},
}


def _imported_modules(path: Path) -> set[str]:
    """Absolute idrisk module names imported anywhere in ``path`` (incl. function bodies)."""
    rel = path.relative_to(PKG.parent).with_suffix("")
    package = list(rel.parts[:-1]) if rel.name != "__init__" else list(rel.parts[:-1])
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            names.add(mod)
            names.update(f"{mod}.{a.name}" for a in node.names)  # `from idrisk import cli`
    return {n for n in names if n == "idrisk" or n.startswith("idrisk.")}


def _part(module: str) -> str | None:
    bits = module.split(".")
    return bits[1] if len(bits) > 1 else None


@pytest.mark.parametrize("part", PARTS)
def test_imports_run_one_way(part):
    folder = PKG / part
    if not folder.is_dir():
        pytest.fail(f"idrisk/{part}/ is missing")
    bad = []
    for path in sorted(folder.rglob("*.py")):
        for mod in _imported_modules(path):
            other = _part(mod)
            if other is None or other == part or other.startswith("_"):
                continue
            if other in TOP_ONLY or (other in PARTS and other not in ALLOWED[part]):
                bad.append(f"{path.relative_to(PKG.parent)} imports {mod}")
    assert not bad, "imports against the layering rule:\n" + "\n".join(bad)


def test_layering_rule_catches_an_upward_import(tmp_path):
    """The checker itself: a risk module importing a synthesizer is reported."""
    fake = PKG / "risk" / "_layout_probe.py"
    fake.write_text("from idrisk.synthesis import syn\nfrom ..cli import main\n")
    try:
        found = _imported_modules(fake)
    finally:
        fake.unlink()
    assert "idrisk.synthesis" in found and "idrisk.cli" in found


def test_every_part_declares_its_api_and_source():
    for part in PARTS:
        mod = importlib.import_module(f"idrisk.{part}")
        assert isinstance(getattr(mod, "__all__", None), list), part
        assert mod.__doc__ and ("paper" in mod.__doc__ or "spec" in mod.__doc__ or part in (
            "stan", "rcompat")), part
        for name in mod.__all__:
            getattr(mod, name)  # every advertised name resolves


def test_public_names_from_the_top_level():
    import idrisk

    for name in idrisk.__all__:
        assert getattr(idrisk, name) is not None, name
    assert idrisk.syn is importlib.import_module("idrisk.synthesis").syn
    assert idrisk.StanProgram is importlib.import_module("idrisk.stan").StanProgram


def test_import_idrisk_stays_light():
    """``import idrisk`` loads the risk engine only: no SciPy, statsmodels, matplotlib, Stan."""
    code = (
        "import sys, idrisk; heavy = [m for m in ('scipy', 'statsmodels', 'matplotlib', 'stan',"
        " 'cmdstanpy', 'dask', 'rpy2', 'idrisk.synthesis', 'idrisk.weighted') if m in sys.modules];"
        " print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _module_graph() -> dict[str, set[str]]:
    """idrisk module -> the idrisk modules it imports (any depth of the file, incl. functions)."""
    graph: dict[str, set[str]] = {}
    modules = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        modules[name] = path
    for name, path in modules.items():
        targets = set()
        for mod in _imported_modules(path):
            # `from idrisk.x import y`: y may be a module or a name in x
            targets.add(mod if mod in modules else mod.rsplit(".", 1)[0])
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def test_no_import_cycle_between_modules():
    """Module-level cycles (a package's ``__init__`` importing its own modules aside), e.g. the
    old ``idrisk.r`` <-> ``idrisk.rcompat.bridge``."""
    graph = _module_graph()
    cycles = []
    for a, targets in graph.items():
        for b in targets:
            if a in graph.get(b, set()) and not (
                b.startswith(a + ".") or a.startswith(b + ".")
            ):
                cycles.append(tuple(sorted((a, b))))
    assert not cycles, f"import cycles: {sorted(set(cycles))}"
    assert "idrisk.rcompat.bridge" not in graph["idrisk.r"]


def test_no_module_named_like_a_function_it_exports():
    """``idrisk.report`` once held ``report`` and needed a callable-module hack."""
    clashes = []
    for path in sorted(PKG.rglob("*.py")):
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text())
        defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        if path.stem in defined:
            clashes.append(str(path.relative_to(PKG.parent)))
    assert not clashes, clashes


#: modules allowed over the limit, each with the reason (issue 28.7)
LARGE_MODULES: dict[str, str] = {}
MAX_LINES = 800


def test_no_module_is_a_big_room():
    """Big modules are split along their seams (synthpop's disclosure into R text, R factors,
    the tables and the R-shaped front end; the Stan backend into discovery, engines, the fit,
    diagnostics and the program; the report into figures, document and renderer)."""
    big = {}
    for path in sorted(PKG.rglob("*.py")):
        name = str(path.relative_to(PKG.parent))
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES and name not in LARGE_MODULES:
            big[name] = lines
    assert not big, f"modules over {MAX_LINES} lines: {big}"
