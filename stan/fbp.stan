// FBP (fully Bayes, population model) for private survey tables (Hu, Savitsky & Williams;
// Leon-Novelo & Savitsky 2019). Population: log y_i | x_i ~ N(x_i' beta, sigma_y);
// inclusion probability: log pi_i | y_i, x_i ~ N(kappa_y log y_i + x_i' kappa_x, sigma_pi).
// The observed-sample likelihood of (y_i, pi_i) corrects for selection; with the factor pi_i
// of the exact sample density (pi_i p(pi_i | y_i) p(y_i) / E[pi_i | x_i]) the lognormal
// density of pi_i becomes the normal density of log pi_i:
//   log N(log y_i) + log N(log pi_i) - log E[pi_i | x_i],
//   log E[pi_i | x_i] = x_i' kappa_x + kappa_y x_i' beta + (kappa_y^2 sigma_y^2 + sigma_pi^2) / 2,
// each record's term multiplied by its privacy weight alpha_i in [0, 1].
// Priors: independent normals on beta, kappa; half-Cauchy on sigma_y, sigma_pi.
data {
  int<lower=1> N;
  int<lower=1> K;
  matrix[N, K] X;               // design (cell indicators)
  vector[N] ly;                 // log y, centred by a fixed constant
  vector[N] lpi;                // log inclusion probability, log(1 / w)
  vector<lower=0, upper=1>[N] alpha;
  real<lower=0> coef_scale;     // sd of the normal priors
  real<lower=0> scale_scale;    // scale of the half-Cauchy priors
}
parameters {
  vector[K] beta;
  real kappa_y;
  vector[K] kappa_x;
  real<lower=0> sigma_y;
  real<lower=0> sigma_pi;
}
model {
  beta ~ normal(0, coef_scale);
  kappa_y ~ normal(0, coef_scale);
  kappa_x ~ normal(0, coef_scale);
  sigma_y ~ cauchy(0, scale_scale);
  sigma_pi ~ cauchy(0, scale_scale);
  {
    vector[N] mu = X * beta;
    vector[N] xk = X * kappa_x;
    vector[N] zy = (ly - mu) / sigma_y;
    vector[N] zp = (lpi - kappa_y * ly - xk) / sigma_pi;
    real c = 0.5 * log(2 * pi());
    vector[N] lp = (-c - log(sigma_y) - 0.5 * square(zy))
                   + (-c - log(sigma_pi) - 0.5 * square(zp))
                   - (xk + kappa_y * mu + 0.5 * (square(kappa_y * sigma_y) + square(sigma_pi)));
    target += dot_product(alpha, lp);
  }
}
