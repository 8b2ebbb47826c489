# Writes CEdata.rda (the data frame CEdata with the storage of IdentificationRiskCalculation's
# CEdata: Age, Urban, Tenure, Educ, Marital integer; Expenditure, Income double) from the CSV
# copy in shared/data. Usage: Rscript make_cedata.R <CEdata.csv> <out.rda>
args <- commandArgs(trailingOnly = TRUE)
CEdata <- utils::read.csv(args[1], colClasses = c(Age = "integer", Urban = "integer",
                          Tenure = "integer", Educ = "integer", Expenditure = "numeric",
                          Marital = "integer", Income = "numeric"))
stopifnot(identical(dim(CEdata), c(5571L, 7L)))
save(CEdata, file = args[2], compress = "xz")
