"""Stan programs run through cmdstanpy (when CmdStan is installed) or PyStan 3.

The programs ship inside the package (``idrisk/stan_programs``; :func:`program_path` gives a
program's file) and :class:`StanProgram` finds them by name. Used by the risk-weighted, survey
and categorical synthesizers.
"""

from ..exceptions import StanBackendError, StanConvergenceWarning
from .backend import (
    BACKENDS,
    StanFit,
    StanProgram,
    available_backends,
    cmdstan_path,
    cmdstan_version,
    convergence_table,
    ess_bulk,
    program_path,
    rhat,
    select_backend,
)

__all__ = [
    "BACKENDS",
    "StanBackendError",
    "StanConvergenceWarning",
    "StanFit",
    "StanProgram",
    "available_backends",
    "cmdstan_path",
    "cmdstan_version",
    "convergence_table",
    "ess_bulk",
    "program_path",
    "rhat",
    "select_backend",
]
