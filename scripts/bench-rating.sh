#!/usr/bin/env bash
# The rating page and a rating with the study's guidelines, notes and "can't judge" (issue 40),
# beside the build before them: the demo study rated as the tests rate it, the rating page of
# demo-02 (21 papers), 300 requests one after another over one connection
# (scripts/bench-pages.py), and ratings posted as the page's script posts them (wrk, 16
# connections, 5 s, scripts/bench-rate.lua). The branch is measured without guidelines, with
# guidelines of about 2,000 characters, and with the longest it takes (20,000). Runs alternate
# between the builds, RUNS times (default 3); medians. Prints a Markdown table.
#
#   BEFORE=/path/to/old/paperjudge AFTER=target/release/paperjudge scripts/bench-rating.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# Guidelines of about 2,000 characters, and of 20,000 (the most a study takes).
python3 - "$work" <<'EOF'
import sys
paragraph = ("Rate a paper by what a reader of the target would **use** from it: the same task "
             "or data counts more than a shared method. *Surveys* count as 3 stars at most.\n\n")
with open(f"{sys.argv[1]}/short.md", "w") as out:
    out.write("## Scope\n\n" + paragraph * 8 + "- same task: 3 stars or more\n- [more](/guidelines)\n")
text = "## Scope\n\n" + paragraph * 200
with open(f"{sys.argv[1]}/long.md", "w") as out:
    out.write(text[:20000])
EOF

# Serves a new demo study for `$1` (a binary) with the guidelines `$2` (none, short, long);
# prints its address and pid.
serve() {
    local bin=$1 guidelines=$2 db=$work/$RANDOM.db
    "$bin" --db "$db" import papers src/demo/papers.csv 2>/dev/null
    "$bin" --db "$db" import recommendations src/demo/recommendations.csv 2>/dev/null
    "$bin" --db "$db" import ratings tests/fixtures/verdict/demo-ratings.csv 2>/dev/null
    if [ "$guidelines" != none ]; then
        "$bin" --db "$db" guidelines set "$work/$guidelines.md" 2>/dev/null
    fi
    "$bin" --db "$db" serve --addr 127.0.0.1:0 2>"$db.log" &
    local pid=$!
    for _ in $(seq 200); do
        grep -o 'http://127.0.0.1:[0-9]*' "$db.log" >"$db.url" 2>/dev/null && break
        sleep 0.05
    done
    local target
    target=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT id FROM papers WHERE external_id = ?", ("demo-02",)).fetchone()[0])' "$db")
    echo "$(cat "$db.url") $pid $target $db"
}

# One run of `$1` with guidelines `$2`: page p50 and p95 (ms), page bytes, ratings/s, rating p50
# and p99 (ms).
measure() {
    read -r url pid target db < <(serve "$1" "$2")
    local page="/targets/$target"
    local timing
    timing=$(python3 scripts/bench-pages.py "$url" 300 "$page")
    curl -s -c "$work/cookies" -o "$work/page.html" "$url$page"
    local token browser papers
    token=$(grep -m1 -o 'name="csrf_token" value="[^"]*"' "$work/page.html" | sed 's/.*value="//; s/"$//')
    browser=$(awk '$6 == "paperjudge_browser" {print $7}' "$work/cookies")
    papers=$(grep -o 'data-paper="[^"]*"' "$work/page.html" | sed 's/data-paper="//; s/"$//' | paste -sd, -)
    CSRF_TOKEN=$token BROWSER=$browser PAPERS=$papers wrk -t2 -c16 -d5s --latency \
        -s scripts/bench-rate.lua "$url$page/ratings" >"$work/wrk.txt"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    python3 - "$timing" "$work/wrk.txt" <<'EOF'
import json, re, sys
page = json.loads(sys.argv[1])
text = open(sys.argv[2]).read()
unit = {"us": 0.001, "ms": 1.0, "s": 1000.0}
def pct(p):
    value, u = re.search(p + r"%\s+([\d.]+)(us|ms|s)", text).groups()
    return float(value) * unit[u]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
assert errors is None, f"refused ratings: {errors.group(1)}"
print(page["p50_ms"], page["p95_ms"], page["bytes"], rps, pct("50"), pct("99"))
EOF
}

cases=("before none ${BEFORE:?the build before}" "after none ${AFTER:?the build after}"
       "after short $AFTER" "after long $AFTER")
for run in $(seq "$runs"); do
    for case in "${cases[@]}"; do
        read -r name guidelines bin <<<"$case"
        echo "$(measure "$bin" "$guidelines")" >>"$work/$name-$guidelines.txt"
    done
done
load=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$work" "$runs" "$load" <<'EOF'
import statistics, sys
work, runs, load = sys.argv[1:4]
rows = [("before", "none", "main before issue 40, no guidelines"),
        ("after", "none", "issue 40, no guidelines"),
        ("after", "short", "issue 40, guidelines of 2,000 characters"),
        ("after", "long", "issue 40, guidelines of 20,000 characters")]
print(f"Medians of {runs} runs; load average {load} (1, 5, 15 min) on the machine's 2 cores.\n")
print("| build | page median | page 95th pct. | page bytes | ratings/s | rating median | rating 99th pct. |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for name, guidelines, label in rows:
    values = [list(map(float, line.split())) for line in open(f"{work}/{name}-{guidelines}.txt")]
    m = [statistics.median(column) for column in zip(*values)]
    print(f"| {label} | {m[0]:.2f} ms | {m[1]:.2f} ms | {int(m[2])} | {m[3]:.0f} | {m[4]:.2f} ms | {m[5]:.2f} ms |")
EOF
