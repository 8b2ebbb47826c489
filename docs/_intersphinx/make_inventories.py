"""Write the intersphinx inventories the docs link through, from the installed packages.

The docs are built without network, so ``docs/conf.py`` reads its intersphinx inventories from
the ``*.inv`` files in this folder instead of fetching them. This script writes them: for each
project it walks the public names of the installed package (and the methods and properties of
its public classes) and writes a Sphinx version-2 inventory whose URIs follow the project's
documentation layout (``reference/api/pandas.DataFrame.merge.html`` for pandas, and so on).
Names are also entered under the path where Python defines them (``pandas.core.frame.DataFrame``,
at priority -1, hidden from search), because that is the name autodoc writes for type hints.

Run it after upgrading a dependency, from the repository root::

    python docs/_intersphinx/make_inventories.py

and commit the ``*.inv`` files it writes. It needs only the standard library and the packages.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import sys
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: project -> documentation root (the URL intersphinx_mapping gives with the file)
URLS = {
    "python": "https://docs.python.org/3/",
    "numpy": "https://numpy.org/doc/stable/",
    "pandas": "https://pandas.pydata.org/docs/",
    "scipy": "https://docs.scipy.org/doc/scipy/",
    "matplotlib": "https://matplotlib.org/stable/",
    "statsmodels": "https://www.statsmodels.org/stable/",
    "cmdstanpy": "https://mc-stan.org/cmdstanpy/",
}

Entry = tuple[str, str, int, str, str]  # name, domain:role, priority, uri, shown text


def _public(names: Iterable[str]) -> list[str]:
    return sorted(n for n in names if not n.startswith("_"))


def _exports(module: object) -> list[str]:
    names = getattr(module, "__all__", None)
    return _public(names if names is not None else dir(module))


def _role(obj: object) -> str:
    if inspect.ismodule(obj):
        return "py:module"
    if inspect.isclass(obj):
        return "py:exception" if issubclass(obj, BaseException) else "py:class"
    if inspect.isroutine(obj) or callable(obj) and not hasattr(obj, "__array__"):
        return "py:function"
    return "py:data"


def _real_path(obj: object) -> str | None:
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname:
        return f"{module}.{qualname}"
    return None


def _members(cls: type) -> list[tuple[str, str]]:
    """(name, role) of a class's public methods and properties, its own and inherited."""
    out = []
    for name in _public(dir(cls)):
        try:
            attr = inspect.getattr_static(cls, name)
        except AttributeError:
            continue
        if isinstance(attr, property):
            out.append((name, "py:property"))
        elif isinstance(attr, (classmethod, staticmethod)) or inspect.isroutine(attr):
            out.append((name, "py:method"))
        elif inspect.ismethoddescriptor(attr) or inspect.isdatadescriptor(attr):
            out.append((name, "py:attribute"))
    return out


class Inventory:
    """Entries of one project; the first entry for a (name, role) wins."""

    def __init__(self, project: str, version: str) -> None:
        self.project, self.version = project, version
        self.entries: dict[tuple[str, str], Entry] = {}

    def add(self, name: str, role: str, uri: str, priority: int = 1, text: str = "-") -> None:
        self.entries.setdefault((name, role), (name, role, priority, uri, text))

    def add_object(
        self,
        public: str,
        obj: object,
        uri: str,
        member_uri: Callable[[str, str], str] | None = None,
        alias_prefixes: tuple[str, ...] = (),
    ) -> None:
        """Enter ``obj`` as ``public`` (and its real path), with a class's members."""
        role = _role(obj)
        self.add(public, role, uri)
        real = _real_path(obj)
        if real and real != public and real.startswith(alias_prefixes or (real,)):
            self.add(real, role, uri, priority=-1)
        if inspect.isclass(obj) and member_uri is not None:
            for name, mrole in _members(obj):
                muri = member_uri(public, name)
                self.add(f"{public}.{name}", mrole, muri)
                if real and real != public and real.startswith(alias_prefixes or (real,)):
                    self.add(f"{real}.{name}", mrole, muri, priority=-1)

    def write(self, path: Path) -> int:
        header = (
            "# Sphinx inventory version 2\n"
            f"# Project: {self.project}\n"
            f"# Version: {self.version}\n"
            "# The remainder of this file is compressed using zlib.\n"
        ).encode()
        lines = []
        for name, role, priority, uri, text in sorted(self.entries.values()):
            if uri.endswith("#" + name):
                uri = uri[: -len(name)] + "$"
            lines.append(f"{name} {role} {priority} {uri} {text}\n")
        path.write_bytes(header + zlib.compress("".join(lines).encode(), 9))
        return len(lines)


