# Conversion of R data frames to pandas, column by column, so that factor labels and level
# order, character vectors, integers, logicals and every NA arrive intact (reticulate's own
# data.frame conversion is not relied upon).

.bridge <- function() {
  reticulate::import("idrisk.rcompat.bridge", convert = FALSE)
}

.column_spec <- function(x, name) {
  na <- as.list(is.na(x))
  if (is.factor(x)) {
    codes <- as.integer(x)
    codes[is.na(codes)] <- 0L
    return(list(kind = "factor", values = as.list(codes),
                na = na, levels = as.list(levels(x)), ordered = is.ordered(x)))
  }
  if (!is.null(attr(x, "class")) || !is.null(dim(x))) {
    stop(sprintf("column '%s': class %s is not supported; use factor, character, logical, integer or double",
                 name, paste(class(x), collapse = "/")), call. = FALSE)
  }
  if (is.character(x)) {
    vals <- x
    vals[is.na(vals)] <- ""
    return(list(kind = "character", values = as.list(vals), na = na))
  }
  if (is.logical(x)) {
    vals <- x
    vals[is.na(vals)] <- FALSE
    return(list(kind = "logical", values = as.list(vals), na = na))
  }
  if (is.integer(x)) {
    vals <- x
    vals[is.na(vals)] <- 0L
    return(list(kind = "integer", values = as.list(vals), na = na))
  }
  if (is.double(x)) {
    # plain Python lists throughout: reticulate 1.28 cannot exchange arrays with NumPy 2
    vals <- x
    vals[is.na(vals)] <- 0
    return(list(kind = "double", values = as.list(vals), na = na))
  }
  stop(sprintf("column '%s': type %s is not supported", name, typeof(x)), call. = FALSE)
}

#' Convert a data frame to a pandas DataFrame
#'
#' The data frame is sent to Python column by column, so that nothing depends on
#' \pkg{reticulate}'s own data-frame conversion: factors become pandas categoricals with
#' their labels and level order (ordered factors stay ordered), character vectors pandas
#' strings, integers \code{int32} (\code{Int32} when they hold \code{NA}), logicals
#' \code{bool} (\code{boolean} with \code{NA}), doubles \code{float64}; \code{NA} is kept in
#' every type. Other column classes (dates, matrices) are refused with an error naming the
#' column.
#'
#' @param df a data frame.
#' @return A \pkg{reticulate} reference to a pandas DataFrame (not converted back to R).
#' @examples
#' if (idrisk_available()) {
#'   p <- to_pandas(data.frame(K = factor(c("b", NA, "a")), X = c(1.5, NA, 3)))
#'   print(p)
#' }
#' @export
to_pandas <- function(df) {
  if (!is.data.frame(df)) stop("expected a data.frame, got ", class(df)[1], call. = FALSE)
  nms <- names(df)
  cols <- lapply(seq_along(df), function(j) .column_spec(df[[j]], nms[j]))
  .bridge()$frame_from_columns(as.list(nms), cols, nrow(df))
}

#' Is idrisk importable from the Python that reticulate uses?
#'
#' @return \code{TRUE} when the Python module \code{idrisk.rcompat.bridge} can be imported
#'   by \pkg{reticulate} (set \env{RETICULATE_PYTHON} to choose the Python), else
#'   \code{FALSE}.
#' @examples
#' idrisk_available()
#' @export
idrisk_available <- function() {
  reticulate::py_module_available("idrisk.rcompat.bridge")
}
