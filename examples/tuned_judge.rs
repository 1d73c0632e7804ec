//! A judge chosen on rated targets (docs/metrics.md, "A judge chosen on rated targets"): the
//! coverage and width of the prediction-powered 95% interval when the judge's prompt was picked
//! among 1, 5, 20 or 50 by its agreement with the raters on a tuning set of 10 rated targets,
//! and those targets then also correct it (reused) or are left out of the rated ones (judged
//! only), on a synthetic library of known truth (`paperjudge::simulation::judged_library`).
//!
//!     cargo run --release --example tuned_judge [studies]
//!
//! Prints a Markdown table per quantity: a pair's mean NDCG difference and the leader's mean
//! NDCG, 300 judged targets, 35 rated, 10 of them tuning.

use paperjudge::simulation::judged_library::{Judge, JudgedLibrary, LibrarySpec};
use paperjudge::simulation::tuned_judge::{simulate, Rule, TunedSpec};

/// A number of a target from its models' values: a model's NDCG, a pair's difference.
type Quantity = fn(&[f64]) -> f64;

/// The four models' skills: m1 is 0.10 below the leader.
const SKILLS: [f64; 4] = [1.0, 0.64, 0.4, 0.1];

fn main() {
    let studies: usize = (std::env::args().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(4_000);
    let library = JudgedLibrary::new(&LibrarySpec {
        targets: 2_000,
        candidates: 30,
        skills: SKILLS.to_vec(),
        k: 8,
        judge: Judge::Noisy {
            noise: 0.55,
            lenience: 1.0,
        },
        seed: 31,
    });
    let spec = TunedSpec {
        judged: 300,
        rated: 35,
        tuning: 10,
        prompts: vec![1, 5, 20, 50],
        prompt_noise: 0.5,
        studies,
        seed: 41,
    };
    println!("library kappa {:.2}, {studies} studies\n", library.kappa);
    let quantities: [(&str, Quantity); 2] = [
        ("m0 − m1 (a pair's difference)", |v| v[0] - v[1]),
        ("m0 (the leader's NDCG)", |v| v[0]),
    ];
    for (name, value) in quantities {
        println!("{name}\n");
        println!("| prompts | tuning targets | coverage | mean half-width |");
        println!("| --- | --- | --- | --- |");
        for row in simulate(&library, &spec, value) {
            let rule = match row.rule {
                Rule::Reused => "reused",
                Rule::LeftOut => "left out",
            };
            println!(
                "| {} | {rule} | {:.3} | {:.4} |",
                row.prompts, row.coverage, row.mean_half_width
            );
        }
        println!();
    }
}
