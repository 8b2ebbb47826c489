r_names <- c("s_vector", "exp.risk_vector", "true.rate_vector", "false.rate_vector",
             "c_vector", "T_vector", "K_vector", "F_vector", "Risk_vector")

test_that("IdentificationRisk has R's exact signature", {
  expect_identical(names(formals(IdentificationRisk)),
                   c("origdata", "syndata", "known", "syn", "r", "percentage", "euclideanDist"))
  f <- formals(IdentificationRisk)
  expect_null(f$r)
  expect_true(f$percentage)
  expect_false(f$euclideanDist)
})

test_that("every public fixture is reproduced exactly (values, types, printed lines)", {
  skip_if_no_idrisk()
  root <- fixture_root()
  cases <- sort(list.dirs(root, full.names = FALSE, recursive = FALSE))
  cases <- cases[file.exists(file.path(root, cases, "args.json"))]
  expect_gt(length(cases), 0)
  for (name in cases) {
    case <- read_case(file.path(root, name))
    a <- case$args
    r <- if (is.null(a$r)) NULL else as.double(unlist(a$r))
    got <- run_captured(IdentificationRisk(case$orig, case$syn, unlist(a$known), unlist(a$syn),
                                           r = r, percentage = a$percentage,
                                           euclideanDist = a$euclideanDist))
    e <- case$expected
    expect_identical(got$output, as.character(unlist(e$stdout_lines)), label = name)
    expect_identical(got$messages, as.character(unlist(e$message_lines)), label = name)
    # the original signals no R warnings; idrisk's own data checks arrive as R warnings
    # named by their Python category, never as one of R's printed lines
    expect_true(all(grepl("^[A-Za-z]+Warning: ", got$warnings)), label = name)
    if (isTRUE(e$returned_null)) {
      expect_null(got$value, label = name)
      next
    }
    res <- got$value
    expect_identical(names(res), r_names, label = name)
    for (key in r_names) {
      expect_identical(res[[key]], expected_value(e, key), label = paste(name, key))
    }
  }
})

test_that("help pages are installed for every export", {
  for (topic in c("IdentificationRisk", "to_pandas", "idrisk_available", "idriskR-package")) {
    expect_length(utils::help(topic, package = "idriskR"), 1L)
  }
})