def _walk(
    inv: Inventory,
    modules: Iterable[str],
    uri: Callable[[str, object], str],
    member_uri: Callable[[str, str], str] | None,
    module_uri: Callable[[str], str],
    alias_prefixes: tuple[str, ...] = (),
) -> None:
    for modname in modules:
        try:
            module = importlib.import_module(modname)
        except ImportError:
            continue
        inv.add(modname, "py:module", module_uri(modname))
        for name in _exports(module):
            try:
                obj = getattr(module, name)
            except AttributeError:
                continue
            if inspect.ismodule(obj):
                continue
            full = f"{modname}.{name}"
            inv.add_object(full, obj, uri(full, obj), member_uri, alias_prefixes)


# ---------------------------------------------------------------- python

STDLIB = [
    "abc", "argparse", "collections", "collections.abc", "concurrent.futures", "contextlib",
    "copy", "csv", "dataclasses", "datetime", "decimal", "enum", "fractions", "functools",
    "importlib", "importlib.metadata", "importlib.resources", "inspect", "io", "itertools",
    "json", "logging", "math", "numbers", "operator", "os", "os.path", "pathlib", "pickle",
    "random", "re", "shutil", "statistics", "string", "subprocess", "sys", "tempfile",
    "textwrap", "threading", "time", "types", "typing", "warnings", "zlib",
]
STDTYPES = {
    "str", "list", "tuple", "dict", "set", "frozenset", "bytes", "bytearray", "range",
    "memoryview", "slice",
}


def python_inventory() -> Inventory:
    base = "library/"
    inv = Inventory("Python", f"{sys.version_info.major}.{sys.version_info.minor}")
    # the label numpydoc links ``bool`` to
    inv.add("bltin-boolean-values", "std:label", f"{base}stdtypes.html#boolean-values", -1,
            "Boolean Values")
    for name in ("None", "True", "False", "Ellipsis", "NotImplemented"):
        inv.add(name, "py:data", f"{base}constants.html#{name}")
    for name in _public(dir(builtins)):
        obj = getattr(builtins, name)
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            inv.add(name, "py:exception", f"{base}exceptions.html#{name}")
        elif inspect.isclass(obj):
            page = "stdtypes" if name in STDTYPES else "functions"
            inv.add(name, "py:class", f"{base}{page}.html#{name}")
            for member, role in _members(obj):
                inv.add(f"{name}.{member}", role, f"{base}stdtypes.html#{name}.{member}")
        elif callable(obj):
            inv.add(name, "py:function", f"{base}functions.html#{name}")
    for modname in STDLIB:
        page = f"{base}{modname}.html"
        _walk(
            inv,
            [modname],
            uri=lambda full, obj, page=page: f"{page}#{full}",
            member_uri=lambda cls, name, page=page: f"{page}#{cls}.{name}",
            module_uri=lambda mod, page=page: f"{page}#module-{mod}",
            alias_prefixes=(modname.split(".")[0] + ".",),
        )
    return inv


# ---------------------------------------------------------------- numpy


def numpy_inventory() -> Inventory:
    import numpy as np

    inv = Inventory("NumPy", np.__version__)
    gen = "reference/generated/"
    # the glossary terms numpydoc links ``array_like`` and ``array-like`` to
    for term in ("array_like", "array-like"):
        inv.add(term, "std:term", "glossary.html#term-array_like", -1, "array_like")

    def uri(full: str, obj: object) -> str:
        if full.startswith("numpy.typing."):
            return f"reference/typing.html#{full}"
        if full in ("numpy.random.Generator", "numpy.random.default_rng"):
            return f"reference/random/generator.html#{full}"
        if full == "numpy.random.RandomState":
            return f"reference/random/legacy.html#{full}"
        if full.startswith("numpy.random."):
            return f"reference/random/generated/{full}.html#{full}"
        return f"{gen}{full}.html#{full}"

    def member_uri(cls: str, name: str) -> str:
        if cls.startswith("numpy.random."):
            return f"reference/random/generated/{cls}.{name}.html#{cls}.{name}"
        return f"{gen}{cls}.{name}.html#{cls}.{name}"

    pages = {
        "numpy": "reference/index.html",
        "numpy.random": "reference/random/index.html",
        "numpy.linalg": "reference/routines.linalg.html",
        "numpy.typing": "reference/typing.html",
        "numpy.fft": "reference/routines.fft.html",
    }
    _walk(
        inv,
        pages,
        uri,
        member_uri,
        module_uri=lambda mod: f"{pages[mod]}#module-{mod}",
        alias_prefixes=("numpy.",),
    )
    return inv


# ---------------------------------------------------------------- pandas


def _one_page_per_object(
    inv: Inventory, modules: list[str], gen: str, module_uri: Callable[[str], str]
) -> Inventory:
    """The layout of autosummary sites: ``<gen><name>.html#<name>`` for objects and members."""
    _walk(
        inv,
        modules,
        uri=lambda full, obj: f"{gen}{full}.html#{full}",
        member_uri=lambda cls, name: f"{gen}{cls}.{name}.html#{cls}.{name}",
        module_uri=module_uri,
        alias_prefixes=(modules[0].split(".")[0] + ".",),
    )
    return inv


