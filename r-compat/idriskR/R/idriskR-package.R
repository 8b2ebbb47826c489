#' idriskR: IdentificationRisk() from R, computed by the Python package idrisk
#'
#' \code{\link{IdentificationRisk}} has the signature, result list and printed lines of
#' \code{IdentificationRiskCalculation::IdentificationRisk()} (version 1.0.0) and is computed
#' by the Python package \pkg{idrisk} through \pkg{reticulate}: point \env{RETICULATE_PYTHON}
#' at a Python where idrisk is installed (\code{pip install idrisk}), then call it as before.
#' \code{\link{to_pandas}} converts a data frame column by column, keeping factor labels,
#' level order and every \code{NA}; \code{\link{idrisk_available}} tells whether idrisk can be
#' imported.
#'
#' @keywords internal
"_PACKAGE"
