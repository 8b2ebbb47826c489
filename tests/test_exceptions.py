"""Every warning and error class of idrisk lives in :mod:`idrisk.exceptions` (issue 28.6)."""

from __future__ import annotations

import ast
import builtins
import importlib
from pathlib import Path

import idrisk.exceptions as exc

PKG = Path(__file__).resolve().parents[1] / "idrisk"

_BUILTIN_EXCEPTIONS = {n for n in dir(builtins) if n.endswith(("Error", "Warning", "Exception"))}


def _exception_classes(tree: ast.Module, known: set[str]) -> list[str]:
    """Class definitions whose bases are exceptions (builtin ones or ``known`` idrisk ones)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = {b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute)
                 else "" for b in node.bases}
        if bases & (_BUILTIN_EXCEPTIONS | known):
            found.append(node.name)
    return found


def test_every_warning_and_error_class_is_defined_in_idrisk_exceptions():
    known = set(exc.__all__)
    elsewhere = []
    for path in sorted(PKG.rglob("*.py")):
        if path == PKG / "exceptions.py":
            continue
        for name in _exception_classes(ast.parse(path.read_text()), known):
            elsewhere.append(f"{path.relative_to(PKG.parent)}: {name}")
    assert not elsewhere, "define these in idrisk/exceptions.py:\n" + "\n".join(elsewhere)


def test_the_checker_sees_a_warning_class():
    tree = ast.parse("class Odd(UserWarning):\n    pass\nclass Sub(RadiusWarning):\n    pass\n")
    assert _exception_classes(tree, {"RadiusWarning"}) == ["Odd", "Sub"]


def test_exceptions_module_lists_all_its_classes():
    defined = {n for n, v in vars(exc).items() if isinstance(v, type)
               and issubclass(v, BaseException) and v.__module__ == exc.__name__}
    assert defined == set(exc.__all__)
    assert issubclass(exc.NotFittedError, ValueError)
    assert issubclass(exc.NotFittedError, AttributeError)


def test_public_reexports_are_the_same_objects():
    """Where the public API names a class (``idrisk.risk.RadiusWarning``), it is this one."""
    for module in ("idrisk", "idrisk.risk", "idrisk.r", "idrisk.rcompat", "idrisk.stan",
                   "idrisk.categorical"):
        mod = importlib.import_module(module)
        for name in mod.__all__:
            value = getattr(mod, name)
            if isinstance(value, type) and issubclass(value, BaseException):
                assert value is getattr(exc, name), f"{module}.{name}"
