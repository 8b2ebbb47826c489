# Replays every case of shared/fixtures/identification_risk through the stand-in and compares
# with what IdentificationRiskCalculation 1.0.0 recorded: result names, storage types and values
# (identical(), NaN positions included), print() lines, message() lines, NULL.
# Usage: Rscript check_fixtures.R <stand-in .R file> <fixture root> [case-name regex]
# Prints one line per differing case and, last, "cases <n> agree <k>".
args <- commandArgs(trailingOnly = TRUE)
env <- new.env()
sys.source(args[1], envir = env)
root <- args[2]
r_names <- c("s_vector", "exp.risk_vector", "true.rate_vector", "false.rate_vector",
             "c_vector", "T_vector", "K_vector", "F_vector", "Risk_vector")
num <- function(v) if (identical(v, "NaN")) NaN else as.double(v)
expected_value <- function(e, key) {
  x <- e[[key]]
  if (grepl("^(c|T|K|F|Risk)_vector$", key)) {
    rows <- lapply(x, function(row) vapply(row, num, 0))
    matrix(unlist(rows), nrow = length(rows), byrow = TRUE)
  } else vapply(x, num, 0)
}
read_typed <- function(path, types) {
  cls <- vapply(types, function(t) switch(t, factor = "factor", character = "character",
                                          integer = "integer", double = "numeric"), "")
  utils::read.csv(path, colClasses = cls, na.strings = "NA", stringsAsFactors = FALSE,
                  check.names = FALSE)
}
cases <- sort(list.dirs(root, full.names = FALSE, recursive = FALSE))
cases <- cases[file.exists(file.path(root, cases, "args.json"))]
if (length(args) >= 3) cases <- grep(args[3], cases, value = TRUE)
agree <- 0L
for (name in cases) {
  dir <- file.path(root, name)
  a <- jsonlite::fromJSON(file.path(dir, "args.json"), simplifyVector = FALSE)
  e <- jsonlite::fromJSON(file.path(dir, "expected.json"), simplifyVector = FALSE)
  types <- unlist(a$column_types)
  orig <- read_typed(file.path(dir, "orig.csv"), types)
  syns <- lapply(seq_len(a$m), function(j) read_typed(file.path(dir, sprintf("syn_%d.csv", j)),
                                                      types))
  r <- if (is.null(a$r)) NULL else as.double(unlist(a$r))
  msgs <- character()
  value <- NULL
  out <- utils::capture.output(
    value <- withCallingHandlers(
      env$IdentificationRisk(orig, syns, unlist(a$known), unlist(a$syn), r = r,
                             percentage = a$percentage, euclideanDist = a$euclideanDist),
      message = function(m) {
        msgs <<- c(msgs, sub("\n$", "", conditionMessage(m))); invokeRestart("muffleMessage")
      }),
    type = "output")
  problems <- character()
  if (!identical(out, as.character(unlist(e$stdout_lines)))) problems <- c(problems, "printed lines")
  if (!identical(msgs, as.character(unlist(e$message_lines)))) problems <- c(problems, "messages")
  if (isTRUE(e$returned_null)) {
    if (!is.null(value)) problems <- c(problems, "should return NULL")
  } else if (!identical(names(value), r_names)) {
    problems <- c(problems, "result names")
  } else {
    for (key in r_names) {
      if (!identical(value[[key]], expected_value(e, key))) problems <- c(problems, key)
    }
  }
  if (length(problems)) cat(name, ":", paste(problems, collapse = ", "), "\n") else agree <- agree + 1L
}
cat("cases", length(cases), "agree", agree, "\n")
