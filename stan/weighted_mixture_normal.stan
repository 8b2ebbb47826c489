// Risk-weighted finite mixture of normal regressions (truncated Dirichlet process).
//
// y[i] | X[i], z[i] = k ~ normal(X[i] * beta[, k], sigma[k]),  z[i] ~ categorical(pi),
// pi ~ dirichlet(gamma / K), gamma ~ gamma(a_gamma, b_gamma),
// beta[, k] ~ MVN(0, diag(sigma_beta) * Omega * diag(sigma_beta)),
// Omega ~ LKJ(1), sigma_beta ~ half-t(3, 0, scale_beta),
// sigma[k] ~ half-t(nu_sigma, 0, scale_sigma)  (nu_sigma = 0: half-normal(0, scale_sigma)).
// The component labels z are marginalised out.  Each record's whole mixture
// log-likelihood (the log-sum-exp over components) is multiplied by its weight w[i]:
// w = 1 for the unweighted synthesizer, w = alpha for a risk-weighted pseudo posterior.
// Generated quantities mean_y and sd_y (the model-implied mean and standard deviation of
// y over the records' covariates) do not depend on the component labels, so their R-hat
// is meaningful even when labels switch between chains.
data {
  int<lower=1> N;                      // records
  int<lower=1> K;                      // mixture components (truncation level)
  int<lower=1> R;                      // predictors, intercept included
  matrix[N, R] X;                      // design matrix
  vector[N] y;                         // outcome (e.g. standardised log income)
  vector<lower=0, upper=1>[N] w;       // record weights alpha_i
  real<lower=0> a_gamma;               // gamma prior shape for the Dirichlet concentration
  real<lower=0> b_gamma;               // gamma prior rate
  real<lower=0> scale_beta;            // scale of the half-t(3) prior on sigma_beta
  real<lower=0> scale_sigma;           // scale of the prior on the component sds sigma
  real<lower=0> nu_sigma;              // its t degrees of freedom (0 = half-normal)
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
  matrix[N, K] lp;                     // lp[i, k] = log pi_k + log normal(y_i | mu_ik, sigma_k)
  vector[N] ll;                        // ll[i] = log-sum-exp over components of lp[i]
  vector[K] log_pi = log(pi);
  gamma ~ gamma(a_gamma, b_gamma);
  pi ~ dirichlet(rep_vector(gamma / K, K));
  L_Omega ~ lkj_corr_cholesky(1);
  sigma_beta ~ student_t(3, 0, scale_beta);
  if (nu_sigma > 0) {
    sigma ~ student_t(nu_sigma, 0, scale_sigma);
  } else {
    sigma ~ normal(0, scale_sigma);
  }
  to_vector(beta_raw) ~ std_normal();
  for (k in 1:K) {
    lp[:, k] = log_pi[k] - log(sigma[k]) - 0.5 * log(2 * pi())
               - 0.5 * square((y - mu[:, k]) / sigma[k]);
  }
  for (i in 1:N) {
    ll[i] = log_sum_exp(lp[i]);
  }
  target += dot_product(w, ll);
}
generated quantities {
  real mean_y;
  real sd_y;
  {
    matrix[N, K] mu = X * beta;
    vector[K] m2 = (columns_dot_self(mu) / N)' + square(sigma);   // E[y^2 | z = k]
    mean_y = mean(mu * pi);
    sd_y = sqrt(fmax(dot_product(pi, m2) - square(mean_y), 0));
  }
}
