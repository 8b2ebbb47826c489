// Risk-weighted finite mixture of normal regressions (truncated Dirichlet process).
//
// y[i] | X[i], z[i] = k ~ normal(X[i] * beta[, k], sigma[k]),  z[i] ~ categorical(pi),
// pi ~ dirichlet(gamma / K), gamma ~ gamma(a_gamma, b_gamma),
// beta[, k] ~ MVN(0, diag(sigma_beta) * Omega * diag(sigma_beta)),
// Omega ~ LKJ(1), sigma_beta ~ half-t(3, 0, scale_beta), sigma[k] ~ half-t(3, 0, 1).
// The component labels z are marginalised out.  Each record's whole mixture
// log-likelihood (the log-sum-exp over components) is multiplied by its weight w[i]:
// w = 1 for the unweighted synthesizer, w = alpha for a risk-weighted pseudo posterior.
data {
  int<lower=1> N;                      // records
  int<lower=1> K;                      // mixture components (truncation level)
  int<lower=1> R;                      // predictors, intercept included
  matrix[N, R] X;                      // design matrix
  vector[N] y;                         // outcome (e.g. log income)
  vector<lower=0, upper=1>[N] w;       // record weights alpha_i
  real<lower=0> a_gamma;               // gamma prior shape for the Dirichlet concentration
  real<lower=0> b_gamma;               // gamma prior rate
  real<lower=0> scale_beta;            // scale of the half-t(3) prior on sigma_beta
  real<lower=0> scale_sigma;           // scale of the half-t(3) prior on sigma
}
parameters {
  simplex[K] pi;
  real<lower=0> gamma;
  matrix[R, K] beta_raw;
  cholesky_factor_corr[R] L_Omega;
  vector<lower=0>[R] sigma_beta;
  vector<lower=0>[K] sigma;
}
transformed parameters {
  matrix[R, K] beta = diag_pre_multiply(sigma_beta, L_Omega) * beta_raw;
}
model {
  matrix[N, K] mu = X * beta;
  matrix[K, N] lp;                     // lp[k, i] = log pi_k + log normal(y_i | mu_ik, sigma_k)
  vector[K] log_pi = log(pi);
  gamma ~ gamma(a_gamma, b_gamma);
  pi ~ dirichlet(rep_vector(gamma / K, K));
  L_Omega ~ lkj_corr_cholesky(1);
  sigma_beta ~ student_t(3, 0, scale_beta);
  sigma ~ student_t(3, 0, scale_sigma);
  to_vector(beta_raw) ~ std_normal();
  for (k in 1:K) {
    lp[k] = (log_pi[k] - log(sigma[k]) - 0.5 * log(2 * pi())
             - 0.5 * square((y - col(mu, k)) / sigma[k]))';
  }
  for (i in 1:N) {
    target += w[i] * log_sum_exp(col(lp, i));
  }
}
