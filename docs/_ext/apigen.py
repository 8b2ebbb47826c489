"""Write the API reference's module pages from the package's ``__all__`` lists.

The reference documents ``idrisk`` and every public module directly below it (``idrisk.risk``,
``idrisk.r``, ...) that defines ``__all__``. Each name is documented once, on a page that
autosummary generates: names exported by ``idrisk`` itself are documented there
(``idrisk.identification_risk``), every other name in the first module that exports it.
A module page lists its names in one table; names documented elsewhere link to that page.

Nothing here is edited by hand: adding a name to an ``__all__`` adds its page on the next build.
The pages are written to ``docs/api/`` (ignored by git) once the configuration is read, before
autosummary reads them.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = "idrisk"
API_DIR = "api"

#: the reference's sections, in order: (title, modules); public modules not listed go last
SECTIONS: list[tuple[str, list[str]]] = [
    ("Top level", ["idrisk"]),
    ("Identification risk", ["idrisk.risk", "idrisk.analysis", "idrisk.datasets"]),
    ("Synthesis", ["idrisk.synthesis", "idrisk.weighted", "idrisk.categorical", "idrisk.stan"]),
    ("Survey tables", ["idrisk.survey"]),
    ("Utility and disclosure", ["idrisk.utility", "idrisk.disclosure"]),
    ("Report, plots and command line", ["idrisk.report", "idrisk.plots", "idrisk.cli"]),
    ("R", ["idrisk.r", "idrisk.rcompat"]),
    ("Errors and warnings", ["idrisk.exceptions"]),
]


@dataclass
class ModulePage:
    module: str
    #: (name, item): documented on this page; ``item`` is the object's path under ``module``
    own: list[tuple[str, str]] = field(default_factory=list)
    #: (name, documented name): documented on another page
    elsewhere: list[tuple[str, str]] = field(default_factory=list)


def public_modules(package: str = PACKAGE) -> list[str]:
    """``package`` and each public module directly below it that defines ``__all__``."""
    pkg = importlib.import_module(package)
    names = [package]
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        full = f"{package}.{info.name}"
        if hasattr(importlib.import_module(full), "__all__"):
            names.append(full)
    return names


def _identity(obj: object) -> object:
    """What makes two exports the same object (classes, functions and modules by identity)."""
    if inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj):
        return id(obj)
    return None  # data (strings, numbers, tuples): documented wherever it is exported


def _is_module(fullname: str) -> bool:
    try:
        return importlib.util.find_spec(fullname) is not None
    except (ImportError, ValueError):
        return False


def _export(module: object, name: str) -> object:
    """``module.name``; where a submodule of that name has replaced the attribute (importing
    ``idrisk.report`` sets ``idrisk.report`` to the module), the submodule's own ``name``."""
    obj = getattr(module, name)
    if inspect.ismodule(obj) and name in getattr(module, "__all__", ()):
        inner = getattr(obj, name, None)
        if inner is not None and not inspect.ismodule(inner):
            return inner
    return obj


def _real_path(obj: object) -> str:
    return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"


def plan(modules: list[str]) -> dict[str, ModulePage]:
    """Which page documents each exported name: the first module (in ``modules``) to export it.

    A name that is also a submodule's name (``idrisk.utility.ci_overlap``, the function and
    the module) is documented under the path where it is defined
    (``idrisk.utility.ci_overlap.ci_overlap``), since a page name can only mean one object.
    """
    canonical: dict[tuple[str, object], str] = {}
    pages = {m: ModulePage(m) for m in modules}
    for modname in modules:
        mod = importlib.import_module(modname)
        page = pages[modname]
        for name in mod.__all__:
            full = f"{modname}.{name}"
            obj = _export(mod, name)
            key = (name, _identity(obj))
            if key[1] is None:  # data: documented wherever it is exported
                page.own.append((name, name))
            elif key in canonical:
                page.elsewhere.append((name, canonical[key]))
            elif not _is_module(full):
                canonical[key] = full
                page.own.append((name, name))
            else:
                real = _real_path(obj)
                canonical[key] = real
                page.own.append((name, real.removeprefix(f"{modname}.")))
    return pages


