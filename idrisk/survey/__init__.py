"""Private survey tables through synthetic microdata: FBS, FBP and the Laplace mechanism.

Implements Hu, Savitsky & Williams, "Private tabular survey data products through
synthetic microdata generation" (paper: Journal of Survey Statistics and Methodology, 2022):

* :func:`design_table` -- weighted counts and Hajek means by cells, margins and total, with
  Taylor-linearization or replicate standard errors equal to R's ``survey``;
* :func:`combine_tables` -- partial-synthesis combining rules over m synthetic datasets;
* the pseudo posterior mechanism (:func:`lipschitz_bounds`, :func:`alpha_weights`,
  :func:`find_alpha_scaling`, :func:`epsilon`);
* :class:`FBS` and :class:`FBP` -- alpha-weighted Stan synthesizers of the outcome and the
  survey weight;
* :func:`laplace_table` -- the Laplace-mechanism baseline with local sensitivities.
"""

from .design import (
    ALL,
    SurveyTable,
    combine_tables,
    design_table,
    half_sample_replicates,
    inclusion_probabilities,
    table_cells,
)
from .laplace import laplace_noise, laplace_sensitivities, laplace_table
from .mechanism import (
    alpha_weights,
    epsilon,
    find_alpha_scaling,
    lipschitz_bounds,
    weighted_lipschitz_bounds,
)
from .simulation import SDR_LIKE_CELLS, population_truth, pps_sample, simulate_population
from .synthesizers import FBP, FBS, SurveySynthesis, fbp_loglik, fbs_loglik

__all__ = [
    "ALL",
    "FBP",
    "FBS",
    "SDR_LIKE_CELLS",
    "SurveySynthesis",
    "SurveyTable",
    "alpha_weights",
    "combine_tables",
    "design_table",
    "epsilon",
    "fbp_loglik",
    "fbs_loglik",
    "find_alpha_scaling",
    "half_sample_replicates",
    "inclusion_probabilities",
    "laplace_noise",
    "laplace_sensitivities",
    "laplace_table",
    "lipschitz_bounds",
    "population_truth",
    "pps_sample",
    "simulate_population",
    "table_cells",
    "weighted_lipschitz_bounds",
]
