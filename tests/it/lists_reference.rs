//! The overlap of two ranked lists against independent implementations on fixed data
//! (tests/fixtures/lists, made by its reference.py): extrapolated rank-biased overlap against
//! the `rbo` package's `RankingSimilarity(a, b).rbo_ext(p)`, Jaccard against a direct
//! computation, each to 1e-9, on lists of equal and unequal length, without ties, and empty.

use paperjudge::lists::{Overlap, Persistence};
use serde::Deserialize;

#[derive(Deserialize)]
struct Reference {
    package: String,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    a: Vec<String>,
    b: Vec<String>,
    p: f64,
    /// What paperjudge must answer: the package's value but for two empty lists.
    rbo: Option<f64>,
    package_rbo: f64,
    jaccard: Option<f64>,
}

fn reference() -> Reference {
    let text = include_str!("../fixtures/lists/reference.json");
    serde_json::from_str(text).expect("the fixture parses")
}

fn close(ours: Option<f64>, theirs: Option<f64>) -> bool {
    match (ours, theirs) {
        (Some(ours), Some(theirs)) => (ours - theirs).abs() <= 1e-9,
        (None, None) => true,
        _ => false,
    }
}

#[test]
fn rbo_and_jaccard_equal_the_reference_on_every_case() {
    let reference = reference();
    assert_eq!(reference.package, "rbo 0.1.3");
    assert!(reference.cases.len() > 300);
    let (mut unequal, mut one_empty, mut long) = (0, 0, 0);
    for case in &reference.cases {
        let p = Persistence::new(case.p).expect("p in (0, 1)");
        let overlap = Overlap::of(&case.a, &case.b);
        let rbo = overlap.rbo_ext(p);
        assert!(
            close(rbo, case.rbo),
            "{}: RBO {rbo:?}, expected {:?}",
            case.name,
            case.rbo
        );
        let jaccard = overlap.jaccard();
        assert!(
            close(jaccard, case.jaccard),
            "{}: Jaccard {jaccard:?}, expected {:?}",
            case.name,
            case.jaccard
        );
        // Either order of the two lists gives the same numbers.
        let swapped = Overlap::of(&case.b, &case.a);
        assert!(close(swapped.rbo_ext(p), rbo), "{} swapped", case.name);
        assert!(close(swapped.jaccard(), jaccard), "{} swapped", case.name);
        unequal += usize::from(case.a.len() != case.b.len());
        one_empty += usize::from(case.a.is_empty() != case.b.is_empty());
        long += usize::from(case.a.len().max(case.b.len()) > 12);
    }
    assert!(
        unequal > 100 && one_empty >= 2 && long >= 20,
        "{unequal} {one_empty} {long}"
    );
}

/// The one case where paperjudge departs from the package: two empty lists have no overlap
/// to speak of (the paper's Eq. 32 divides by the shorter list's length), so the target is left
/// out of the pair's mean instead of counting as full agreement.
#[test]
fn two_empty_lists_are_undefined_where_the_package_says_1() {
    let reference = reference();
    let case = (reference.cases.iter())
        .find(|case| case.a.is_empty() && case.b.is_empty())
        .expect("a case of two empty lists");
    assert_eq!(case.package_rbo, 1.0);
    assert_eq!((case.rbo, case.jaccard), (None, None));
    let overlap = Overlap::of::<&str>(&[], &[]);
    assert_eq!(overlap.rbo_ext(Persistence::DEFAULT), None);
    assert_eq!(overlap.jaccard(), None);
}
