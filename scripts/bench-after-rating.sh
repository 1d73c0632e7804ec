#!/usr/bin/env bash
# The first /leaderboard and the first owner's dashboard after a rating that finishes a target
# (issue 43: 2), on study L (40,000 targets, 5,000 fully rated) and on a quarter of it (10,000
# targets, 1,250 fully rated), 20 ratings each page (scripts/bench-after-rating.py).
#
#   scripts/bench-after-rating.sh [WORK_DIR]     # default target/bench
#
# Every pooled pair of the rated targets is rated but one pair of each of 40 of them, held
# back: the bench gives them one by one through the rating form, each finishing its target.
# Prints the JSON lines of the bench per study; the studies are made once and copied afresh
# for every run (the held pairs are rated by the run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$root/target/bench}
bin=${PAPERJUDGE_BIN:-$root/target/release/paperjudge}
synth=${PAPERJUDGE_SYNTH:-$root/target/release/paperjudge-synth}
mkdir -p "$work"

for case in "quarter 10000 1250" "l 40000 5000"; do
    set -- $case
    name=$1 papers=$2 rated=$3
    data=$work/after-rating-$name
    study=$work/after-rating-$name.db
    if [ ! -f "$study.done" ]; then
        "$synth" --size l --seed 1 --papers "$papers" --ratings all --rated-targets "$rated" \
            --out "$data"
        # One pair of each of the last 40 rated targets held back (the last of its rows).
        python3 - "$data/ratings.csv" "$data/kept.csv" "$data/held.csv" <<'EOF'
import csv, sys
source, kept, held = sys.argv[1:4]
with open(source) as lines:
    rows = list(csv.DictReader(lines))
targets = list(dict.fromkeys(row["target"] for row in rows))[-40:]
last = {row["target"]: index for index, row in enumerate(rows) if row["target"] in targets}
fields = ["target", "paper", "stars"]
with open(kept, "w", newline="") as k, open(held, "w", newline="") as h:
    kw, hw = csv.DictWriter(k, fields), csv.DictWriter(h, fields)
    kw.writeheader(), hw.writeheader()
    for index, row in enumerate(rows):
        (hw if last.get(row["target"]) == index else kw).writerow(row)
EOF
        rm -f "$study" "$study"-*
        "$bin" --db "$study" import papers "$data/papers.csv"
        "$bin" --db "$study" import recommendations "$data/recommendations.csv"
        "$bin" --db "$study" import ratings "$data/kept.csv"
        touch "$study.done"
    fi
    run=$work/after-rating-$name.run.db
    rm -f "$run" "$run"-*
    sqlite3 "$study" ".backup '$run'"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$bin" --db "$run" serve --addr "127.0.0.1:$port" 2>"$work/after-rating-$name.log" &
    server=$!
    for _ in $(seq 100); do
        curl -s -o /dev/null "http://127.0.0.1:$port/" && break
        sleep 0.1
    done
    echo "study $name ($papers targets, $rated fully rated):"
    # The server's CPU time (user + system, clock ticks) over the run: less moved by other
    # work on the machine than the wall times.
    cpu() { awk '{ print $14 + $15 }' "/proc/$server/stat"; }
    before=$(cpu)
    python3 "$root/scripts/bench-after-rating.py" "http://127.0.0.1:$port" "$run" "$data/held.csv"
    echo "server CPU over the 40 ratings and their views: $(( ($(cpu) - before) * 1000 / $(getconf CLK_TCK) )) ms"
    grep VmHWM "/proc/$server/status"
    kill "$server"
    wait "$server" 2>/dev/null || true
done
