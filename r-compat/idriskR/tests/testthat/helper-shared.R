# Locate ../shared (fixtures) : $IDRISK_SHARED, else <repo>/../shared where <repo> is
# $IDRISK_REPO or four levels above tests/testthat.
shared_dir <- function() {
  env <- Sys.getenv("IDRISK_SHARED", "")
  if (nzchar(env)) return(env)
  repo <- Sys.getenv("IDRISK_REPO", "")
  if (!nzchar(repo)) repo <- file.path(getwd(), "..", "..", "..", "..")
  normalizePath(file.path(repo, "..", "shared"), mustWork = FALSE)
}

fixture_root <- function() {
  root <- file.path(shared_dir(), "fixtures", "identification_risk")
  if (!dir.exists(root)) skip(paste("identification_risk fixtures not found at", root,
                                    "(set IDRISK_SHARED)"))
  root
}

skip_if_no_idrisk <- function() {
  if (!idriskR::idrisk_available())
    skip("Python package idrisk not importable by reticulate (set RETICULATE_PYTHON)")
}

read_typed <- function(path, types) {
  classes <- vapply(types, function(t) switch(t, factor = "factor", character = "character",
                                              integer = "integer", double = "numeric"), "")
  utils::read.csv(path, colClasses = classes, na.strings = "NA", stringsAsFactors = FALSE,
                  check.names = FALSE)
}

read_case <- function(dir) {
  args <- jsonlite::fromJSON(file.path(dir, "args.json"), simplifyVector = FALSE)
  types <- unlist(args$column_types)
  orig <- read_typed(file.path(dir, "orig.csv"), types)
  syn <- lapply(seq_len(args$m), function(j) read_typed(file.path(dir, sprintf("syn_%d.csv", j)),
                                                         types))
  expected <- jsonlite::fromJSON(file.path(dir, "expected.json"), simplifyVector = FALSE)
  list(orig = orig, syn = syn, args = args, expected = expected)
}

num <- function(v) if (is.null(v)) NA_real_ else if (identical(v, "NaN")) NaN else as.double(v)

expected_value <- function(expected, key) {
  x <- expected[[key]]
  if (key %in% c("c_vector", "T_vector", "K_vector", "F_vector", "Risk_vector")) {
    rows <- lapply(x, function(row) vapply(row, num, 0))
    m <- length(rows[[1]])
    matrix(unlist(rows), nrow = length(rows), ncol = m, byrow = TRUE)
  } else {
    vapply(x, num, 0)
  }
}

run_captured <- function(expr) {
  msgs <- character()
  warns <- character()
  value <- NULL
  out <- utils::capture.output(
    value <- withCallingHandlers(expr, message = function(m) {
      msgs <<- c(msgs, sub("\n$", "", conditionMessage(m)))
      invokeRestart("muffleMessage")
    }, warning = function(w) {
      warns <<- c(warns, conditionMessage(w))
      invokeRestart("muffleWarning")
    }),
    type = "output")
  list(value = value, output = out, messages = msgs, warnings = warns)
}
