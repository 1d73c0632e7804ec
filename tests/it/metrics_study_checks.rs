//! The study checks' statistics against scikit-learn's quadratic-weighted kappa and SciPy's
//! Kendall tau-b on fixed inputs (tests/fixtures/study_checks, made by its reference.py).

use paperjudge::domain::Stars;
use paperjudge::metrics::{kendall_tau_b, quadratic_weighted_kappa, ConfusionMatrix};
use serde::Deserialize;

const TOLERANCE: f64 = 1e-12;

#[derive(Deserialize)]
struct Reference {
    kappa: Vec<KappaCase>,
    kendall_tau_b: Vec<KendallCase>,
}

#[derive(Deserialize)]
struct KappaCase {
    name: String,
    then: Vec<i64>,
    now: Vec<i64>,
    kappa: f64,
}

#[derive(Deserialize)]
struct KendallCase {
    name: String,
    first: Vec<f64>,
    second: Vec<f64>,
    tau_b: f64,
}

fn reference() -> Reference {
    let text = include_str!("../fixtures/study_checks/reference.json");
    serde_json::from_str(text).expect("the fixture parses")
}

#[test]
fn kappa_agrees_with_scikit_learn() {
    for case in reference().kappa {
        let pairs: Vec<(Stars, Stars)> = (case.then.iter().zip(&case.now))
            .map(|(&then, &now)| (Stars::new(then).unwrap(), Stars::new(now).unwrap()))
            .collect();
        let confusion = ConfusionMatrix::of(&pairs);
        let kappa = quadratic_weighted_kappa(&confusion.counts).expect("defined");
        assert!(
            (kappa - case.kappa).abs() <= TOLERANCE,
            "{}: {kappa} against scikit-learn's {}",
            case.name,
            case.kappa
        );
        let exact = (case.then.iter().zip(&case.now))
            .filter(|(then, now)| then == now)
            .count();
        assert_eq!(
            confusion.agreement_within(0),
            Some(exact as f64 / pairs.len() as f64)
        );
        assert_eq!(confusion.pairs(), pairs.len() as u64);
    }
}

#[test]
fn kendall_tau_b_agrees_with_scipy() {
    for case in reference().kendall_tau_b {
        let tau = kendall_tau_b(&case.first, &case.second).expect("defined");
        assert!(
            (tau - case.tau_b).abs() <= TOLERANCE,
            "{}: {tau} against SciPy's {}",
            case.name,
            case.tau_b
        );
    }
}
