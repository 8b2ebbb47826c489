"""Lazy attribute access for package namespaces (PEP 562), so ``import idrisk`` stays quick."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module


def lazy_attributes(
    package: str, namespace: dict, names: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """Return ``(__getattr__, __dir__)`` for ``package`` that import ``names`` on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    namespace : dict
        The package's ``globals()``; a resolved name is cached there.
    names : mapping
        Public name -> module (relative to ``package``, e.g. ``".pmse"``) that defines it.
    """

    def __getattr__(name: str):
        if name in names:
            value = getattr(import_module(names[name], package), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    return __getattr__, __dir__
