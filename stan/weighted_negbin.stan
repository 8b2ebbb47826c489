// Risk-weighted negative binomial regression for counts.
//
// y[i] ~ NB(mu[i], phi) with log(mu[i]) = X[i] * beta (NB2: variance mu + mu^2 / phi);
// X = a column of ones gives the single NB(mu, phi) synthesizer.
// Weakly informative priors: beta ~ normal(0, scale_beta), phi ~ half-t(3, 0, scale_phi).
// Each record's log-likelihood is multiplied by its weight w[i] (pseudo posterior).
// Every density is added with target += ..._lpdf (constants kept), so the model's log
// density can be checked exactly against an independent implementation
// (tests/stan/test_log_density.py).
// beta and phi are sampled on the prior's standard scale, beta = scale_beta * beta_std and
// phi = scale_phi * phi_std, with normal(0, 1) and half-t(3, 0, 1) priors: the same priors
// (the log-scale terms keep target equal to the densities of beta and phi), written with
// constant arguments (stanc's pedantic mode, which PyStan always runs, reports a prior whose
// arguments are data as missing).
data {
  int<lower=1> N;
  int<lower=1> R;
  matrix[N, R] X;
  array[N] int<lower=0> y;
  vector<lower=0, upper=1>[N] w;
  real<lower=0> scale_beta;
  real<lower=0> scale_phi;
}
parameters {
  vector[R] beta_std;
  real<lower=0> phi_std;
}
transformed parameters {
  vector[R] beta = scale_beta * beta_std;
  real<lower=0> phi = scale_phi * phi_std;
}
model {
  vector[N] eta = X * beta;
  // with the log-scale terms: normal_lpdf(beta | 0, scale_beta) and
  // student_t_lpdf(phi | 3, 0, scale_phi)
  target += std_normal_lpdf(beta_std);
  target += student_t_lpdf(phi_std | 3, 0, 1);
  target += -R * log(scale_beta) - log(scale_phi);
  for (i in 1:N) {
    target += w[i] * neg_binomial_2_log_lpmf(y[i] | eta[i], phi);
  }
}
