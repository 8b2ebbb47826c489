# MASS::polr reference for tests/utility/test_tables_ordered_logit.py.
# Usage: Rscript polr_reference.R INPUT.csv OUTPUT.csv
# INPUT: IncomeQ (1-4) and the predictor columns, all read as character; factor levels in
# C-locale (radix) sorted order, as idrisk sorts them. Fits
#   polr(IncomeQ ~ <all other columns>, data, Hess = TRUE)
# and writes rows kind,name,value: coef / coef_se (beta), zeta / zeta_se (cut points),
# loglik, and prob_<row>_<k> (fitted P(Y = k) of the first 5 rows).
suppressPackageStartupMessages(library(MASS))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1], colClasses = "character")
for (v in names(d)) d[[v]] <- factor(d[[v]], levels = sort(unique(d[[v]]), method = "radix"))
d$IncomeQ <- factor(d$IncomeQ, levels = c("1", "2", "3", "4"), ordered = TRUE)
preds <- setdiff(names(d), "IncomeQ")
f <- as.formula(paste("IncomeQ ~", paste(preds, collapse = " + ")))
fit <- polr(f, data = d, Hess = TRUE, control = list(reltol = 1e-14, maxit = 10000))
se <- sqrt(diag(vcov(fit)))
p <- length(fit$coefficients)
pr <- fitted(fit)[1:5, ]
out <- rbind(
  data.frame(kind = "coef", name = names(fit$coefficients), value = unname(fit$coefficients)),
  data.frame(kind = "coef_se", name = names(fit$coefficients), value = unname(se[1:p])),
  data.frame(kind = "zeta", name = names(fit$zeta), value = unname(fit$zeta)),
  data.frame(kind = "zeta_se", name = names(fit$zeta), value = unname(se[-(1:p)])),
  data.frame(kind = "loglik", name = "", value = as.numeric(logLik(fit))),
  data.frame(kind = "prob", name = paste0(rep(1:5, 4), "_", rep(1:4, each = 5)),
             value = as.vector(pr)))
write.csv(out, args[2], row.names = FALSE)
