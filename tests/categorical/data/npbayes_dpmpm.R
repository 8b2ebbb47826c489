# NPBayesImputeCat 0.5 reference outputs for tests/categorical/test_dpmpm_vs_r.py.
# The sampler's C++ generator takes `seed`; the synthesis step uses R's generator, seeded
# here with set.seed(seed) as well, so every row is reproducible.
# Usage: Rscript npbayes_dpmpm.R DATA.csv OUTPUT.csv NRUN BURN THIN K M SEED1 [SEED2 ...]
# For every seed: DPMPM_nozeros_syn(X, dj, nrun, burn, thin, K, aalpha = 0.25, balpha = 0.25,
#                                   m, vars = "L", seed) -- the label L synthesized, A and B kept.
# Output rows (long format): seed, stat, key, value with
#   stat = kstar_median / kstar_lo / kstar_hi (2.5% and 97.5% quantiles, type 7) over the
#          traced post-burn-in k*, alpha_mean (mean of the saved alpha draws),
#   stat = one (key = label level): m-averaged synthetic count of L,
#   stat = two_A / two_B (key = "<kept level>|<label level>"): m-averaged two-way counts.
suppressPackageStartupMessages(library(NPBayesImputeCat))
args <- commandArgs(trailingOnly = TRUE)
X <- read.csv(args[1], colClasses = "character")
for (v in names(X)) X[[v]] <- factor(X[[v]])
nrun <- as.integer(args[3]); burn <- as.integer(args[4]); thin <- as.integer(args[5])
K <- as.integer(args[6]); m <- as.integer(args[7]); seeds <- as.integer(args[-(1:7)])
dj <- sapply(X, nlevels)
rows <- list()
add <- function(seed, stat, key, value) {
  rows[[length(rows) + 1]] <<- data.frame(seed = seed, stat = stat, key = key, value = value)
}
for (s in seeds) {
  set.seed(s)  # the synthesis step draws with R's rmultinom (R's own generator)
  out <- DPMPM_nozeros_syn(X, dj, nrun, burn, thin, K, 0.25, 0.25, m, "L", s, silent = TRUE)
  # with one synthesized variable the package names its column "origdata...vars."
  syn <- lapply(out$syndata, function(d) {
    names(d)[!(names(d) %in% c("A", "B"))] <- "L"
    d
  })
  ks <- as.numeric(out$kstar)
  add(s, "kstar_median", "", median(ks))
  add(s, "kstar_lo", "", unname(quantile(ks, 0.025)))
  add(s, "kstar_hi", "", unname(quantile(ks, 0.975)))
  add(s, "alpha_mean", "", mean(out$alpha))
  one <- Reduce(`+`, lapply(syn, function(d) table(factor(d$L, levels(X$L))))) / m
  for (l in names(one)) add(s, "one", l, one[[l]])
  for (v in c("A", "B")) {
    two <- Reduce(`+`, lapply(syn, function(d)
      table(factor(d[[v]], levels(X[[v]])), factor(d$L, levels(X$L))))) / m
    for (a in rownames(two)) for (l in colnames(two)) add(s, paste0("two_", v),
                                                          paste0(a, "|", l), two[a, l])
  }
}
write.csv(do.call(rbind, rows), args[2], row.names = FALSE)
