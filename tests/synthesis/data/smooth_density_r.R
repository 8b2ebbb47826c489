# Expected output of synthpop-style density smoothing, computed in R (not by idrisk).
# Rscript tests/synthesis/data/smooth_density_r.R tests/synthesis/data/smooth_density_in.csv \
#   > tests/synthesis/data/smooth_density_r.csv
# Input columns: ysyn (values to smooth), yobs (observed values). Rule (synthpop 1.9-3,
# smoothing = "density", no spike, no top-coding here): bw <- bw.SJ(ysyn);
# ysyn + rnorm(n, 0, bw) drawn as rnorm(n, ysyn, bw) after set.seed(1), clipped to
# range(yobs), rounded to the observed decimals (1).
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1])
set.seed(1)
bw <- bw.SJ(d$ysyn)
out <- rnorm(nrow(d), d$ysyn, bw)
out <- round(pmax(pmin(out, max(d$yobs)), min(d$yobs)), 1)
cat("# bw.SJ =", sprintf("%.17g", bw), "\n")
write.csv(data.frame(expected = sprintf("%.1f", out)), stdout(), row.names = FALSE, quote = FALSE)
