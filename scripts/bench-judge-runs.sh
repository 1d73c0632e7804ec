#!/usr/bin/env bash
# Judge runs beside raters (issue 39), written to their section of BENCHMARKS.md:
#  (a) a judge run over every pooled pair of a synthetic study (study S's 2,000 papers with 90
#      targets, about 2,400 pairs)
#      at concurrency 16 and 64, from the browser (in the server's process) and from the
#      command line (a process of its own), against a stand-in endpoint that answers each
#      request after DELAY_MS (100 ms), all at once, as a batching server does
#      (scripts/stand_in_judge.py); meanwhile one rater rates, one rating after another, and
#      each rating's time to its answer is measured, beside the same ratings with no run;
#  (b) the server's memory while three runs from the browser at concurrency 64, one after
#      another, meet an endpoint whose every other reply is endless: its resident memory
#      (VmRSS) before, its peak (VmHWM) after, and /healthz still answered; and the peak memory
#      of `paperjudge judge --timeout 8` against it.
# Called by scripts/bench.sh (`BENCH=judge-runs scripts/bench.sh` runs it alone) with
# PAPERJUDGE_BIN and PAPERJUDGE_SYNTH set; builds them in release mode when run alone.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$root/target/bench/judge-runs
mkdir -p "$work"
if [ -z "${PAPERJUDGE_BIN:-}" ]; then
    cargo build --release -p paperjudge -p paperjudge-synth
fi
bin=${PAPERJUDGE_BIN:-$root/target/release/paperjudge}
synth=${PAPERJUDGE_SYNTH:-$root/target/release/paperjudge-synth}
delay=${DELAY_MS:-100}

echo "== judge runs beside raters"
data=$work/study-s
[ -f "$data/recommendations.csv" ] || "$synth" --size s --seed 7 --targets 90 --out "$data"
db=$work/runs.db
rm -f "$db" "$db"-*
"$bin" --db "$db" import papers "$data/papers.csv" 2>/dev/null
"$bin" --db "$db" import recommendations "$data/recommendations.csv" 2>/dev/null
pairs=$(sqlite3 "$db" "SELECT COUNT(*) FROM pool o JOIN targets t ON t.target_id = o.target_id WHERE t.active = 1")
target=$(sqlite3 "$db" "SELECT target_id FROM targets WHERE active = 1 ORDER BY order_key, target_id LIMIT 1")
papers=$(sqlite3 "$db" "SELECT group_concat(p.external_id) FROM pool o JOIN papers p ON p.id = o.paper_id WHERE o.target_id = $target")

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
started=()
trap 'kill "${started[@]}" 2>/dev/null || true' EXIT
serve() {
    serve_port=$(free_port)
    "$bin" --db "$db" serve --addr "127.0.0.1:$serve_port" 2>>"$work/serve.log" &
    server=$!
    started+=("$server")
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$serve_port/healthz" >/dev/null && break; sleep 0.1; done
}
stand_in() {
    judge_port=$(free_port)
    python3 scripts/stand_in_judge.py "$judge_port" "$@" &
    stand_in_pid=$!
    started+=("$stand_in_pid")
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$judge_port/v1/models" >/dev/null && break; sleep 0.1; done
}

echo "-- (a) $pairs pairs at concurrency 16 and 64, ratings meanwhile"
stand_in grade "$delay"
serve
measure="python3 scripts/bench-judge-runs.py http://127.0.0.1:$serve_port $target $papers"
endpoint="http://127.0.0.1:$judge_port/v1"
: > "$work/results.jsonl"
$measure baseline 300 >> "$work/results.jsonl"
for concurrency in 16 64; do
    $measure browser "$concurrency" "browser-$concurrency" "$endpoint" >> "$work/results.jsonl"
    $measure cli "$concurrency" "cli-$concurrency" "$endpoint" "$bin" "$db" >> "$work/results.jsonl"
done
$measure baseline 300 >> "$work/results.jsonl"
kill "$server" "$stand_in_pid"
wait "$server" "$stand_in_pid" 2>/dev/null || true

echo "-- (b) an endless reply"
stand_in endless
serve
awk '/VmRSS/ {print $2}' "/proc/$server/status" > "$work/endless-before.kb"
session=$work/endless-session
curl -s -c "$session" "http://127.0.0.1:$serve_port/judges" > "$work/judges.html"
token=$(grep -o 'name="csrf_token" value="[^"]*"' "$work/judges.html" | head -1 | sed 's/.*value="//; s/"$//')
: > "$work/endless-runs.txt"
for run in 1 2 3; do
    location=$(curl -s -b "$session" -o /dev/null -w '%{redirect_url}' \
        --data-urlencode "csrf_token=$token" --data-urlencode "endpoint=http://127.0.0.1:$judge_port/v1" \
        --data-urlencode "model=stand-in" --data-urlencode "name=endless-$run" --data-urlencode "concurrency=64" \
        "http://127.0.0.1:$serve_port/judges/run")
    for _ in $(seq 600); do
        state=$(curl -s "$location.json")
        echo "$state" | grep -q '"state":"running"' || break
        sleep 0.2
    done
    echo "$state" >> "$work/endless-runs.txt"
