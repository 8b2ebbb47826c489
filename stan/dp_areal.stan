// DP-areal synthesizer of Hu & Savitsky (supplement, section 4), corrected for stanc 2.35.
//
// Counts c[i] of one label within one pattern (zeros filled in), Poisson with log-rate
// log_lambda[i]; log_lambda follows a K-component normal mixture whose means are
// mu + theta[k] + phi[k] . X[i] (X[i]: one-hot of the pattern's attribute values), mixture
// weights pi_prob ~ Dirichlet(alpha / K) (a finite approximation of the DP).
//
// Changes from the published listing (which does not compile with stanc 2.35):
//   * `int c[N]` -> `array[N] int c` (new array syntax);
//   * `real alpha` -> `real<lower=0> alpha` (a Gamma prior needs a positive parameter);
//   * the braces left over after `transformed parameters` are removed;
//   * the LKJ shape is data `lkj_eta` instead of the literal 4 (the text says nu = 2 and
//     "uniform"; the listing uses 4 -- idrisk passes 4 by default, following the code);
//   * `dj` and `p` are kept for the published data layout but unused, as in the listing.
// Where the text and the code disagree, this program follows the code: a symmetric
// Dirichlet(alpha/K) prior on the mixture weights instead of the text's stick-breaking
// construction, and LKJ(4).
functions {
  real normalmix_lpdf(vector log_lambda, vector pi_prob, real mu, vector theta,
                      matrix phi, matrix X, real tau_lambda, int N, int K) {
    real log_post = 0;
    vector[K] log_pi = log(pi_prob);
    real sigma = inv(sqrt(tau_lambda));
    for (i in 1:N) {
      vector[K] ps;
      for (k in 1:K) {
        ps[k] = log_pi[k] + normal_lpdf(log_lambda[i] | mu + theta[k]
                                        + dot_product(phi[k], X[i]), sigma);
      }
      log_post += log_sum_exp(ps);
    }
    return log_post;
  }
}
data {
  int<lower=1> N;            // combinations (pattern x label)
  int<lower=1> K;            // mixture components
  int<lower=1> p;            // kept attributes
  row_vector[p] dj;          // their numbers of levels
  int<lower=1> R;            // sum(dj)
  matrix[N, R] X;            // one-hot rows
  array[N] int<lower=0> c;   // counts
  real<lower=0> lkj_eta;     // LKJ shape (the listing: 4)
}
transformed data {
  vector<lower=0>[K] ones_K = rep_vector(1, K);
}
parameters {
  vector[N] log_lambda;
  real mu;
  real<lower=0> alpha;
  matrix[K, R] phi;
  vector[K] theta;
  simplex[K] pi_prob;
  vector[R] mu_phi;
  real<lower=0> tau_theta;
  real<lower=0> tau_phi;
  vector<lower=0>[R] sigma_phi;
  cholesky_factor_corr[R] L_phi;
  real<lower=0> tau_mu;
  real<lower=0> tau_lambda;
}
transformed parameters {
  vector[N] lambda = exp(log_lambda);
}
model {
  alpha ~ gamma(1.0, 1.0);
  pi_prob ~ dirichlet(alpha / K * ones_K);
  theta ~ normal(0, inv(sqrt(tau_theta)));
  tau_theta ~ gamma(1.0, 1.0);
  mu_phi ~ normal(0, inv(sqrt(tau_phi)));
  tau_phi ~ gamma(1.0, 1.0);
  L_phi ~ lkj_corr_cholesky(lkj_eta);
  sigma_phi ~ student_t(3, 0, 1);
  for (k in 1:K) {
    to_vector(phi[k]) ~ multi_normal_cholesky(mu_phi, diag_pre_multiply(sigma_phi, L_phi));
  }
  mu ~ normal(0, inv(sqrt(tau_mu)));
  tau_mu ~ gamma(1.0, 1.0);
  log_lambda ~ normalmix(pi_prob, mu, theta, phi, X, tau_lambda, N, K);
  tau_lambda ~ gamma(1.0, 1.0);
  c ~ poisson_log(log_lambda);
}
