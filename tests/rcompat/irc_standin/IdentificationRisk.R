# A test stand-in for IdentificationRiskCalculation::IdentificationRisk (version 1.0.0), which
# cannot be shipped (no licence). Written for this project from the behaviour described in
# shared/specs/identification-risk.md -- not from the package's code -- and pinned to the
# package's recorded outputs (shared/fixtures/identification_risk) by
# tests/rcompat/test_irc_standin.py: same argument names, result names and storage (double
# n x m matrices without dimnames, double vectors of length m), same print()/message() lines,
# NULL after the Error line. Deliberately plain (a loop over records, candidates found by the
# categorical key) so that it is an independent check of idrisk, not a copy of it.
IdentificationRisk <- function(origdata, syndata, known, syn, r = NULL, percentage = TRUE,
                               euclideanDist = FALSE) {
  if (is.data.frame(syndata)) syndata <- list(syndata)
  # the synthetic columns are read by position (the spec): column k is origdata's column k,
  # whatever its name; a column read as continuous is coerced by as.double below (a factor
  # gives its codes, text NA)
  syndata <- lapply(syndata, function(s) {
    s <- s[seq_len(ncol(origdata))]
    names(s) <- names(origdata)
    s
  })
  n <- nrow(origdata)
  m <- length(syndata)
  used <- names(origdata)[names(origdata) %in% c(known, syn)]   # data-frame column order
  is_cat <- vapply(used, function(v) is.factor(origdata[[v]]) || is.character(origdata[[v]]),
                   TRUE)
  if (is.null(r)) {
    message("Assuming all synthetic and known vars to be categorical")
    cat_vars <- used
    cont_vars <- character(0)
  } else {
    cat_vars <- used[is_cat]
    cont_vars <- used[!is_cat]
    if (length(r) == 1L) {
      print("Warning: length of radius vector longer than number of synthetic and known variables.")
      print("Warning: only using the first 0 radii.")
      r <- rep(r, length(cont_vars))
    } else if (length(r) < length(cont_vars)) {
      print("Error: radius vector must be length 1 or number of continuous synthetic and known variables.")
      return(NULL)
    } else if (length(r) > length(cont_vars)) {
      print("Warning: length of radius vector longer than number of synthetic and known variables.")
      print(paste0("Warning: only using the first ", length(cont_vars), " radii."))
      r <- r[seq_along(cont_vars)]
    }
    names(r) <- cont_vars
  }
  # categorical values as labels; a label outside (levels of origdata) U (levels of the first
  # synthetic dataset) is NA, and NA never matches
  labels <- function(x) as.character(x)
  exact_text <- function(x) {   # numbers matched exactly (r = NULL): every double distinct
    out <- if (is.double(x)) sprintf("%.17g", x) else as.character(x)
    out[is.na(x)] <- NA
    out
  }
  allowed <- lapply(stats::setNames(cat_vars, cat_vars), function(v) {
    lv <- function(x) if (is.factor(x)) levels(x) else unique(as.character(x))
    union(lv(origdata[[v]]), lv(syndata[[1]][[v]]))
  })
  key_of <- function(df) {
    if (!length(cat_vars)) return(rep("*", n))   # one key for all (a list has no "" element)
    parts <- lapply(cat_vars, function(v) {
      x <- if (is.null(r) && !is_cat[[v]]) exact_text(df[[v]]) else labels(df[[v]])
      if (!is.null(r) || is_cat[[v]]) x[!(x %in% allowed[[v]])] <- NA
      x
    })
    bad <- Reduce(`|`, lapply(parts, is.na))
    key <- do.call(paste, c(lapply(parts, function(x) paste0(nchar(x), ":", x)), sep = "|"))
    key[bad] <- NA
    key
  }
  orig_key <- key_of(origdata)
  known_cont <- cont_vars[cont_vars %in% known]
  syn_cont <- cont_vars[!(cont_vars %in% known)]
  xo <- lapply(stats::setNames(cont_vars, cont_vars), function(v) as.double(origdata[[v]]))
  half <- function(v, i) if (isTRUE(percentage)) r[[v]] * xo[[v]][i] else r[[v]]
  width <- matrix(0, n, length(cont_vars), dimnames = list(NULL, cont_vars))
  for (i in seq_len(n)) {
    if (!length(cont_vars)) break
    d <- vapply(cont_vars, function(v) half(v, i), 0)
    if (isTRUE(euclideanDist)) {
      dk <- 0
      for (v in known_cont) dk <- dk + d[[v]]^2
      dk <- sqrt(dk)
      ds <- dk
      for (v in syn_cont) ds <- ds + d[[v]]^2
      ds <- sqrt(ds)
      d[known_cont] <- dk
      d[syn_cont] <- ds
    }
    width[i, ] <- d
  }
  cmat <- tmat <- matrix(0, n, m)
  for (j in seq_len(m)) {
    s <- syndata[[j]]
    skey <- key_of(s)
    rows <- split(seq_len(n), factor(skey, levels = unique(skey[!is.na(skey)])))
    ys <- lapply(stats::setNames(cont_vars, cont_vars), function(v) as.double(s[[v]]))
    for (i in seq_len(n)) {
      cand <- if (is.na(orig_key[i])) integer(0) else rows[[orig_key[i]]]
      if (is.null(cand)) cand <- integer(0)
      for (v in cont_vars) {
        if (!length(cand)) break
        x <- xo[[v]][i]
        lo <- x - width[i, v]
        hi <- x + width[i, v]
        y <- ys[[v]][cand]
        out <- y <= lo | y >= hi          # NA (either side) does not exclude
        cand <- cand[!(out %in% TRUE)]
      }
      cmat[i, j] <- length(cand)
      tmat[i, j] <- if (length(cand) == 0L || i %in% cand) 1 else 0
    }
  }
  risk <- ifelse(cmat == 0, 0, tmat / cmat)
  kmat <- (cmat * tmat == 1) + 0
  fmat <- (cmat * (1 - tmat) == 1) + 0
  dsum <- function(x) { acc <- 0; for (v in x) acc <- acc + v; acc }   # record order, double
  s_vec <- colSums(cmat == 1) + 0
  list(s_vector = s_vec,
       exp.risk_vector = vapply(seq_len(m), function(j) dsum(risk[, j]), 0),
       true.rate_vector = colSums(kmat) / n,
       false.rate_vector = colSums(fmat) / s_vec,
       c_vector = cmat, T_vector = tmat, K_vector = kmat, F_vector = fmat,
       Risk_vector = risk)
}