done
awk '/VmHWM/ {print $2}' "/proc/$server/status" > "$work/endless-peak.kb"
curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$serve_port/healthz" > "$work/endless-healthz"
/usr/bin/time -f %M -o "$work/endless-cli.kb" "$bin" --db "$db" judge --endpoint "http://127.0.0.1:$judge_port/v1" \
    --model stand-in --name endless-cli --concurrency 64 --timeout 8 2> "$work/endless-cli.txt" || true
kill "$server" "$stand_in_pid"
wait "$server" "$stand_in_pid" 2>/dev/null || true

python3 - "$work" "$pairs" "$delay" <<'PY' | python3 scripts/benchmarks_section.py
import datetime, json, sys
work, pairs, delay = sys.argv[1], int(sys.argv[2]), sys.argv[3]
results = [json.loads(line) for line in open(f"{work}/results.jsonl")]
lines = ["## Judge runs beside raters (`BENCH=judge-runs`)", ""]
lines += [
    "(a) A judge run over every pooled pair of a synthetic study (`paperjudge-synth --size s --seed 7",
    "--targets 90`: 2,000 papers, 8 models' lists of 20, 90 targets, %s pooled pairs) against a" % f"{pairs:,}",
    "stand-in endpoint that answers every request after %s ms, as many at once as it is sent" % delay,
    "(scripts/stand_in_judge.py, as a batching server such as vLLM or",
    "`llama-server --parallel N` does), at concurrency 16 and 64, started from the browser (the run",
    "in the server's process, its grades written in turns with the ratings) and from the command",
    "line (a process of its own, beside the server). Meanwhile one rater rates the first target's",
    "pool, one rating after another (10 ms between an answer and the next rating), through the",
    "rating page's form as its script sends it; each rating's time to its answer, beside 300",
    "ratings with no run before and after. Every rating was answered 200. `scripts/bench-judge-runs.sh`",
    "on the shared 2-core machine, %s UTC; load averages before each case in the table. Before" % (
        datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M")),
    "issue 39's change, a run at concurrency 10 or more starved the study's connections: it",
    "stopped after about 30 s (\"pool timed out while waiting for an open connection\"), and a",
    "rating meanwhile waited as long or failed (tests/it/judges_attack.rs, seen on that code).",
    "",
    "| case | what the run said | ratings during it | median | 95th percentile | worst | load before |",
    "| --- | --- | --- | --- | --- | --- | --- |",
]
for r in results:
    case = "no run" if r["mode"] == "baseline" else "%s, concurrency %d" % (
        "from the browser" if r["mode"] == "browser" else "from the command line", r["concurrency"])
    said = r.get("said", "").replace("|", "\\|")
    lines.append("| %s | %s | %d | %.1f ms | %.1f ms | %.1f ms | %.2f |" % (
        case, ("`%s`" % said) if said else "", r["ratings"], r["median_ms"], r["p95_ms"], r["max_ms"],
        r["load_before"]))
before = int(open(f"{work}/endless-before.kb").read())
peak = int(open(f"{work}/endless-peak.kb").read())
cli = int(open(f"{work}/endless-cli.kb").read().split()[-1])
healthz = open(f"{work}/endless-healthz").read().strip()
runs = [json.loads(line) for line in open(f"{work}/endless-runs.txt") if line.strip()]
lines += [
    "",
    "(b) An endpoint whose every other reply is endless (200, then chunks of 64 KiB of spaces as",
    "fast as they are read, never ending; the other replies grades): three runs from the browser",
    "at concurrency 64 over the study's every pair, one after another, on a server started for",
    "them. A reply is read to 256 KiB at most, then counted as a failed request (ten in a row stop",
    "a run). The server's resident memory (`/proc/PID/status`): VmRSS %.1f MB before the runs, peak" % (
        before / 1024),
    "(VmHWM) %.1f MB after them, %.1f MB above the start (the goal: under 100 MB above it);" % (
        peak / 1024, (peak - before) / 1024),
    "`/healthz` then answered %s. Each run said:" % healthz,
    "",
]
for r in runs:
    lines.append("- `%s`" % r.get("summary", "").replace("`", "'"))
lines += [
    "",
    "`paperjudge judge --concurrency 64 --timeout 8` against it, a process of its own: peak resident",
    "memory %.1f MB (`/usr/bin/time -f %%M`); before the cap, the command line grew to 6 GB." % (cli / 1024),
]
print("\n".join(lines))
PY
