// Risk-weighted finite mixture of normal regressions.
//
// y[i] | Z[i], z[i] = k ~ normal(mu0[k] + Z[i] * beta[, k], sigma[k]),  z[i] ~ categorical(pi).
// The component labels z are marginalised out (log-sum-exp over components), and each
// record's whole mixture log-likelihood ll[i] is multiplied by its weight w[i]:
// w = 1 for the unweighted synthesizer, w = alpha for a risk-weighted pseudo posterior.
//
// Parameterisation chosen for convergence (labels identified, no funnels):
//   * the sampled component intercepts mu0_ord are ORDERED (mu0_ord[1] < ... < mu0_ord[K]),
//     so there is one labelling only. With component slopes they are the intercepts at
//     Z = 0 (mu0 = mu0_ord); with shared slopes they are the component means at the mean
//     predictors and mu0 = mu0_ord - z_bar * beta. (Ordering the means at z_bar with
//     component slopes made the chains disagree on simulated two-cluster data: lp__ R-hat
//     1.19 against 1.000 when ordered at Z = 0.) mu0 is a transformed parameter;
//   * pi ~ Dirichlet(a_pi, ..., a_pi) with a fixed a_pi (>= 1 keeps the density bounded
//     at the edges of the simplex; the papers' gamma ~ Gamma(a, b) hierarchy with
//     gamma / K < 1 made weights of empty components wander and chains disagree);
//   * slopes, two forms (data flag shared_slopes):
//       0: one slope vector per component, non-centred: beta[p, k] = tau[p] * beta_raw[p, k],
//          beta_raw ~ N(0, 1), tau ~ half-normal(0, scale_beta) (the papers' form, without
//          the LKJ correlation);
//       1: one slope vector shared by the components (a regression whose error is a
//          mixture of normals), beta ~ N(0, scale_beta), sampled on the thin-QR scale
//          theta = R beta of the centred predictors Zc = Z - z_bar (a linear map: constant
//          Jacobian).
//          Component-specific slopes mix slowly on CE income (lp__ R-hat 1.15-1.17 at
//          n = 1,500 with 4 chains x 300 + 300, centred or not); the shared form converges;
//   * sigma[k] has a ZERO-AVOIDING prior: density proportional to sigma[k] times the
//     half-t(nu_sigma, 0, scale_sigma) density (nu_sigma = 0: times the half-normal, i.e. a
//     Rayleigh(scale_sigma) prior). A mixture's likelihood grows without bound as a component
//     collapses onto one record (sigma[k] -> 0), so with a prior that is positive at 0 the
//     posterior has spikes where a nearly empty component shrinks; NUTS diverged there
//     (CmdStan 2.35, tests/weighted/test_rw_synthesizer.py, shared slopes: 5 divergent
//     transitions at adapt_delta 0.95, 1 at 0.99, at sigma[k] = 0.001 with pi[k] = 0.005).
//     The factor sigma[k] removes the spikes (BDA3 section 22.4); 0 divergences after it.
// Every density is added with target += ..._lpdf (constants kept), so the model's log
// density can be checked exactly against an independent implementation
// (tests/stan/test_log_density.py).  Z holds the predictors WITHOUT an intercept (P may
// be 0).  Generated quantities mean_y and sd_y (model-implied mean and sd of y over the
// records' covariates) are label-invariant convergence checks.
data {
  int<lower=1> N;                      // records
  int<lower=1> K;                      // mixture components
  int<lower=0> P;                      // predictors (no intercept)
  matrix[N, P] Z;                      // standardised predictors
  vector[N] y;                         // outcome (e.g. standardised log income)
  vector<lower=0, upper=1>[N] w;       // record weights alpha_i
  real<lower=0> a_pi;                  // Dirichlet concentration of each component weight
  real<lower=0> scale_mu;              // sd of the normal prior on the intercepts mu0_ord
  real<lower=0> scale_beta;            // slope prior scale (see the two forms above)
  real<lower=0> scale_sigma;           // scale of the prior on the component sds sigma
  real<lower=0> nu_sigma;              // its t degrees of freedom (0 = half-normal)
  int<lower=0, upper=1> shared_slopes; // 1: one slope vector for all components
}
transformed data {
  int PK = shared_slopes ? 0 : P;      // sizes of the component-slope parameters
  int PS = shared_slopes ? P : 0;      // size of the shared-slope parameter
  row_vector[P] z_bar;
  matrix[N, P] Zc;
  matrix[N, PS] Q_ast;                 // thin QR of Zc, scaled: Zc = Q_ast * R_ast
  matrix[PS, PS] R_ast_inv;
  for (p in 1:P) {
    z_bar[p] = mean(Z[:, p]);
  }
  Zc = Z - rep_matrix(z_bar, N);
  if (PS > 0) {
    Q_ast = qr_thin_Q(Zc) * sqrt(N - 1.0);
    R_ast_inv = inverse(qr_thin_R(Zc) / sqrt(N - 1.0));
  }
}
parameters {
  simplex[K] pi;
  ordered[K] mu0_ord;
  matrix[PK, K] beta_raw;
  vector<lower=0>[PK] tau;
  vector[PS] theta;
  vector<lower=0>[K] sigma;
}
transformed parameters {
  matrix[P, K] beta;
  vector[K] mu0;
  if (shared_slopes) {
    beta = rep_matrix(R_ast_inv * theta, K);
  } else {
    beta = diag_pre_multiply(tau, beta_raw);
  }
  if (shared_slopes) {
    mu0 = mu0_ord - (z_bar * beta)';
  } else {
    mu0 = mu0_ord;
  }
}
model {
  matrix[N, K] lp;                     // lp[i, k] = log pi_k + log normal(y_i | mu_ik, sigma_k)
  vector[N] ll;                        // ll[i] = log-sum-exp over components of lp[i]
  {
    matrix[N, K] mu;
    if (shared_slopes) {
      mu = rep_matrix(mu0_ord', N) + rep_matrix(Q_ast * theta, K);
    } else {
      mu = rep_matrix(mu0_ord', N) + Z * beta;
    }
    for (k in 1:K) {
      lp[:, k] = log(pi[k]) - log(sigma[k]) - 0.5 * log(2 * pi())
                 - 0.5 * square((y - mu[:, k]) / sigma[k]);
    }
  }
  for (i in 1:N) {
    ll[i] = log_sum_exp(lp[i]);
  }
  target += dirichlet_lpdf(pi | rep_vector(a_pi, K));
  target += normal_lpdf(mu0_ord | 0, scale_mu);
  if (shared_slopes) {
    target += normal_lpdf(beta[:, 1] | 0, scale_beta);
  } else {
    target += std_normal_lpdf(to_vector(beta_raw));
    target += normal_lpdf(tau | 0, scale_beta);
  }
  // zero-avoiding: the half-t / half-normal density times sigma (see the notes above)
  target += (nu_sigma > 0 ? student_t_lpdf(sigma | nu_sigma, 0, scale_sigma)
                          : normal_lpdf(sigma | 0, scale_sigma))
            + sum(log(sigma));
  target += dot_product(w, ll);
}
generated quantities {
  real mean_y;
  real sd_y;
  {
    matrix[N, K] mu = rep_matrix(mu0', N) + Z * beta;
    vector[K] m2 = (columns_dot_self(mu) / N)' + square(sigma);   // E[y^2 | z = k]
    mean_y = mean(mu * pi);
    sd_y = sqrt(fmax(dot_product(pi, m2) - square(mean_y), 0));
  }
}
