//! Student's t distribution: the two-sided tail probability of a t statistic and the
//! quantile a t interval takes, for the prediction-powered estimates (docs/metrics.md,
//! "Prediction-powered estimates"), which are t intervals with |H| − 1 degrees of freedom.
//!
//! P(|T| ≥ t) for ν degrees of freedom is the regularized incomplete beta function
//! I_x(ν/2, 1/2) at x = ν / (ν + t²) (Abramowitz & Stegun 26.7.1 with 26.5.2), computed from its
//! continued fraction by the modified Lentz method (A&S 26.5.8), the log-gamma function by
//! Lanczos' approximation (g = 7, nine terms). The quantile inverts the tail probability by
//! bisection, which is slow next to Newton's method but cannot fail, and a leaderboard needs
//! one quantile per table. Both agree with SciPy's `t.sf` and `t.ppf` to 1e-12 relative
//! (`tests/fixtures/student_t`).

/// Lanczos' coefficients for g = 7 and nine terms.
const LANCZOS: [f64; 9] = [
    0.999_999_999_999_809_9,
    676.520_368_121_885_1,
    -1_259.139_216_722_402_8,
    771.323_428_777_653_1,
    -176.615_029_162_140_6,
    12.507_343_278_686_905,
    -0.138_571_095_265_720_12,
    9.984_369_578_019_572e-6,
    1.505_632_735_149_311_6e-7,
];

/// Lanczos' series A(x) of Γ(x + 1) = √(2π) (x + 7.5)^(x + 0.5) e^−(x + 7.5) A(x).
fn lanczos_series(x: f64) -> f64 {
    (1..LANCZOS.len()).fold(LANCZOS[0], |sum, i| sum + LANCZOS[i] / (x + i as f64))
}

/// ln Γ(x) for x > 0.
fn ln_gamma(x: f64) -> f64 {
    debug_assert!(x > 0.0);
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 − x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    0.5 * std::f64::consts::TAU.ln() + (x + 0.5) * t.ln() - t + lanczos_series(x).ln()
}

/// ln Γ(a) − ln Γ(a + b) for a ≥ 1/2, b > 0, from Lanczos' form with the large terms of the two
/// cancelled by hand: for many degrees of freedom each ln Γ is in the thousands, and their
/// difference taken after rounding would lose ten digits.
fn ln_gamma_ratio(a: f64, b: f64) -> f64 {
    debug_assert!(a >= 0.5 && b > 0.0);
    let (x, t) = (a - 1.0, a + 6.5);
    // (x + ½) ln t − (x + b + ½) ln(t + b) + b = −(x + ½) ln(1 + b/t) − b ln(t + b) + b.
    -(x + 0.5) * (b / t).ln_1p() - b * (t + b).ln()
        + b
        + (lanczos_series(x) / lanczos_series(x + b)).ln()
}

/// ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b).
fn ln_beta(a: f64, b: f64) -> f64 {
    let (small, large) = if a < b { (a, b) } else { (b, a) };
    if large < 0.5 {
        return ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b);
    }
    ln_gamma(small) + ln_gamma_ratio(large, small)
}

/// The regularized incomplete beta function I_x(a, b), given x and y = 1 − x (each computed
/// without the other's rounding).
fn incomplete_beta(x: f64, y: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if y <= 0.0 {
        return 1.0;
    }
    // The continued fraction converges fast for x below (a + 1) / (a + b + 2); above, the
    // symmetry I_x(a, b) = 1 − I_{1−x}(b, a).
    if x > (a + 1.0) / (a + b + 2.0) {
        return 1.0 - incomplete_beta(y, x, b, a);
    }
    let ln_front = a * x.ln() + b * y.ln() - ln_beta(a, b);
    ln_front.exp() * beta_fraction(x, a, b) / a
}

/// The continued fraction 1 / (1 + d₁ / (1 + d₂ / (1 + …))) of I_x(a, b) (A&S 26.5.8), by the
/// modified Lentz method.
fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let guard = |value: f64| if value.abs() < TINY { TINY } else { value };
    let mut c = 1.0;
    let mut d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
    let mut fraction = d;
    for m in 1..=10_000 {
        let m = f64::from(m);
        // The even step d_{2m}, then the odd d_{2m+1}.
        let even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        d = 1.0 / guard(1.0 + even * d);
        c = guard(1.0 + even / c);
        fraction *= d * c;
        let odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        d = 1.0 / guard(1.0 + odd * d);
        c = guard(1.0 + odd / c);
        let step = d * c;
        fraction *= step;
        if (step - 1.0).abs() < 1e-16 {
            break;
        }
    }
    fraction
}

