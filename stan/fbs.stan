// FBS (fully Bayes, sample model) for private survey tables (Hu, Savitsky & Williams):
// (log y_i, log w_i) | x_i ~ bivariate normal((x_i' beta_y, x_i' beta_w), Sigma), each
// record's log-likelihood multiplied by its privacy weight alpha_i in [0, 1].
// Priors (paper's appendix C): the K coefficients of each outcome ~ MVN(0, diag(tau) Omega_beta
// diag(tau)) with Omega_beta ~ LKJ(eta_beta) and tau ~ t(3, 0, prior_scale); Sigma =
// diag(sigma) Omega diag(sigma) with Omega ~ LKJ(eta_sigma), sigma ~ t(3, 0, prior_scale).
// The likelihood is written out (constants included) so that idrisk can evaluate the same
// per-record log density in numpy for the Lipschitz bounds.
data {
  int<lower=1> N;
  int<lower=1> K;
  matrix[N, K] X;               // design (cell indicators)
  vector[N] ly;                 // log y, centred by a fixed constant
  vector[N] lw;                 // log w, centred by a fixed constant
  vector<lower=0, upper=1>[N] alpha;
  real<lower=0> prior_scale;    // 10 in the paper
  real<lower=0> eta_beta;       // 6 in the paper
  real<lower=0> eta_sigma;      // 6 in the paper
}
parameters {
  matrix[K, 2] beta;            // column 1: log y, column 2: log w
  cholesky_factor_corr[K] L_beta;
  matrix<lower=0>[K, 2] tau;
  cholesky_factor_corr[2] L_Omega;
  vector<lower=0>[2] sigma;
}
model {
  L_beta ~ lkj_corr_cholesky(eta_beta);
  to_vector(tau) ~ student_t(3, 0, prior_scale);
  for (d in 1:2)
    beta[, d] ~ multi_normal_cholesky(rep_vector(0, K), diag_pre_multiply(tau[, d], L_beta));
  L_Omega ~ lkj_corr_cholesky(eta_sigma);
  sigma ~ student_t(3, 0, prior_scale);
  {
    real rho = L_Omega[2, 1];
    real one_m_rho2 = 1 - square(rho);
    vector[N] u = (ly - X * beta[, 1]) / sigma[1];
    vector[N] v = (lw - X * beta[, 2]) / sigma[2];
    vector[N] lp = -log(2 * pi()) - log(sigma[1]) - log(sigma[2]) - 0.5 * log(one_m_rho2)
                   - (square(u) - 2 * rho * u .* v + square(v)) / (2 * one_m_rho2);
    target += dot_product(alpha, lp);
  }
}
generated quantities {
  real rho = L_Omega[2, 1];
}
