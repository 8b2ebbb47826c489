"""Stan programs run through cmdstanpy (when CmdStan is installed) or PyStan 3.

The programs themselves live in the repository's top-level ``stan/`` folder and ship in the
wheel as ``idrisk/stan_programs``; :class:`StanProgram` finds them by name. Used by the
risk-weighted (``shared/specs/risk-weighted-synthesis.md``), survey
(``shared/specs/survey-tables.md``) and categorical (``shared/specs/categorical-synthesis.md``)
synthesizers.
"""

from .backend import (
    BACKENDS,
    StanBackendError,
    StanConvergenceWarning,
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
