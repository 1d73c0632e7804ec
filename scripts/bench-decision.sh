#!/usr/bin/env bash
# The verdict (issue 22): how its betting strategy was chosen (examples/betting.rs), the ratings
# a decision takes and how often it is wrong (`paperjudge simulate`, 200 seeds, with and
# without pruning, replayed and resampled), and pruning through the product: study S rated as
# a rater following `paperjudge next` does. On paperjudge-synth's study S fully rated and on
# the demo rated by scripts/rate_demo.py (tests/fixtures/verdict/demo-ratings.csv). Puts its section in BENCHMARKS.md. Run by
# scripts/bench.sh, or alone after `cargo build --release -p paperjudge -p paperjudge-synth`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=${PAPERJUDGE_BIN:-$root/target/release/paperjudge}
synth=${SYNTH_BIN:-$root/target/release/paperjudge-synth}
work=$root/target/bench/decision
rm -rf "$work" && mkdir -p "$work"

"$synth" --size s --ratings all --out "$work/s" >/dev/null
"$bin" --db "$work/s.db" import papers "$work/s/papers.csv" 2>/dev/null
"$bin" --db "$work/s.db" import recommendations "$work/s/recommendations.csv" 2>/dev/null
"$bin" --db "$work/s.db" import ratings "$work/s/ratings.csv" 2>/dev/null

"$bin" --db "$work/demo.db" import papers src/demo/papers.csv 2>/dev/null
"$bin" --db "$work/demo.db" import recommendations src/demo/recommendations.csv 2>/dev/null
# The demo's ratings by scripts/rate_demo.py as the tests have them (its noise follows the
# pool's blind order, which each import draws anew).
"$bin" --db "$work/demo.db" import ratings tests/fixtures/verdict/demo-ratings.csv 2>/dev/null

cargo run --quiet --release --example betting 200 > "$work/betting.md"
for study in s demo; do
    "$bin" --db "$work/$study.db" leaderboard --format json > "$work/$study-board.json"
    "$bin" --db "$work/$study.db" simulate --seeds 200 --prune --format json > "$work/$study-replay.json"
    "$bin" --db "$work/$study.db" simulate --seeds 200 --prune --resample --targets 300 --format json > "$work/$study-resample.json"
done
for prune in off on; do
    rm -f "$work/next-$prune.db"*
    "$bin" --db "$work/next-$prune.db" import papers "$work/s/papers.csv" 2>/dev/null
    "$bin" --db "$work/next-$prune.db" import recommendations "$work/s/recommendations.csv" 2>/dev/null
    "$bin" --db "$work/next-$prune.db" prune "$prune" >/dev/null
    python3 scripts/rate_in_next_order.py "$bin" "$work/next-$prune.db" "$work/s/ratings.csv" > "$work/next-$prune.json"
    "$bin" --db "$work/next-$prune.db" status --format json > "$work/next-$prune-status.json"
done

python3 - "$work" <<'PY' | python3 scripts/benchmarks_section.py
import json, sys
work = sys.argv[1]
load = lambda name: json.load(open(f"{work}/{name}"))
print("## The verdict: choosing its bets, ratings to a decision, pruning\n")
print("Measured by `scripts/bench-decision.sh`. The verdict's confidence sequences are for the")
print("mean per-target NDCG difference over the library the targets stand for (i.i.d. targets),")
print("95% for all pairs of models at once (docs/metrics.md, \"The verdict\").\n")
print("### The betting strategy (`cargo run --release --example betting 200`)\n")
print("Targets each candidate sequence took to separate a difference from 0 (median and 90th")
print("percentile of 200 simulated studies), at the level one pair gets among the models named;")
print("the last column counts studies of two equal models that ever excluded 0 (at most 5% allowed).\n")
print(open(f"{work}/betting.md").read().split("\n", 2)[2].strip())
print("\naGRAPA bets truncated at 0.9 separate as fast as any candidate in every scenario, and")
print("are the verdict's. The confseq default (plug-in, truncation 0.5) takes about half as many")
print("targets again.\n")
print("### The verdict on the fully rated studies, beside the table\n")
print("| study | targets | leader | out | open (how far below the leader at most) | tied in the table (p Holm >= 0.05) |")
print("| --- | --- | --- | --- | --- | --- |")
names = {"s": "`paperjudge-synth --size s --ratings all`", "demo": "demo, rated by scripts/rate_demo.py"}
for study in ["s", "demo"]:
    board = load(f"{study}-board.json")
    d = board["decision"]
    below = {s["model"]: -s["low"] for s in d["sequences"]}
    open_ = ", ".join(f"{m} ({below[m]:.2f})" for m in d["open"])
    tied = ", ".join(r["model"] for r in board["models"] if (r["p_value_holm"] or 0) >= 0.05) or "none"
    print(f"| {names[study]} | {d['targets_rated']} | {d['leader']} | {', '.join(d['out']) or 'none'} | {open_} | {tied} |")
print("\n### Ratings to a decision (`paperjudge simulate --seeds 200 --prune`)\n")
print("Median and 90th percentile (nearest rank) of the ratings and targets to the first decision")
print("(all of them when none came); wrong: a best model ruled out, or another declared best;")
print("saved: the median of what pruning saved on the same draws. Replayed: the study's own")
print("targets in a random order. Resampled (`--resample --targets 300`): 300 targets drawn with")
print("replacement from the study's, a library whose truth is the study's means.\n")
print("| study | draws | pruning | decided | ratings | p90 | targets | p90 | wrong | saved |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for study in ["s", "demo"]:
    for kind in ["replay", "resample"]:
        report = load(f"{study}-{kind}.json")
        for row in report["orders"]:
            saved = "-" if row["ratings_saved_median"] is None else str(row["ratings_saved_median"])
            print(f"| {names[study]} ({report['targets']} targets, {report['ratings']} ratings) | {'resampled' if row['resample'] else 'replayed'} | {'on' if row['prune'] else 'off'} | {row['decided']} of {row['runs']} | {row['ratings_median']} | {row['ratings_p90']} | {row['targets_median']} | {row['targets_p90']} | {100 * row['wrong_rate']:.1f}% | {saved} |")
print("\n### Pruning through the product\n")
print("Study S's papers and lists, rated as a rater following `paperjudge next` does")
print("(`scripts/rate_in_next_order.py`: the next target, every pair of its pool from the study's")
print("ratings, again), with pruning off and on.\n")
print("| pruning | targets rated | ratings | models pruned at the end |")
print("| --- | --- | --- | --- |")
for prune in ["off", "on"]:
    done = load(f"next-{prune}.json")
    status = load(f"next-{prune}-status.json")
    print(f"| {prune} | {done['targets']} | {done['ratings']} | {', '.join(status['pruned_models']) or 'none'} |")
PY
