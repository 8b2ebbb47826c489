// FBS (fully Bayes, sample model) for private survey tables (Hu, Savitsky & Williams):
// (log y_i, log w_i) | x_i ~ bivariate normal((x_i' beta_y, x_i' beta_w), Sigma), each
// record's log-likelihood multiplied by its privacy weight alpha_i in [0, 1].
// Priors: Sigma = diag(sigma) Omega diag(sigma) with Omega ~ LKJ(eta_sigma) and
// sigma ~ t(3, 0, prior_scale), as the paper's appendix C; coefficients ~ normal(0, coef_scale)
// independently. (The appendix's hierarchical MVN prior on the coefficients, with a
// t(3, 0, 10) scale per coefficient and an LKJ(6) correlation, puts one coefficient under
// each scale when the design is coded by cells; NUTS then meets a funnel -- step size 0.03,
// tree depth 7, divergences, bulk ESS 12 of lp__ on 250 iterations -- so it is not used.)
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
  real<lower=0> coef_scale;     // sd of the coefficients' normal prior (10)
  real<lower=0> eta_sigma;      // 6 in the paper
}
parameters {
  matrix[K, 2] beta;            // column 1: log y, column 2: log w
  cholesky_factor_corr[2] L_Omega;
  vector<lower=0>[2] sigma;
}
model {
  to_vector(beta) ~ normal(0, coef_scale);
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
