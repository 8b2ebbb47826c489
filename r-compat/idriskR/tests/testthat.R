library(testthat)
library(idriskR)
test_check("idriskR")