def aliases(pages: dict[str, ModulePage]) -> dict[str, str]:
    """Other names of documented objects -> the name they are documented under.

    The names are the other exports (``idrisk.risk.identification_risk``) and where Python
    defines the object (``idrisk.risk.core.identification_risk``), which is the name docstrings
    and type hints often use.
    """
    out: dict[str, str] = {}
    for page in pages.values():
        mod = importlib.import_module(page.module)
        for name, item in page.own:
            full = f"{page.module}.{item}"
            obj = _export(mod, name)
            real = _real_path(obj)
            if inspect.isclass(obj) or inspect.isroutine(obj):
                if real != full and real.startswith(PACKAGE + "."):
                    out.setdefault(real, full)
            if item != name:
                out.setdefault(f"{page.module}.{name}", full)
        for name, target in page.elsewhere:
            out.setdefault(f"{page.module}.{name}", target)
    return out


def ordered_modules() -> list[tuple[str, list[str]]]:
    """The sections with the modules that exist, plus any public module not yet placed."""
    found = public_modules()
    placed: set[str] = set()
    sections = []
    for title, mods in SECTIONS:
        present = [m for m in mods if m in found]
        placed.update(present)
        if present:
            sections.append((title, present))
    rest = [m for m in found if m not in placed]
    if rest:
        sections.append(("Other modules", rest))
    return sections


def _first_line(modname: str) -> str:
    doc = inspect.getdoc(importlib.import_module(modname)) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def module_page(page: ModulePage) -> str:
    """The reST of one module's page: its docstring, then one autosummary table."""
    mod = page.module
    lines = [mod, "=" * len(mod), "", f".. automodule:: {mod}", ""]
    lines += [f".. currentmodule:: {mod}", ""]
    if page.own:
        lines += [".. autosummary::", "   :toctree: generated/", "   :nosignatures:", ""]
        lines += [f"   ~{item}" if item != name else f"   {name}" for name, item in page.own]
        lines.append("")
    if page.elsewhere:
        lines += ["Also exported here, documented with the module that exports it first:", ""]
        lines += [".. autosummary::", "   :nosignatures:", ""]
        lines += [f"   ~{target.removeprefix(mod + '.')}" for _, target in page.elsewhere]
        lines.append("")
    return "\n".join(lines)


def index_page(sections: list[tuple[str, list[str]]]) -> str:
    lines = [
        "API reference",
        "=============",
        "",
        "Every public name of idrisk: those of ``idrisk`` itself and those of each module in its",
        "``__all__``. The pages are generated from the docstrings.",
        "",
    ]
    for title, mods in sections:
        lines += [title, "-" * len(title), "", ".. list-table::", "   :widths: 30 70", ""]
        for mod in mods:
            lines += [f"   * - :mod:`{mod}`", f"     - {_first_line(mod)}"]
        lines += ["", ".. toctree::", "   :hidden:", ""]
        lines += [f"   {mod}" for mod in mods]
        lines.append("")
    return "\n".join(lines)


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def write_pages(srcdir: Path) -> dict[str, ModulePage]:
    """Write ``api/index.rst`` and one page per module; return the plan."""
    out = srcdir / API_DIR
    out.mkdir(exist_ok=True)
    sections = ordered_modules()
    pages = plan([m for _, mods in sections for m in mods])
    for page in pages.values():
        _write_if_changed(out / f"{page.module}.rst", module_page(page))
    _write_if_changed(out / "index.rst", index_page(sections))
    return pages