def pandas_inventory() -> Inventory:
    import pandas as pd

    return _one_page_per_object(
        Inventory("pandas", pd.__version__),
        ["pandas", "pandas.api.types", "pandas.errors", "pandas.arrays"],
        "reference/api/",
        lambda mod: f"reference/index.html#module-{mod}",
    )


# ---------------------------------------------------------------- scipy


def scipy_inventory() -> Inventory:
    import scipy

    subs = ["stats", "optimize", "special", "linalg", "sparse", "integrate", "interpolate",
            "spatial"]
    return _one_page_per_object(
        Inventory("SciPy", scipy.__version__),
        [f"scipy.{s}" for s in subs],
        "reference/generated/",
        lambda mod: f"reference/{mod.split('.', 1)[1]}.html#module-{mod}",
    )


# ---------------------------------------------------------------- matplotlib


def matplotlib_inventory() -> Inventory:
    import matplotlib

    inv = Inventory("Matplotlib", matplotlib.__version__)
    gen = "api/_as_gen/"

    def uri(full: str, obj: object) -> str:
        if full == "matplotlib.axes.Axes":
            return f"api/axes_api.html#{full}"
        if full in ("matplotlib.figure.Figure", "matplotlib.figure.SubFigure"):
            return f"api/figure_api.html#{full}"
        if full.startswith("matplotlib.pyplot.") or inspect.isclass(obj):
            return f"{gen}{full}.html#{full}"
        mod = full.rsplit(".", 1)[0]
        return f"api/{mod.split('.', 1)[1]}_api.html#{full}"

    def member_uri(cls: str, name: str) -> str:
        if cls == "matplotlib.axes.Axes":
            return f"{gen}{cls}.{name}.html#{cls}.{name}"
        if cls.startswith("matplotlib.figure."):
            return f"api/figure_api.html#{cls}.{name}"
        return f"{gen}{cls}.html#{cls}.{name}"

    _walk(
        inv,
        ["matplotlib.axes", "matplotlib.figure", "matplotlib.pyplot", "matplotlib.colors",
         "matplotlib.lines", "matplotlib.patches", "matplotlib.artist", "matplotlib.legend"],
        uri,
        member_uri,
        module_uri=lambda mod: f"api/{mod.split('.', 1)[1]}_api.html#module-{mod}",
        alias_prefixes=("matplotlib.",),
    )
    inv.add("matplotlib", "py:module", "api/index.html#module-matplotlib")
    return inv


# ---------------------------------------------------------------- statsmodels


def statsmodels_inventory() -> Inventory:
    import statsmodels
    import statsmodels.api as sm
    from statsmodels.miscmodels import ordinal_model

    inv = Inventory("statsmodels", statsmodels.__version__)
    gen = "generated/"
    seen: set[int] = set()
    for module, modname in ((ordinal_model, "statsmodels.miscmodels.ordinal_model"), (sm, None)):
        for name in _exports(module):
            obj = getattr(module, name, None)
            if obj is None or inspect.ismodule(obj):
                continue
            # statsmodels documents each name under the module that defines it
            real = _real_path(obj)
            if real is None or not real.startswith("statsmodels.") or id(obj) in seen:
                continue
            if modname is not None and not real.startswith(modname):
                continue
            seen.add(id(obj))
            inv.add_object(
                real,
                obj,
                f"{gen}{real}.html#{real}",
                lambda cls, m: f"{gen}{cls}.{m}.html#{cls}.{m}",
            )
            inv.add(f"statsmodels.api.{name}", _role(obj), f"{gen}{real}.html#{real}", -1)
    inv.add("statsmodels.api", "py:module", "api.html#module-statsmodels.api")
    return inv


# ---------------------------------------------------------------- cmdstanpy


def cmdstanpy_inventory() -> Inventory:
    import cmdstanpy

    inv = Inventory("CmdStanPy", cmdstanpy.__version__)
    _walk(
        inv,
        ["cmdstanpy"],
        uri=lambda full, obj: f"api.html#{full}",
        member_uri=lambda cls, name: f"api.html#{cls}.{name}",
        module_uri=lambda mod: f"api.html#module-{mod}",
        alias_prefixes=("cmdstanpy.",),
    )
    return inv


BUILDERS = {
    "python": python_inventory,
    "numpy": numpy_inventory,
    "pandas": pandas_inventory,
    "scipy": scipy_inventory,
    "matplotlib": matplotlib_inventory,
    "statsmodels": statsmodels_inventory,
    "cmdstanpy": cmdstanpy_inventory,
}


def main(argv: list[str] | None = None) -> int:
    names = argv if argv else list(BUILDERS)
    for name in names:
        inv = BUILDERS[name]()
        count = inv.write(HERE / f"{name}.inv")
        print(f"{name}.inv: {count} entries ({inv.project} {inv.version})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
