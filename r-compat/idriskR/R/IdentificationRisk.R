.r_names <- c("s_vector", "exp.risk_vector", "true.rate_vector", "false.rate_vector",
              "c_vector", "T_vector", "K_vector", "F_vector", "Risk_vector")
.r_matrices <- c("c_vector", "T_vector", "K_vector", "F_vector", "Risk_vector")

#' Identification risk of partially synthetic data, computed by Python's idrisk
#'
#' A drop-in replacement for \code{IdentificationRiskCalculation::IdentificationRisk()}
#' (version 1.0.0): same arguments, same result list (names, storage types, dimensions) and
#' the same printed lines, computed by the Python package \pkg{idrisk} through
#' \pkg{reticulate}. Set \env{RETICULATE_PYTHON} to a Python where idrisk is installed.
#'
#' Target record \eqn{i} matches synthetic row \eqn{k} when every categorical known and
#' synthesized variable is equal and every continuous one lies strictly inside
#' \eqn{(x - d, x + d)}, with \eqn{d = r x} (\code{percentage = TRUE}) or \eqn{d = r}.
#' Factor and character columns are categorical, all other columns continuous (every column
#' is matched exactly when \code{r} is \code{NULL}). A radius vector is handed out to the
#' continuous known/syn columns in the column order of \code{origdata}. R's quirks are kept:
#' a continuous \code{NA} matches anything; with a percentage radius a value \eqn{\le 0}
#' never matches; \code{euclideanDist = TRUE} still checks each variable on its own interval,
#' with half-widths \eqn{d_K = \sqrt{\sum_{known} d^2}} and
#' \eqn{d_S = \sqrt{d_K + \sum_{syn} d^2}}.
#'
#' The original signals no R warnings. idrisk's own checks of the data (for example records
#' that can never be matched, or many records without any match) are signalled as R warnings
#' whose text starts with their Python category (\code{"RiskInputWarning: ..."}); they never
#' change the result or the printed lines.
#'
#' @param origdata data frame of the confidential data (n rows).
#' @param syndata list of m synthetic data frames (row i is the synthetic version of record
#'   i), or a single data frame.
#' @param known character vector: names of the variables the intruder knows.
#' @param syn character vector: names of the synthesized variables.
#' @param r radius for the continuous variables: \code{NULL} (every variable matched exactly;
#'   a message says so), one number (used for every continuous variable; prints two
#'   \code{"Warning: ..."} lines as the original does), or one number per continuous known/syn
#'   column in the column order of \code{origdata} (a longer vector prints two
#'   \code{"Warning: ..."} lines and its extra entries are ignored; a shorter one prints an
#'   \code{"Error: ..."} line and \code{NULL} is returned).
#' @param percentage \code{TRUE}: the radius is \code{r} times the confidential value;
#'   \code{FALSE}: the radius is \code{r}.
#' @param euclideanDist \code{TRUE}: the original's combined half-widths (see Details).
#' @return A list with \code{s_vector}, \code{exp.risk_vector}, \code{true.rate_vector},
#'   \code{false.rate_vector} (double vectors of length m; \code{false.rate_vector} is
#'   \code{NaN} where \code{s} is 0) and \code{c_vector}, \code{T_vector}, \code{K_vector},
#'   \code{F_vector}, \code{Risk_vector} (n x m double matrices without dimnames); or
#'   \code{NULL}, after printing an \code{"Error: ..."} line, when \code{r} is too short.
#' @seealso \code{\link{to_pandas}}, \code{\link{idrisk_available}}
#' @examples
#' orig <- data.frame(Sex = factor(c("F", "M", "F")), Income = c(10, 30, 11))
#' syn1 <- data.frame(Sex = factor(c("F", "M", "F")), Income = c(10.5, 29, 50))
#' if (idrisk_available()) {
#'   res <- IdentificationRisk(orig, list(syn1), known = "Sex", syn = "Income", r = 0.1)
#'   res$c_vector
#'   mean(res$exp.risk_vector)
#' }
#' @export
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