/// P(|T| ≥ |t|) for T of Student's t distribution with `df` degrees of freedom: the
/// two-sided p-value of the statistic t.
///
/// # Panics
/// When `df` is not positive, or `t` is NaN.
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    assert!(df > 0.0, "degrees of freedom {df} are not positive");
    assert!(!t.is_nan(), "a t statistic is a number");
    if t.is_infinite() {
        return 0.0;
    }
    let square = t * t;
    // x = ν / (ν + t²) and 1 − x = t² / (ν + t²), each without cancellation.
    let x = df / (df + square);
    let y = square / (df + square);
    incomplete_beta(x, y, df / 2.0, 0.5).clamp(0.0, 1.0)
}

/// The quantile q of Student's t distribution with `df` degrees of freedom: P(T ≤ q) = `p`.
///
/// # Panics
/// When `p` is not strictly between 0 and 1, or `df` is not positive.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    assert!(p > 0.0 && p < 1.0, "probability {p} is not in (0, 1)");
    assert!(df > 0.0, "degrees of freedom {df} are not positive");
    if p == 0.5 {
        return 0.0;
    }
    // The q ≥ 0 whose two-sided tail is 2·min(p, 1 − p), with the sign of p − 1/2.
    let tail = 2.0 * p.min(1.0 - p);
    let (mut low, mut high) = (0.0_f64, 1.0_f64);
    while t_two_sided_p(high, df) > tail {
        low = high;
        high *= 2.0;
        if high.is_infinite() {
            break;
        }
    }
    // The tail probability decreases in q: halve [low, high] until its ends are neighbours.
    for _ in 0..2_000 {
        let middle = low + (high - low) / 2.0;
        if middle <= low || middle >= high {
            break;
        }
        if t_two_sided_p(middle, df) > tail {
            low = middle;
        } else {
            high = middle;
        }
    }
    let q = low + (high - low) / 2.0;
    if p < 0.5 {
        -q
    } else {
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_degree_of_freedom_is_cauchy() {
        // P(|T| ≥ t) = 1 − 2 atan(t) / π.
        for t in [0.1, 1.0, 3.0, 40.0] {
            let cauchy = 1.0 - 2.0 * f64::atan(t) / std::f64::consts::PI;
            assert!((t_two_sided_p(t, 1.0) - cauchy).abs() < 1e-14, "{t}");
        }
        assert!((t_quantile(0.75, 1.0) - 1.0).abs() < 1e-13);
    }

    #[test]
    fn two_degrees_of_freedom_have_a_closed_form() {
        // P(|T| ≥ t) = 1 − t / sqrt(2 + t²).
        for t in [0.5_f64, 2.0, 10.0] {
            let exact = 1.0 - t / (2.0 + t * t).sqrt();
            assert!((t_two_sided_p(t, 2.0) - exact).abs() < 1e-14, "{t}");
        }
    }

    #[test]
    fn the_quantile_is_odd_and_inverts_the_tail() {
        assert_eq!(t_quantile(0.5, 7.0), 0.0);
        let q = t_quantile(0.975, 19.0);
        assert_eq!(t_quantile(0.025, 19.0), -q);
        assert!((t_two_sided_p(q, 19.0) - 0.05).abs() < 1e-15);
        assert_eq!(t_two_sided_p(0.0, 5.0), 1.0);
        assert_eq!(t_two_sided_p(f64::INFINITY, 5.0), 0.0);
    }

    #[test]
    fn ln_gamma_of_whole_and_half_numbers() {
        assert!(ln_gamma(1.0).abs() < 1e-15);
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-14);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-14);
        assert!((ln_gamma(0.25) - 1.288_022_524_698_077_5).abs() < 1e-14);
        // For many degrees of freedom: ln Γ(2500) − ln Γ(2500.5) = −ln(√π (5000)! / (4^2500 2500! 2499!)),
        // computed exactly with Python's integers and 50-digit decimals.
        let ratio = ln_gamma_ratio(2500.0, 0.5);
        assert!((ratio - -3.911_973_005_428_479_4).abs() < 1e-14, "{ratio}");
        assert!((ln_beta(3.0, 4.0) - (1.0f64 / 60.0).ln()).abs() < 1e-14);
    }
}
