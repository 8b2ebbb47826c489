// DP-areal, the same posterior as dp_areal.stan in a non-centred parameterisation:
//   mu = mu_raw / sqrt(tau_mu), theta = theta_raw / sqrt(tau_theta),
//   mu_phi = mu_phi_raw / sqrt(tau_phi), phi[k] = mu_phi + diag(sigma_phi) L_phi phi_raw[k],
// with standard-normal raw parameters (the Jacobians are those of linear maps of the raw
// parameters given the scales, so the implied joint density of (mu, theta, mu_phi, phi) is the
// centred program's). The mixture log density is computed from one N x K matrix of component
// means. The log-rates stay centred (each is pinned by its count).
data {
  int<lower=1> N;
  int<lower=1> K;
  int<lower=1> p;
  row_vector[p] dj;
  int<lower=1> R;
  matrix[N, R] X;
  array[N] int<lower=0> c;
  real<lower=0> lkj_eta;
}
parameters {
  vector[N] log_lambda;
  real mu_raw;
  real<lower=0> alpha;
  matrix[K, R] phi_raw;
  vector[K] theta_raw;
  simplex[K] pi_prob;
  vector[R] mu_phi_raw;
  real<lower=0> tau_theta;
  real<lower=0> tau_phi;
  vector<lower=0>[R] sigma_phi;
  cholesky_factor_corr[R] L_phi;
  real<lower=0> tau_mu;
  real<lower=0> tau_lambda;
}
transformed parameters {
  real mu = mu_raw / sqrt(tau_mu);
  vector[K] theta = theta_raw / sqrt(tau_theta);
  vector[R] mu_phi = mu_phi_raw / sqrt(tau_phi);
  matrix[K, R] phi = rep_matrix(mu_phi', K)
                     + phi_raw * diag_pre_multiply(sigma_phi, L_phi)';
}
model {
  matrix[N, K] M = rep_matrix(mu + theta', N) + X * phi';
  vector[K] log_pi = log(pi_prob);
  alpha ~ gamma(1.0, 1.0);
  pi_prob ~ dirichlet(rep_vector(alpha / K, K));
  theta_raw ~ std_normal();
  tau_theta ~ gamma(1.0, 1.0);
  mu_phi_raw ~ std_normal();
  tau_phi ~ gamma(1.0, 1.0);
  L_phi ~ lkj_corr_cholesky(lkj_eta);
  sigma_phi ~ student_t(3, 0, 1);
  to_vector(phi_raw) ~ std_normal();
  mu_raw ~ std_normal();
  tau_mu ~ gamma(1.0, 1.0);
  tau_lambda ~ gamma(1.0, 1.0);
  for (i in 1:N) {
    target += log_sum_exp(log_pi - 0.5 * tau_lambda * square(log_lambda[i] - M[i]'));
  }
  target += 0.5 * N * log(tau_lambda);
  c ~ poisson_log(log_lambda);
}
