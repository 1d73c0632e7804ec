//! The prediction-powered estimates against the PPI++ authors' package `ppi_py` and Student's
//! t against SciPy, on fixed inputs (tests/fixtures/prediction_powered, made by its
//! reference.py, which states where the two sets of conventions meet).

use paperjudge::metrics::{estimate_mean, estimate_mean_with, t_quantile, t_two_sided_p, Judged};
use serde::Deserialize;

const TOLERANCE: f64 = 1e-9;

#[derive(Deserialize)]
struct Reference {
    z_975: f64,
    ppi: Vec<PpiCase>,
    t_two_sided: Vec<TailCase>,
    t_quantile: Vec<QuantileCase>,
}

#[derive(Deserialize)]
struct PpiCase {
    name: String,
    rated_raters: Vec<f64>,
    rated_judge: Vec<f64>,
    judged_only: Vec<f64>,
    tuned: Tuned,
    given_lambda: f64,
    given: Given,
}

#[derive(Deserialize)]
struct Tuned {
    estimate: f64,
    lambda_disjoint: f64,
    ci: [f64; 2],
}

#[derive(Deserialize)]
struct Given {
    estimate: f64,
    ci: [f64; 2],
}

#[derive(Deserialize)]
struct TailCase {
    df: f64,
    t: f64,
    two_sided: f64,
}

#[derive(Deserialize)]
struct QuantileCase {
    df: f64,
    p: f64,
    quantile: f64,
}

fn reference() -> Reference {
    let text = include_str!("../fixtures/prediction_powered/reference.json");
    serde_json::from_str(text).expect("the fixture parses")
}

fn targets(case: &PpiCase) -> Vec<Judged> {
    let rated = (case.rated_raters.iter().zip(&case.rated_judge)).map(|(&y, &f)| Judged {
        judge: f,
        raters: Some(y),
    });
    let judged_only = case.judged_only.iter().map(|&f| Judged {
        judge: f,
        raters: None,
    });
    rated.chain(judged_only).collect()
}

/// ppi_py's normal interval from paperjudge's parts: its variances have ddof 0.
fn ppi_py_interval(estimate: &paperjudge::metrics::PredictionPowered, z: f64) -> [f64; 2] {
    let (n, total) = (estimate.rated as f64, estimate.judged as f64);
    let m = total - n;
    let disjoint = estimate.lambda * m / total;
    let variance = estimate.rectifier_variance * (n - 1.0) / n / n
        + disjoint * disjoint * estimate.judge_variance * (m - 1.0) / m / m;
    let half = z * variance.sqrt();
    [estimate.estimate - half, estimate.estimate + half]
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= TOLERANCE
}

#[test]
fn agrees_with_ppi_py_tuned_and_given() {
    let reference = reference();
    assert_eq!(reference.ppi.len(), 5);
    for case in &reference.ppi {
        let sample = targets(case);
        let (n, total) = (case.rated_raters.len(), sample.len());
        let tuned = estimate_mean(&sample).unwrap();
        let disjoint = tuned.lambda * (total - n) as f64 / total as f64;
        assert!(
            close(tuned.estimate, case.tuned.estimate)
                && close(disjoint, case.tuned.lambda_disjoint),
            "{}: {tuned:?}",
            case.name
        );
        let [low, high] = ppi_py_interval(&tuned, reference.z_975);
        assert!(
            close(low, case.tuned.ci[0]) && close(high, case.tuned.ci[1]),
            "{}: [{low}, {high}] against ppi_py's {:?}",
            case.name,
            case.tuned.ci
        );
        let given = estimate_mean_with(&sample, Some(case.given_lambda)).unwrap();
        assert_eq!(given.lambda, case.given_lambda);
        let [low, high] = ppi_py_interval(&given, reference.z_975);
        assert!(
            close(given.estimate, case.given.estimate)
                && close(low, case.given.ci[0])
                && close(high, case.given.ci[1]),
            "{}: given λ {}: {given:?}",
            case.name,
            case.given_lambda
        );
        // paperjudge's own interval is the t interval with n − 1 degrees of freedom.
        let t = t_quantile(0.975, (n - 1) as f64);
        assert!((tuned.half_width - t * tuned.standard_error).abs() < 1e-15);
    }
}

#[test]
fn student_t_agrees_with_scipy() {
    let reference = reference();
    for case in &reference.t_two_sided {
        let ours = t_two_sided_p(case.t, case.df);
        // Relative agreement, down to SciPy's own precision in the far tail.
        let error = (ours - case.two_sided).abs();
        assert!(
            error <= 1e-12 * case.two_sided || error <= 1e-300,
            "df {} t {}: {ours} against SciPy's {}",
            case.df,
            case.t,
            case.two_sided
        );
    }
    for case in &reference.t_quantile {
        let ours = t_quantile(case.p, case.df);
        assert!(
            (ours - case.quantile).abs() <= 1e-12 * case.quantile.abs().max(1.0),
            "df {} p {}: {ours} against SciPy's {}",
            case.df,
            case.p,
            case.quantile
        );
    }
}
