"""Old module paths (idrisk 0.1's flat layout) kept importable, with a DeprecationWarning.

``import idrisk.rw_risk`` returns the module :mod:`idrisk.weighted.weights` itself, so code
written against the flat layout keeps working; the README's "Moved" table lists the same map.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: old module -> new module
MOVED = {
    "idrisk._prepare": "idrisk.risk._prepare",
    "idrisk.matching": "idrisk.risk.matching",
    "idrisk.result": "idrisk.risk.result",
    "idrisk.dask_risk": "idrisk.risk.dask_engine",
    "idrisk.cart": "idrisk.synthesis.rpart_tree",
    "idrisk.rng": "idrisk.synthesis.rng",
    "idrisk.smoothing": "idrisk.synthesis.smoothing",
    "idrisk.rw_risk": "idrisk.weighted.weights",
    "idrisk.rw_synthesizer": "idrisk.weighted.synthesizer",
    "idrisk.rw_diagnostics": "idrisk.weighted.diagnostics",
    "idrisk.rw_plots": "idrisk.weighted.plots",
    "idrisk.stan_backend": "idrisk.stan.backend",
    "idrisk.rpart_engine": "idrisk.rcompat.rpart",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def create_module(self, spec):
        warnings.warn(
            f"{self.old} moved to {self.new}; the old path will be removed in a later release",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(self.new)

    def exec_module(self, module) -> None:  # the new module is already executed
        sys.modules[self.old] = module


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Resolve the old flat module names to their new homes."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED:
            loader = _AliasLoader(fullname, MOVED[fullname])
            return importlib.util.spec_from_loader(fullname, loader)
        return None


def install() -> None:
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())
