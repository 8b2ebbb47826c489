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

#' Convert a data frame to a pandas DataFrame (Python object, not converted back)
#'
#' Factors become pandas categoricals with their labels and level order, character vectors
#' pandas strings, integers int32 (Int32 when they hold NA), logicals bool (boolean with NA),
#' doubles float64; NA is kept in every type.
#' @param df a data.frame
#' @return a reticulate reference to a pandas DataFrame
to_pandas <- function(df) {
  if (!is.data.frame(df)) stop("expected a data.frame, got ", class(df)[1], call. = FALSE)
  nms <- names(df)
  cols <- lapply(seq_along(df), function(j) .column_spec(df[[j]], nms[j]))
  .bridge()$frame_from_columns(as.list(nms), cols, nrow(df))
}

#' Is idrisk importable from the Python that reticulate uses?
idrisk_available <- function() {
  reticulate::py_module_available("idrisk.rcompat.bridge")
}
