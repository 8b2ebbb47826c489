# Reference tables from R's survey package for idrisk.survey.design_table.
# Usage: Rscript design_reference.R INPUT.csv OUTPUT.csv taylor|replicate [LONELY]
# INPUT has columns h (stratum), f, g (domains), y, w and, for "replicate", rep1..repR
# (full replicate weights). OUTPUT: one row per cell (f x g), margin (f, g) and total,
# columns f, g, count, count_se, mean, mean_se printed with 17 significant digits.
suppressPackageStartupMessages(library(survey))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1], colClasses = c(h = "character", f = "character", g = "character"))
kind <- args[3]
options(survey.lonely.psu = if (length(args) >= 4) args[4] else "fail")
d$one <- 1
if (kind == "taylor") {
  des <- svydesign(ids = ~1, strata = ~h, weights = ~w, data = d)
} else {
  rw <- as.matrix(d[, grep("^rep", names(d))])
  R <- ncol(rw)
  des <- svrepdesign(data = d, repweights = rw, weights = ~w, type = "other", scale = 1,
                     rscales = rep(1 / (R - 1), R), mse = FALSE, combined.weights = TRUE)
}
by_rows <- function(formula, f_all, g_all) {
  tot <- svyby(~one, formula, des, svytotal)
  avg <- svyby(~y, formula, des, svymean)
  keys <- tot[, all.vars(formula), drop = FALSE]
  data.frame(f = if (f_all) "All" else keys$f, g = if (g_all) "All" else keys$g,
             count = as.numeric(coef(tot)), count_se = as.numeric(SE(tot)),
             mean = as.numeric(coef(avg)), mean_se = as.numeric(SE(avg)))
}
tot <- svytotal(~one, des)
avg <- svymean(~y, des)
out <- rbind(
  by_rows(~f + g, FALSE, FALSE),
  by_rows(~f, FALSE, TRUE),
  by_rows(~g, TRUE, FALSE),
  data.frame(f = "All", g = "All", count = as.numeric(coef(tot)),
             count_se = as.numeric(SE(tot)), mean = as.numeric(coef(avg)),
             mean_se = as.numeric(SE(avg)))
)
num <- c("count", "count_se", "mean", "mean_se")
for (v in num) out[[v]] <- sprintf("%.17g", out[[v]])
write.csv(out, args[2], row.names = FALSE, quote = TRUE)