class Names:
    """Where each documented object's page is, under every name it goes by."""

    def __init__(self, pages: dict[str, ModulePage]) -> None:
        self.documented = {f"{p.module}.{item}" for p in pages.values() for _, item in p.own}
        self.aliases = aliases(pages)
        short: dict[str, set[str]] = {}
        for full in self.documented:
            short.setdefault(full.rsplit(".", 1)[1], set()).add(full)
        #: unqualified name -> its page, where one documented object has that name, or one
        #: of those with that name is exported by idrisk itself
        self.short = {}
        for key, fulls in short.items():
            top = [f for f in fulls if f.count(".") == 1]
            if len(fulls) == 1 or len(top) == 1:
                self.short[key] = top[0] if top else next(iter(fulls))

    def resolve(self, target: str) -> str | None:
        """The documented name that ``target`` means, or None."""
        if target in self.aliases:
            return self.aliases[target]
        head, _, tail = target.rpartition(".")
        while head:  # a member of an object known under another name
            if head in self.aliases:
                return f"{self.aliases[head]}.{target[len(head) + 1 :]}"
            head, _, _ = head.rpartition(".")
        if "." not in target:
            return self.short.get(target)
        first, _, rest = target.partition(".")  # Class.member
        if first in self.short:
            return f"{self.short[first]}.{rest}"
        return None

    def is_documented_class(self, cls: type) -> bool:
        real = f"{cls.__module__}.{cls.__qualname__}"
        return real in self.documented or real in self.aliases

    def type_aliases(self) -> dict[str, str]:
        """numpydoc's type aliases: each documented class's unqualified name -> its page."""
        out = {}
        for short, full in self.short.items():
            modname, _, name = full.rpartition(".")
            if inspect.isclass(getattr(importlib.import_module(modname), name, None)):
                out[short] = full
        return out


_NAMES: Names | None = None


def names() -> Names:
    global _NAMES
    if _NAMES is None:
        sections = ordered_modules()
        _NAMES = Names(plan([m for _, mods in sections for m in mods]))
    return _NAMES


def _private(cls: type) -> bool:
    parts = [*cls.__module__.split("."), cls.__name__]
    return cls.__module__.split(".")[0] == PACKAGE and any(p.startswith("_") for p in parts)


def public_bases(cls: type, known: Names) -> list[type]:
    """``cls`` if a reader can look it up, else its nearest bases that they can."""
    if not _private(cls) or known.is_documented_class(cls):
        return [cls]
    out: list[type] = []
    for base in cls.__bases__:
        out += [b for b in public_bases(base, known) if b not in out]
    return out


def _process_bases(app, name, obj, options, bases: list) -> None:  # noqa: ANN001
    known = names()
    new: list[type] = []
    for base in bases:
        new += [b for b in public_bases(base, known) if b not in new]
    bases[:] = new


def _defining_comment(name: str, obj: object) -> list[str] | None:
    """The ``#:`` comment above ``name = ...`` in the idrisk module that defines ``obj``."""
    from sphinx.pycode import ModuleAnalyzer

    for modname, module in sorted(sys.modules.items()):
        if not modname.startswith(PACKAGE) or getattr(module, name, None) is not obj:
            continue
        try:
            docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
        except Exception:  # noqa: BLE001 - no source (a compiled or built-in module)
            continue
        if ("", name) in docs:
            return [line for line in docs[("", name)] if line is not None]
    return None


def _data_docstring(app, what, name, obj, options, lines: list[str]) -> None:  # noqa: ANN001
    """A data export's own ``#:`` comment (never its type's docstring), then a short value."""
    if what != "data":
        return
    short = name.rsplit(".", 1)[1]
    comment = _defining_comment(short, obj)
    lines[:] = comment if comment is not None else []
    text = repr(obj)
    if len(text) <= 90 and "\n" not in text:
        lines += ["", f"Value: ``{text}``"]
    else:
        kind = type(obj)
        path = kind.__qualname__ if kind.__module__ == "builtins" else _real_path(kind)
        lines += ["", f"A :class:`{path}`."]


def _missing_reference(app, env, node, contnode):  # noqa: ANN001, ANN201
    """Resolve idrisk names written under another of their names, or unqualified."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    new = names().resolve(target)
    if new is None or new == target:
        return None
    py = env.get_domain("py")
    return py.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], new, node, contnode)


def _config_inited(app, config) -> None:  # noqa: ANN001 - Sphinx application, config
    write_pages(Path(app.srcdir))


def setup(app):  # noqa: ANN001, ANN201 - Sphinx extension entry point
    # before Sphinx looks for source files (so a first build finds the pages)
    app.connect("config-inited", _config_inited)
    app.connect("autodoc-process-bases", _process_bases)
    # before numpydoc (priority 500) formats the docstring
    app.connect("autodoc-process-docstring", _data_docstring, priority=400)
    app.connect("missing-reference", _missing_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
