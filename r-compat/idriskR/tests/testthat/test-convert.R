test_that("data frames reach pandas with factors, characters, integers, logicals and NA", {
  skip_if_no_idrisk()
  df <- data.frame(
    f = factor(c("b", NA, "a"), levels = c("b", "a", "unused")),
    o = factor(c("lo", "hi", NA), levels = c("lo", "hi"), ordered = TRUE),
    s = c("x", NA, "NA"),
    i = c(1L, NA, -3L),
    l = c(TRUE, NA, FALSE),
    d = c(1.5, NA, NaN),
    stringsAsFactors = FALSE)
  p <- to_pandas(df)
  py <- reticulate::import_builtins(convert = TRUE)
  dtypes <- vapply(c("f", "o", "s", "i", "l", "d"),
                   function(c) py$str(p[[c]]$dtype), "")
  expect_identical(unname(dtypes[c("i", "l", "d")]), c("Int32", "boolean", "float64"))
  expect_identical(unname(dtypes["s"]), "str")
  pl <- function(x) unlist(reticulate::py_to_r(x))
  f <- p[["f"]]
  expect_identical(pl(f$cat$categories$tolist()), c("b", "a", "unused"))
  expect_identical(pl(f$cat$codes$tolist()), c(0L, -1L, 1L))
  expect_true(reticulate::py_to_r(p[["o"]]$cat$ordered))
  expect_identical(pl(p[["o"]]$cat$codes$tolist()), c(0L, 1L, -1L))
  expect_identical(pl(p[["s"]]$isna()$tolist()), c(FALSE, TRUE, FALSE))
  expect_identical(py$str(p[["s"]]$iloc[2L]), "NA")
  expect_identical(pl(p[["i"]]$isna()$tolist()), c(FALSE, TRUE, FALSE))
  expect_identical(py$int(p[["i"]]$iloc[2L]), -3L)
  expect_identical(pl(p[["l"]]$isna()$tolist()), c(FALSE, TRUE, FALSE))
  expect_identical(py$bool(p[["l"]]$iloc[0L]), TRUE)
  expect_identical(pl(p[["d"]]$isna()$tolist()), c(FALSE, TRUE, TRUE))
  expect_identical(py$float(p[["d"]]$iloc[0L]), 1.5)
})

test_that("a single data frame as syndata and a NULL result keep R's behaviour", {
  skip_if_no_idrisk()
  orig <- data.frame(K = factor(c("a", "b", "a")), X = c(10, 20, 30))
  syn1 <- data.frame(K = factor(c("a", "b", "a")), X = c(10.5, 25, 30))
  got <- run_captured(IdentificationRisk(orig, list(syn1), "K", "X", r = c(0.1, 0.2, 0.3),
                                         percentage = TRUE))
  expect_match(got$output[1], "Warning")
  expect_identical(dim(got$value$c_vector), c(3L, 1L))
  expect_identical(storage.mode(got$value$c_vector), "double")
  # brute force: 10% radius, open interval, categorical K must match
  c_ref <- vapply(1:3, function(i) sum(syn1$K == orig$K[i] &
                                         abs(syn1$X - orig$X[i]) < 0.1 * orig$X[i]), 0)
  expect_identical(as.vector(got$value$c_vector), as.double(c_ref))
})
