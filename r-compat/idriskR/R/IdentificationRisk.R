.r_names <- c("s_vector", "exp.risk_vector", "true.rate_vector", "false.rate_vector",
              "c_vector", "T_vector", "K_vector", "F_vector", "Risk_vector")
.r_matrices <- c("c_vector", "T_vector", "K_vector", "F_vector", "Risk_vector")

#' Identification risk of partially synthetic data (computed by Python's idrisk)
#'
#' Same signature, result and printed lines as IdentificationRiskCalculation::IdentificationRisk.
#' @param origdata data frame of the confidential data (n rows)
#' @param syndata list of m synthetic data frames (row i = synthetic version of record i)
#' @param known names of the variables the intruder knows
#' @param syn names of the synthesized variables
#' @param r radius for continuous variables: NULL, one number, or one per continuous
#'   known/syn column in the column order of origdata
#' @param percentage radius is r * value (TRUE) or r (FALSE)
#' @param euclideanDist R's euclideanDist rule (see idrisk's documentation)
#' @return a list with s_vector, exp.risk_vector, true.rate_vector, false.rate_vector (length m)
#'   and c_vector, T_vector, K_vector, F_vector, Risk_vector (n x m double matrices); NULL
#'   (after printing an Error line) when r is too short.
IdentificationRisk <- function(origdata, syndata, known, syn, r = NULL, percentage = TRUE,
                               euclideanDist = FALSE) {
  if (is.data.frame(syndata)) syndata <- list(syndata)
  bridge <- .bridge()
  orig_py <- to_pandas(origdata)
  syn_py <- lapply(syndata, to_pandas)
  out <- bridge$identification_risk_for_r(
    orig_py, syn_py, as.list(as.character(known)), as.list(as.character(syn)),
    if (is.null(r)) NULL else as.list(as.double(r)),
    isTRUE(percentage), isTRUE(euclideanDist))
  .chr <- function(x) as.character(unlist(reticulate::py_to_r(x)))
  for (msg in .chr(out$get("messages"))) message(msg)
  for (line in .chr(out$get("printed"))) print(line)
  for (w in .chr(out$get("warnings"))) warning(w, call. = FALSE)
  res <- out$get("result")
  if (inherits(res, "python.builtin.NoneType")) return(NULL)
  n <- as.integer(reticulate::py_to_r(out$get("n")))
  m <- as.integer(reticulate::py_to_r(out$get("m")))
  value <- lapply(.r_names, function(key) {
    v <- as.double(reticulate::py_to_r(res$get(key)))
    if (key %in% .r_matrices) matrix(v, nrow = n, ncol = m) else v
  })
  names(value) <- .r_names
  value
}
