// Weighted normal mean with known standard deviation (conjugate check of the pseudo
// posterior): y[i] ~ normal(mu, sigma), mu ~ normal(m0, s0), each log-likelihood
// term multiplied by w[i].  Closed form: precision 1/s0^2 + sum(w)/sigma^2.
// mu is sampled non-centred, mu = m0 + s0 * mu_std with mu_std ~ normal(0, 1): the same
// prior, and a prior with constant arguments (stanc's pedantic mode, which PyStan always
// runs, reports a prior whose arguments are data as missing).
data {
  int<lower=1> N;
  vector[N] y;
  vector<lower=0, upper=1>[N] w;
  real<lower=0> sigma;
  real m0;
  real<lower=0> s0;
}
parameters {
  real mu_std;
}
transformed parameters {
  real mu = m0 + s0 * mu_std;
}
model {
  mu_std ~ std_normal();
  target += dot_product(w, -0.5 * square((y - mu) / sigma));
}
