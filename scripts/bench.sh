#!/usr/bin/env bash
# paperjudge's benchmarks, each measured beside its reference in the same run, and written to
# BENCHMARKS.md: medians of several runs (hyperfine) and their ratios, because the machine is
# shared and noisy.
#
#   scripts/bench.sh            # everything, study L (about 10 minutes on 2 cores)
#   RUNS=5 scripts/bench.sh     # more runs per figure
#   BENCH=evaluation scripts/bench.sh   # the evaluation's section (7) alone
#   BENCH=import scripts/bench.sh   # the imports' section (1) alone
#   BENCH=upload scripts/bench.sh   # the browser's upload beside the command line (9) alone
#   BENCH=judges scripts/bench.sh   # machine judges (10) alone: imported grades, a real LLM server
#   BENCH=judge-runs scripts/bench.sh   # judge runs at concurrency 16 and 64 beside raters alone
#   BENCH=lists scripts/bench.sh    # what the lists say on study L (11) alone
#   BENCH=ppi scripts/bench.sh      # the leaderboard with a judge on study L (12) alone
#
# It installs what it needs (hyperfine and sqlite3 from Debian, pytrec_eval-terrier from
# PyPI), builds the app and the study generator (tools/synth) in release mode and generates the
# synthetic study L into target/bench/ once.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
runs=${RUNS:-3}
work=$root/target/bench
mkdir -p "$work"

need_apt=()
command -v hyperfine >/dev/null 2>&1 || need_apt+=(hyperfine)
command -v sqlite3 >/dev/null 2>&1 || need_apt+=(sqlite3)
command -v wrk >/dev/null 2>&1 || need_apt+=(wrk)
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
if [ ${#need_apt[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
python3 -c 'import pytrec_eval' 2>/dev/null || pip install -q pytrec_eval-terrier

cargo build --release -p paperjudge -p paperjudge-synth
bin=$root/target/release/paperjudge
synth=$root/target/release/paperjudge-synth
# ---------------------------------------------------------------------------------------------
# 7. The evaluation (issue 13): study L with 100,000 ratings, every one on a fully rated target,
# so that the default view, which scores fully rated targets only, does the whole work. Its
# figures replace its own part of BENCHMARKS.md. `BENCH=evaluation scripts/bench.sh` runs this
# section alone, without study L's set-up below.
bench_evaluation() {
    echo "== 7. the evaluation: study L with every pooled pair of 3,600 targets rated"
    local full=$work/study-l-full eval=$work/eval-l.db
    if [ ! -f "$full/ratings.csv" ]; then
        "$synth" --size l --seed 1 --ratings all --rated-targets 3600 --out "$full"
    fi
    if [ ! -f "$eval.done" ]; then
        rm -f "$eval" "$eval"-*
        "$bin" --db "$eval" import papers "$full/papers.csv"
        "$bin" --db "$eval" import recommendations "$full/recommendations.csv"
        "$bin" --db "$eval" import ratings "$full/ratings.csv"
        touch "$eval.done"
    fi
    "$bin" --db "$eval" status --format json > "$work/eval-status.json"
    "$bin" --db "$eval" export qrels -o "$work/eval-l.qrels"
    local run_files=()
    for model in 1 2 3 4 5 6 7 8; do run_files+=("$full/runs/model-$model.run"); done
    hyperfine --runs "$runs" --warmup 1 --export-json "$work/eval-cli.json" \
        -n paperjudge "$bin --db $eval leaderboard --format json" \
        -n pytrec_eval "python3 $root/scripts/pytrec_ndcg.py $work/eval-l.qrels ${run_files[*]}" \
        -n "paperjudge --recompute" "$bin --db $eval leaderboard --format json --recompute"
    cut -d' ' -f1 /proc/loadavg > "$work/eval-cli.load"

    local port server target_key paper
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$bin" --db "$eval" serve --addr "127.0.0.1:$port" 2>"$work/eval-serve.log" &
    server=$!
    trap 'kill $server 2>/dev/null || true' EXIT
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
    target_key=$(sqlite3 "$eval" "SELECT target_id FROM targets WHERE active = 1 AND rated = pooled AND rated > 0 ORDER BY target_id LIMIT 1")
    paper=$(sqlite3 "$eval" "SELECT p.external_id FROM pool JOIN papers p ON p.id = pool.paper_id WHERE pool.target_id = $target_key ORDER BY pool.sort_key LIMIT 1")
    python3 "$root/scripts/bench-evaluation.py" "http://127.0.0.1:$port" "$target_key" "$paper" \
        "${PAGE_REQUESTS:-200}" "${CHANGES:-10}" > "$work/eval-pages.jsonl"
    awk '/VmHWM/ {print $2}' "/proc/$server/status" > "$work/eval-serve.peak"
    kill "$server"
    trap - EXIT

    python3 - "$work" "$runs" "${PAGE_REQUESTS:-200}" <<'PY' | python3 scripts/benchmarks_section.py
import datetime, json, sys
work, runs, requests = sys.argv[1:4]
status = json.load(open(f"{work}/eval-status.json"))
cli = json.load(open(f"{work}/eval-cli.json"))["results"]
# After the warm-up, the command prints the output it kept for the study's revision;
# `--recompute` is the first call after a change: the whole evaluation.
board_s, pytrec_s, fresh_s = cli[0]["median"], cli[1]["median"], cli[2]["median"]
cli_load = open(f"{work}/eval-cli.load").read().strip()
pages = [json.loads(line) for line in open(f"{work}/eval-pages.jsonl")]
after = pages.pop()
peak_mb = int(open(f"{work}/eval-serve.peak").read()) / 1024
lines = ["## The evaluation on study L: 100,000 ratings over fully rated targets", ""]
lines += [
    "Study L's papers and lists with every pooled pair of its first %d targets rated" % status["targets_finished"],
    "(`paperjudge-synth --size l --seed 1 --ratings all --rated-targets 3600`: %d rated pairs of" % status["rated_pairs"],
    "%d pooled, %d targets partly rated), so that the default view, which scores fully rated" % (status["pooled_pairs"], status["targets_partly_rated"]),
    "targets only, does the whole work. Measured %s UTC; the load average (1 minute, 2 cores" % datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"),
    "shared with other work) is given with each figure.", "",
    "| what | paperjudge | reference | ratio | goal | load |",
    "| --- | --- | --- | --- | --- | --- |",
    "| `leaderboard --format json` (whole process) vs pytrec_eval ndcg_cut_8 of the 8 runs from TREC files on the same qrels (whole process), medians of %s runs | %.3f s | %.2f s | %.1fx faster | at least 20x: %s | %s |" % (
        runs, board_s, pytrec_s, pytrec_s / board_s, "met" if pytrec_s / board_s >= 20 else "MISSED", cli_load),
    "| the same, computed afresh (`--recompute`: the first call after a change) | %.3f s | %.2f s | %.1fx faster | | %s |" % (
        fresh_s, pytrec_s, pytrec_s / fresh_s, cli_load),
]
for page in pages:
    lines.append("| `%s` (%d bytes): first load %.1f ms, then %s requests | median %.2f ms, 95th percentile %.2f ms, max %.2f ms | | | p95 under 100 ms: %s | %s |" % (
        page["path"], page["bytes"], page["first_ms"], requests, page["p50_ms"], page["p95_ms"], page["max_ms"],
        "met" if page["p95_ms"] < 100 else "MISSED", page["load"]))
ratio = after["first_median_ms"] / 1000 / board_s
lines.append("| `/leaderboard`, first load after a rating (median of %d ratings; the load after it %.2f ms) | %.1f ms (max %.1f ms) | the CLI above: %.1f ms | %.2fx the CLI | at most 1.5x: %s | %s |" % (
    after["changes"], after["then_median_ms"], after["first_median_ms"], after["first_max_ms"], board_s * 1000, ratio,
    "met" if ratio <= 1.5 else "MISSED", after["load"]))
lines.append("| peak memory of the server through all of the above (VmHWM) | %.1f MB | | | under 100 MB: %s | |" % (
    peak_mb, "met" if peak_mb < 100 else "MISSED"))
print("\n".join(lines))
PY
}
if [ "${BENCH:-all}" = evaluation ]; then
    bench_evaluation
    exit 0
fi

# ---------------------------------------------------------------------------------------------
# 11. What the lists say (issue 34): `paperjudge lists --include-partial` on study L (8 models;
# every one of its 40,000 papers a target, since none is chosen, and none fully rated: the
# owner's view with the targets still being rated, which reads every list; issue 39), whole
# processes, and `/lists?partial=include` served from what
# the study keeps: its first load, then requests one after another, then its loads right after
# ratings (a rating does not move the view's revision). The view reads no rating, so the study
# holds the papers and the lists only. Its figures replace its own part of BENCHMARKS.md;
# `BENCH=lists scripts/bench.sh` runs this section alone.
bench_lists() {
    echo "== 11. what the lists say, on study L"
    local data=$work/lists-l db=$work/lists-l.db port server target_key paper
    if [ ! -f "$data/recommendations.csv" ]; then
        "$synth" --size l --seed 1 --out "$data"
    fi
    if [ ! -f "$db.done" ]; then
        rm -f "$db" "$db"-*
        "$bin" --db "$db" import papers "$data/papers.csv"
        "$bin" --db "$db" import recommendations "$data/recommendations.csv"
        touch "$db.done"
    fi
    cut -d' ' -f1 /proc/loadavg > "$work/lists-cli.load"
    hyperfine --runs "$runs" --warmup 1 --export-json "$work/lists-cli.json" \
        -n "lists --include-partial --format json" "$bin --db $db lists --include-partial --format json" \
        -n "lists --include-partial (table)" "$bin --db $db lists --include-partial" \
        -n "lists --format json (the fully rated targets: none)" "$bin --db $db lists --format json"
    cut -d' ' -f1 /proc/loadavg >> "$work/lists-cli.load"
    /usr/bin/time -f %M -o "$work/lists-cli.rss" "$bin" --db "$db" lists --include-partial --format json > "$work/lists.json"

    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$bin" --db "$db" serve --addr "127.0.0.1:$port" 2>"$work/lists-serve.log" &
    server=$!
    trap 'kill $server 2>/dev/null || true' EXIT
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
    target_key=$(sqlite3 "$db" "SELECT target_id FROM targets WHERE active = 1 ORDER BY target_id LIMIT 1")
    paper=$(sqlite3 "$db" "SELECT p.external_id FROM pool JOIN papers p ON p.id = pool.paper_id WHERE pool.target_id = $target_key ORDER BY pool.sort_key LIMIT 1")
    python3 "$root/scripts/bench-evaluation.py" "http://127.0.0.1:$port" "$target_key" "$paper" \
        "${PAGE_REQUESTS:-200}" "${CHANGES:-10}" "/lists?partial=include" \
        "/lists.json?partial=include" > "$work/lists-pages.jsonl"
    awk '/VmHWM/ {print $2}' "/proc/$server/status" > "$work/lists-serve.peak"
    kill "$server"
    trap - EXIT

    python3 - "$work" "$runs" "${PAGE_REQUESTS:-200}" <<'PY' | python3 scripts/benchmarks_section.py
import datetime, json, sys
work, runs, requests = sys.argv[1:4]
lists = json.load(open(f"{work}/lists.json"))
cli = json.load(open(f"{work}/lists-cli.json"))["results"]
loads = open(f"{work}/lists-cli.load").read().split()
pages = [json.loads(line) for line in open(f"{work}/lists-pages.jsonl")]
after = pages.pop()
rss_mb = int(open(f"{work}/lists-cli.rss").read()) / 1024
peak_mb = int(open(f"{work}/lists-serve.peak").read()) / 1024
lines = ["## What the lists say, on study L (`BENCH=lists`)", ""]
lines += [
    "Study L's papers and lists (`paperjudge-synth --size l --seed 1`): %d models, every one of its" % len(lists["models"]),
    "%s papers a target (none chosen, none fully rated), %s pairs in the pool; the owner's view with" % (
        format(lists["targets"]["count"], ","), format(lists["pool"]["pairs"], ",")),
    "the targets still being rated included (`--include-partial`, `partial=include`), which reads",
    "every list, and the default view of the fully rated targets (none here). Whole",
    "processes, medians of %s runs (hyperfine); CPU is user + system time (means). Measured %s UTC;" % (
        runs, datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M")),
    "the load average (1 minute, 2 cores shared with other work) before and after the runs, and",
    "with each page.", "",
    "| what | wall | CPU | goal | load |",
    "| --- | --- | --- | --- | --- |",
]
for result in cli:
    lines.append("| `paperjudge %s` (whole process; peak RSS %.0f MB) | %.3f s | %.3f s | under 0.5 s: %s | %s, %s |" % (
        result["command"], rss_mb, result["median"], result["user"] + result["system"],
        "met" if result["median"] < 0.5 else "MISSED", loads[0], loads[1]))
for page in pages:
    lines.append("| `%s` (%d bytes): first load %.1f ms, then %s requests | median %.2f ms, 95th percentile %.2f ms, max %.2f ms | | served from what the study keeps: p95 under 100 ms: %s | %s |" % (
        page["path"], page["bytes"], page["first_ms"], requests, page["p50_ms"], page["p95_ms"], page["max_ms"],
        "met" if page["p95_ms"] < 100 else "MISSED", page["load"]))
lines.append("| `/lists?partial=include` right after a rating (median of %d ratings; the load after it %.2f ms) | %.2f ms (max %.2f ms) | | still kept: %s | %s |" % (
    after["changes"], after["then_median_ms"], after["first_median_ms"], after["first_max_ms"],
    "met" if after["first_max_ms"] < 100 else "MISSED", after["load"]))
lines.append("| peak memory of the server through all of the above (VmHWM) | %.1f MB | | | |" % peak_mb)
lines += ["",
    "Where the command's time goes (perf, one run of `lists --include-partial --format json`, issue 43):",
    "the walk over the targets (each target's papers numbered, the 28 pairs of models compared, the",
    "pools counted) about 40% of the CPU, the kernel (the study file's pages, memory) 20%, reading",
    "the 320,000 lists packed one row per list (`packed_lists`) about a tenth, the intervals'",
    "resampling about a tenth, coverage and the most recommended papers the rest; before, SQLite",
    "stepping the 2.56 M rows of the top 8 took 45%. The reads and the comparisons run on both",
    "cores, so on a machine whose 2 cores are busy with other work the wall time is near the CPU",
    "time; the page computes the view once per revision of the study (its first load) and serves",
    "it from then on, through ratings, which do not change it."]
print("\n".join(lines))
PY
}
if [ "${BENCH:-all}" = lists ]; then
    bench_lists
    exit 0
fi

study=$work/study-l
if [ ! -f "$study/recommendations-by-model.csv" ]; then
    # The study, with model 1's run retrained (10% of its lists changed), and the same rows
    # as recommendations.csv in model-major order.
    "$synth" --size l --seed 1 --out "$study" --retrained-share 0.1
    "$synth" --size l --seed 1 --out "$work/by-model" --csv-order model
    mv "$work/by-model/recommendations.csv" "$study/recommendations-by-model.csv"
    rm -rf "$work/by-model"
fi

# ---------------------------------------------------------------------------------------------
# 9. A study from the browser (issue 26): study L's papers and its 8 runs uploaded through
# `POST /import` as a plain form does (the papers, then the 8 runs in one upload; curl streams
# the files and is answered once each import has ended), against the command line importing
# the same files one after the other, each case from an empty study. Wall time from the first
# byte sent to the last import's end; peak RSS of the server (VmHWM) and of the largest
# command-line process. Both studies must then say the same (`status --format json`). Its
# figures replace its own part of BENCHMARKS.md; `BENCH=upload scripts/bench.sh` runs this
# section alone (after study L is generated).
bench_upload() {
    echo "== 9. study L's papers and 8 runs uploaded in the browser, beside the command line"
    local db=$work/upload.db cli=$work/upload-cli.db k run_files=() parts=() port server start
    for k in 1 2 3 4 5 6 7 8; do
        run_files+=("$study/runs/model-$k.run")
        parts+=(-F "file=@$study/runs/model-$k.run")
    done
    rm -f "$work"/upload-*.wall "$work"/upload-*.rss "$work"/upload-*.peak "$work"/upload-*.mem "$work/upload-jobs"
    elapsed() { python3 -c 'import sys, time; print(time.time() - float(sys.argv[1]))' "$1"; }
    local url token
    # Serves the study $1 on a free port, and takes the import page's token.
    upload_serve() {
        port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        "$bin" --db "$1" serve --addr "127.0.0.1:$port" 2>"$work/upload-serve.log" &
        server=$!
        trap 'kill $server 2>/dev/null || true' EXIT
        url=http://127.0.0.1:$port
        for _ in $(seq 100); do curl -sf "$url/healthz" >/dev/null && break; sleep 0.1; done
        curl -sf -c "$work/upload-cookies" -o "$work/upload-page.html" "$url/import"
        token=$(grep -m1 -o 'name="csrf_token" value="[^"]*"' "$work/upload-page.html" | sed 's/.*value="//; s/"$//')
    }
    # Posts the form's fields "$@" as a plain form does (answered once the import has ended);
    # the job must be done.
    upload_post() {
        local job
        job=$(curl -sf -b "$work/upload-cookies" -o /dev/null -w '%{redirect_url}' \
            -F "csrf_token=$token" "$@" "$url/import")
        curl -sf "$job.json" | python3 -c 'import json, sys; job = json.load(sys.stdin); assert job["state"] == "done", job'
    }
    # Prints the server's peak RSS (KB) and stops it.
    upload_stop() {
        awk '/VmHWM/ {print $2}' "/proc/$server/status"
        kill "$server"
        wait "$server" 2>/dev/null || true
        trap - EXIT
    }
    for run in $(seq "$runs"); do
        rm -f "$cli" "$cli"-*
        start=$(date +%s.%N)
        /usr/bin/time -a -f %M -o "$work/upload-cli.rss" "$bin" --db "$cli" import papers "$study/papers.csv" 2>/dev/null
        for k in "${run_files[@]}"; do
            /usr/bin/time -a -f %M -o "$work/upload-cli.rss" "$bin" --db "$cli" import recommendations "$k" 2>/dev/null
        done
        elapsed "$start" >> "$work/upload-cli.wall"

        rm -f "$db" "$db"-*
        upload_serve "$db"
        start=$(date +%s.%N)
        upload_post -F kind=papers -F "file=@$study/papers.csv"
        awk '/VmHWM|VmRSS/ {printf "%s ", $2} END {print ""}' "/proc/$server/status" >> "$work/upload-papers.mem"
        upload_post -F kind=recommendations "${parts[@]}"
        elapsed "$start" >> "$work/upload-browser.wall"
        upload_stop >> "$work/upload-server.peak"
    done
    "$bin" --db "$db" status --format json > "$work/upload-browser.status"
    # The 8 runs alone, into a study whose papers the command line imported: the server's peak
    # without what the papers' import left it.
    rm -f "$db" "$db"-*
    "$bin" --db "$db" import papers "$study/papers.csv" 2>/dev/null
    upload_serve "$db"
    start=$(date +%s.%N)
    upload_post -F kind=recommendations "${parts[@]}"
    elapsed "$start" > "$work/upload-runs-only.wall"
    upload_stop > "$work/upload-runs-only.peak"
    "$bin" --db "$cli" status --format json > "$work/upload-cli.status"
    cut -d' ' -f1 /proc/loadavg > "$work/upload.load"
    python3 - "$work" "$runs" "$study" <<'PY' | python3 scripts/benchmarks_section.py
import datetime, os, statistics, sys
work, runs, study = sys.argv[1:4]
def numbers(name):
    return [float(line) for line in open(f"{work}/{name}") if line.strip()]
cli, browser = statistics.median(numbers("upload-cli.wall")), statistics.median(numbers("upload-browser.wall"))
server_mb = max(numbers("upload-server.peak")) / 1024
cli_mb = max(numbers("upload-cli.rss")) / 1024
papers_mem = [[int(field) for field in line.split()] for line in open(f"{work}/upload-papers.mem") if line.strip()]
papers_hwm = max(hwm for hwm, _ in papers_mem) / 1024
papers_rss = max(rss for _, rss in papers_mem) / 1024
same = open(f"{work}/upload-cli.status").read() == open(f"{work}/upload-browser.status").read()
size = sum(os.path.getsize(f"{study}/runs/model-{k}.run") for k in range(1, 9)) + os.path.getsize(f"{study}/papers.csv")
ratio = browser / cli
lines = ["## A study from the browser: study L's papers and 8 runs uploaded (`BENCH=upload`)", ""]
lines += [
    "Study L's `papers.csv` (40,000 papers) and `runs/model-1.run` ... `model-8.run` (800,000 rows",
    "each), %.0f MB in all, into an empty study: through `POST /import` as a plain form posts them" % (size / 1e6),
    "(curl; the papers, then the 8 runs in one upload, each answered once its import has ended),",
    "against `paperjudge import` of the same files one after the other. Wall time from the first",
    "byte to the end of the last import, medians of %s runs; peak RSS of the server (VmHWM) and" % runs,
    "of the largest command-line process. Measured %s UTC, load average %s on the 2 shared cores." % (
        datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), open(f"{work}/upload.load").read().strip()), "",
    "| case | wall time | peak RSS | goal |",
    "| --- | --- | --- | --- |",
    "| command line: `import papers`, then `import recommendations` of each run | %.2f s | %.0f MB | |" % (cli, cli_mb),
    "| browser: 2 uploads to `POST /import`, streamed to files beside the study, imported by the same importer | %.2f s (%.2fx the command line) | server %.0f MB | within 1.3x and under 300 MB: %s |" % (
        browser, ratio, server_mb, "met" if ratio <= 1.3 and server_mb < 300 else "MISSED"),
    "| browser, apart: the papers upload alone (then the server keeps %.0f MB resident) | | server %.0f MB | |" % (
        papers_rss, papers_hwm),
    "| browser, apart: the 8 runs alone, into a study whose papers the command line imported | %.2f s | server %.0f MB | |" % (
        numbers("upload-runs-only.wall")[0], numbers("upload-runs-only.peak")[0] / 1024),
    "",
    "`status --format json` of the two studies afterwards: %s." % ("the same, byte for byte" if same else "DIFFERENT"),
    "",
    "The upload of the 8 runs is one import, one transaction: one commit and one checkpoint where",
    "the command line makes eight, and no process started per file, which is where the browser's",
    "route gains what streaming the files to disk costs. The server's peak is higher than any one",
    "command's: it is one process that has imported the papers first (their file, with abstracts,",
    "read whole, and a page cache of 64 MiB, as every import of the command line too), and the",
    "allocator keeps what that import freed resident (the rows above, apart); each command of the",
    "command line starts from nothing.",
]
print("\n".join(lines))
PY
}
if [ "${BENCH:-all}" = upload ]; then
    bench_upload
    exit 0
fi
# ---------------------------------------------------------------------------------------------
# 12. The leaderboard with a judge (issue 31): study L's papers and lists (40,000 targets), every
# pooled pair of 5,000 targets graded by a judge (the synthetic rater's stars moved by -1, 0 or
# +1), 500 of them rated whole (the synthetic rater's stars).
# `leaderboard --judge` as whole processes beside the same board without the judge, then
# `/leaderboard?judge=` served: its first load, and requests after it (from what the study
# keeps). Its figures replace its own part of BENCHMARKS.md; `BENCH=ppi scripts/bench.sh` runs
# this section alone.
bench_prediction_powered() {
    echo "== 12. the leaderboard with a judge: 5,000 judged targets of study L, 500 rated"
    local full=$work/study-l-ppi db=$work/ppi-l.db
    if [ ! -f "$full/ratings.csv" ] || [ "$(cat "$full/rated-targets" 2>/dev/null)" != 5000 ]; then
        "$synth" --size l --seed 1 --ratings all --rated-targets 5000 --out "$full"
        echo 5000 > "$full/rated-targets"
        rm -f "$db.done"
    fi
    if [ ! -f "$db.done" ]; then
        rm -f "$db" "$db"-*
        "$bin" --db "$db" import papers "$full/papers.csv"
        "$bin" --db "$db" import recommendations "$full/recommendations.csv"
        # The synthetic rater's stars of every pooled pair of 5,000 targets: those of 500 of
        # them are imported as ratings; the judge grades all 5,000, each pair its stars moved
        # by -1, 0 or +1 (a judge as good on the rated targets as on the others).
        python3 - "$full/ratings.csv" "$work/ppi-ratings.csv" "$work/ppi-judgments.csv" <<'PY'
import csv, random, sys
random.seed(31)
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
rated = set(sorted({row["target"] for row in rows})[:500])
with open(sys.argv[2], "w", newline="") as ratings_file, open(sys.argv[3], "w", newline="") as judged_file:
    ratings, judged = csv.writer(ratings_file, lineterminator="\n"), csv.writer(judged_file, lineterminator="\n")
    ratings.writerow(["target", "paper", "stars"])
    judged.writerow(["target", "paper", "stars"])
    for row in rows:
        stars = int(row["stars"])
        if row["target"] in rated:
            ratings.writerow([row["target"], row["paper"], stars])
        judged.writerow([row["target"], row["paper"], min(5, max(1, stars + random.randint(-1, 1)))])
PY
        "$bin" --db "$db" import ratings "$work/ppi-ratings.csv"
        "$bin" --db "$db" import judgments "$work/ppi-judgments.csv" --judge bench
        touch "$db.done"
    fi
    "$bin" --db "$db" status --format json > "$work/ppi-status.json"
    hyperfine --runs "$runs" --warmup 1 --export-json "$work/ppi-cli.json" \
        -n "with the judge" "$bin --db $db leaderboard --judge bench --format json" \
        -n "without" "$bin --db $db leaderboard --format json"
    cut -d' ' -f1 /proc/loadavg > "$work/ppi-cli.load"
    "$bin" --db "$db" leaderboard --judge bench > "$work/ppi-board.txt"

    local port server
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$bin" --db "$db" serve --addr "127.0.0.1:$port" 2>"$work/ppi-serve.log" &
    server=$!
    trap 'kill $server 2>/dev/null || true' EXIT
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
    local page_script=$work/ppi-page.py
    cat > "$page_script" <<'PY'
import json, statistics, sys, time, urllib.request
url, requests = sys.argv[1], int(sys.argv[2])
def load():
    started = time.perf_counter()
    with urllib.request.urlopen(url) as answer:
        body = answer.read()
    return (time.perf_counter() - started) * 1000, len(body)
first, size = load()
times = sorted(load()[0] for _ in range(requests))
print(json.dumps({"first_ms": first, "bytes": size, "p50_ms": statistics.median(times),
                  "p95_ms": times[int(0.95 * (len(times) - 1))], "max_ms": times[-1],
                  "load": open("/proc/loadavg").read().split()[0]}))
PY
    python3 "$page_script" "http://127.0.0.1:$port/leaderboard?judge=bench" "${PAGE_REQUESTS:-200}" > "$work/ppi-page.json"
    python3 "$page_script" "http://127.0.0.1:$port/leaderboard" "${PAGE_REQUESTS:-200}" > "$work/ppi-page-plain.json"
    kill "$server"
    trap - EXIT

    python3 - "$work" "$runs" "${PAGE_REQUESTS:-200}" <<'PY' | python3 scripts/benchmarks_section.py
import datetime, json, sys
work, runs, requests = sys.argv[1:4]
status = json.load(open(f"{work}/ppi-status.json"))
cli = json.load(open(f"{work}/ppi-cli.json"))["results"]
page = json.load(open(f"{work}/ppi-page.json"))
plain = json.load(open(f"{work}/ppi-page-plain.json"))
load = open(f"{work}/ppi-cli.load").read().strip()
judge_line = next(line for line in open(f"{work}/ppi-board.txt") if line.startswith("Judge "))
with_s, without_s = cli[0]["median"], cli[1]["median"]
lines = ["## The leaderboard with a judge on study L (`BENCH=ppi`)", ""]
lines += [
    "Study L's papers and lists (%d targets); the synthetic rater's stars of every pooled pair of" % status["targets"],
    "5,000 targets (`paperjudge-synth --size l --seed 1 --ratings all --rated-targets 5000`): those",
    "of 500 targets imported as ratings (%d rated pairs), and all 5,000 graded by a judge that moves" % status["rated_pairs"],
    "each star by -1, 0 or +1 at random (`import judgments`, %d grades)." % (
        sum(1 for _ in open(f"{work}/ppi-judgments.csv")) - 1),
    "Measured %s UTC; the load average (1 minute, 2 cores shared with" % datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"),
    "other work) beside each figure.", "",
    "| what | figure | goal | load |",
    "| --- | --- | --- | --- |",
    "| `leaderboard --judge bench --format json` (whole process), median of %s runs | %.3f s (without the judge: %.3f s) | under 1 s: %s | %s |" % (
        runs, with_s, without_s, "met" if with_s < 1 else "MISSED", load),
    "| `/leaderboard?judge=bench` (%d bytes): first load, then %s requests | first %.1f ms; then median %.2f ms, 95th percentile %.2f ms | served from what the study keeps, as without a judge | %s |" % (
        page["bytes"], requests, page["first_ms"], page["p50_ms"], page["p95_ms"], page["load"]),
    "| `/leaderboard` without the judge (%d bytes), the same way, after the above | first %.1f ms; then median %.2f ms, 95th percentile %.2f ms | | %s |" % (
        plain["bytes"], plain["first_ms"], plain["p50_ms"], plain["p95_ms"], plain["load"]),
    "", "What the board said: " + judge_line.strip().split(". The verdict")[0] + ".",
]
print("\n".join(lines))
PY
}
if [ "${BENCH:-all}" = ppi ]; then
    bench_prediction_powered
    exit 0
fi
if [ "${BENCH:-all}" = judges ]; then
    PAPERJUDGE_BIN="$bin" STUDY_L="$study" scripts/bench-judges.sh
    exit 0
fi
if [ "${BENCH:-all}" = judge-runs ]; then
    PAPERJUDGE_BIN="$bin" PAPERJUDGE_SYNTH="$synth" scripts/bench-judge-runs.sh
    exit 0
fi

# Study files: papers only (the import's starting point) and the full study with ratings.
base=$work/papers-only.db
full=$work/study-l.db
if [ ! -f "$full" ]; then
    rm -f "$base"* "$full"*
    "$bin" --db "$base" import papers "$study/papers.csv"
    cp "$base" "$full"
    "$bin" --db "$full" import recommendations "$study/recommendations.csv"
    "$bin" --db "$full" import ratings "$study/ratings.csv"
fi
"$bin" --db "$full" export qrels -o "$work/study-l.qrels"

median() { # hyperfine JSON file, command index -> median seconds
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["median"])' "$1" "$2"
}

# ---------------------------------------------------------------------------------------------
# 1. Imports as researchers run them, each beside the sqlite3 shell's `.import` of the same
# file or files into one plain table: (a) one TREC run per model, imported one after the other
# into a study holding the papers; (b) the same 6.4 M rows as one CSV, target by target and
# model by model; (c) model 1's run imported again after a retraining changed 10% of its lists,
# into the study holding all 8 runs. Every process runs under /usr/bin/time, which appends its
# peak RSS to a file of the case. The figures replace their own part of BENCHMARKS.md;
# `BENCH=import scripts/bench.sh` runs this section alone (after the shared set-up above).
bench_import() {
    echo "== 1. imports as researchers run them, beside sqlite3 .import"
    local runs8=$work/runs-8.db pj=$work/import.db plain=$work/plain.db
    local rss="/usr/bin/time -a -f %M -o"
    local run_files="" k
    for k in 1 2 3 4 5 6 7 8; do run_files="$run_files $study/runs/model-$k.run"; done
    if [ ! -f "$runs8.done" ]; then
        rm -f "$runs8" "$runs8"-*
        cp "$base" "$runs8"
        for k in 1 2 3 4 5 6 7 8; do
            "$bin" --db "$runs8" import recommendations "$study/runs/model-$k.run"
        done
        touch "$runs8.done"
    fi
    rm -f "$work"/import-*.rss
    local trec_table="sqlite3 $plain 'CREATE TABLE recs (target, q0, paper, rank, score, tag)'"
    local trec_import="sqlite3 $plain '.mode list' '.separator \" \"'"

    echo "-- (a) 8 runs, one after the other"
    hyperfine --runs "$runs" --export-json "$work/import-runs.json" \
        --prepare "rm -f $pj*; cp $base $pj" \
        -n paperjudge "for f in $run_files; do $rss $work/import-a-pj.rss $bin --db $pj import recommendations \$f 2>/dev/null; done" \
        --prepare "rm -f $plain*; $trec_table" \
        -n "sqlite3 .import" "for f in $run_files; do $rss $work/import-a-sq.rss $trec_import \".import \$f recs\"; done"
    echo "-- (b) one CSV, target-major and model-major"
    # Index 0 and 1 (target-major) are the import row of the main table below.
    hyperfine --runs "$runs" --export-json "$work/import.json" \
        --prepare "rm -f $pj*; cp $base $pj" \
        -n "paperjudge target-major" "$rss $work/import-b-target-pj.rss $bin --db $pj import recommendations $study/recommendations.csv 2>/dev/null" \
        --prepare "rm -f $plain*" \
        -n "sqlite3 .import target-major" "$rss $work/import-b-target-sq.rss sqlite3 $plain '.mode csv' '.import $study/recommendations.csv recs'" \
        --prepare "rm -f $pj*; cp $base $pj" \
        -n "paperjudge model-major" "$rss $work/import-b-model-pj.rss $bin --db $pj import recommendations $study/recommendations-by-model.csv 2>/dev/null" \
        --prepare "rm -f $plain*" \
        -n "sqlite3 .import model-major" "$rss $work/import-b-model-sq.rss sqlite3 $plain '.mode csv' '.import $study/recommendations-by-model.csv recs'"
    sort -n "$work/import-b-target-pj.rss" | tail -n 1 > "$work/import.rss"
    echo "-- (c) model 1 retrained, imported again"
    hyperfine --runs "$runs" --export-json "$work/import-retrained.json" \
        --prepare "rm -f $pj*; cp $runs8 $pj" \
        -n paperjudge "$rss $work/import-c-pj.rss $bin --db $pj import recommendations $study/retrained/model-1.run 2>/dev/null" \
        --prepare "rm -f $plain*; $trec_table" \
        -n "sqlite3 .import" "$rss $work/import-c-sq.rss $trec_import '.import $study/retrained/model-1.run recs'"
    # What the re-import did, from one more run.
    rm -f "$pj"*
    cp "$runs8" "$pj"
    "$bin" --db "$pj" import recommendations "$study/retrained/model-1.run" 2>&1 | grep '^read' > "$work/import-c.summary"
    cut -d' ' -f1 /proc/loadavg > "$work/import.load"
}
# Writes the imports' part of BENCHMARKS.md from what bench_import measured.
report_import() {
    python3 - "$work" "$runs" <<'PY' | python3 scripts/benchmarks_section.py
import datetime, json, sys
work, runs = sys.argv[1:3]
load = open(f"{work}/import.load").read().strip()
def results(name):
    return json.load(open(f"{work}/{name}.json"))["results"]
def peak_mb(case):
    return max(int(line) for line in open(f"{work}/import-{case}.rss") if line.strip()) / 1024
lines = ["## Imports as researchers run them (study L)", ""]
lines += [
    "Each paperjudge import beside the sqlite3 shell's `.import` of the same file or files into",
    "one plain table (no index, no constraint), medians of %s runs of whole processes; CPU is" % runs,
    "user + system time (means), which the load of other work on the 2 shared cores disturbs",
    "less than wall time. Peak RSS is the largest of any paperjudge process of the case",
    "(`/usr/bin/time`). Measured %s UTC, load average %s." % (
        datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), load), "",
    "| case | paperjudge: wall, CPU | sqlite3 `.import`: wall, CPU | ratio: wall, CPU | peak RSS | goal |",
    "| --- | --- | --- | --- | --- | --- |",
]
def row(case, name, pj, sq, rss_case):
    wall, cpu = pj["median"] / sq["median"], (pj["user"] + pj["system"]) / (sq["user"] + sq["system"])
    rss = peak_mb(rss_case)
    met = wall <= 1.5 and rss < 300
    lines.append("| %s | %.2f s, %.2f s | %.2f s, %.2f s | %.2fx, %.2fx | %.0f MB | at most 1.5x and under 300 MB: %s |" % (
        name, pj["median"], pj["user"] + pj["system"], sq["median"], sq["user"] + sq["system"],
        wall, cpu, rss, "met" if met else "MISSED"))
a = results("import-runs")
row("a", "(a) `runs/model-1.run` ... `model-8.run` (800,000 rows each), one after the other, into a study holding the papers", a[0], a[1], "a-pj")
b = results("import")
row("b", "(b) `recommendations.csv` (6.4 M rows), target-major, into a study holding the papers", b[0], b[1], "b-target-pj")
row("b", "(b) the same rows model-major (`--csv-order model`)", b[2], b[3], "b-model-pj")
c = results("import-retrained")
row("c", "(c) `retrained/model-1.run` (`--retrained-share 0.1`: 4,000 of 40,000 lists changed) into the study holding the 8 runs", c[0], c[1], "c-pj")
lines += ["", "The re-import (c) said: `%s`" % open(f"{work}/import-c.summary").read().strip()]
lines += ["",
    "Where the time goes (perf, one run file into a study holding 7): reading, resolving and",
    "sorting the rows about a quarter; writing the 800,000 rows a quarter; the pool a fifth; the",
    "commit and the checkpoint of the WAL a sixth. A study that rates all its targets pools",
    "every target on every run, so each run rewrites most pages of the pool and its index, which",
    "the WAL writes once and the checkpoint again; sqlite3 writes its rows once into one table.",
    "In model-major order the rows are sorted from scratch (in target-major order they come",
    "nearly sorted); the lists written, the pool and the blind order are the same in every order",
    "(tests/it/import_order.rs)."]
print("\n".join(lines))
PY
}
if [ "${BENCH:-all}" = import ]; then
    bench_import
    report_import
    exit 0
fi
bench_import

echo "== 2. leaderboard --format json vs pytrec_eval ndcg_cut_8, and the floor"
# Study L's 5,000 rated targets are partly rated: --include-partial scores them all, as
# pytrec_eval scores every target of the qrels.
hyperfine --runs "$runs" --warmup 1 --export-json "$work/leaderboard.json" \
    -n paperjudge "$bin --db $full leaderboard --format json --include-partial" \
    -n pytrec_eval "python3 $root/scripts/pytrec_ndcg.py $work/study-l.qrels $study/runs/model-1.run $study/runs/model-2.run $study/runs/model-3.run $study/runs/model-4.run $study/runs/model-5.run $study/runs/model-6.run $study/runs/model-7.run $study/runs/model-8.run" \
    -n "read the lists" "sqlite3 $full 'SELECT target_id, model_id, paper_id FROM recommendations WHERE target_id IN (SELECT target_id FROM ratings) AND position <= 8' >/dev/null" \
    -n "paperjudge --recompute" "$bin --db $full leaderboard --format json --include-partial --recompute"

echo "== 3-5. the web app on study L under load: rating page, rating POST, peak memory"
# A copy of study L (taken with paperjudge backup) where one target's pool is grown to 60
# papers by extra lists, as a target of a study with many models would have.
web=$work/web.db
rm -f "$web" "$web"-*
"$bin" --db "$full" backup "$web"
target=P000001
pooled() { sqlite3 "$web" "SELECT COUNT(*) FROM pool JOIN papers t ON t.id = pool.target_id WHERE t.external_id = '$target'"; }
python3 - "$web" "$target" "$(pooled)" > "$work/extra.csv" <<'PY'
import sqlite3, sys
db, target, pooled = sys.argv[1], sys.argv[2], int(sys.argv[3])
conn = sqlite3.connect(db)
taken = {row[0] for row in conn.execute(
    "SELECT p.external_id FROM pool JOIN papers t ON t.id = pool.target_id "
    "JOIN papers p ON p.id = pool.paper_id WHERE t.external_id = ?", (target,))}
free = [row[0] for row in conn.execute("SELECT external_id FROM papers ORDER BY id DESC LIMIT 200")
        if row[0] not in taken and row[0] != target]
print("model,target,rank,paper")
for index, paper in enumerate(free[: 60 - pooled]):
    print(f"bench-extra-{index // 8 + 1},{target},{index % 8 + 1},{paper}")
PY
"$bin" --db "$web" import recommendations "$work/extra.csv"
[ "$(pooled)" = 60 ] || { echo "the bench target's pool holds $(pooled) papers, not 60" >&2; exit 1; }
target_key=$(sqlite3 "$web" "SELECT id FROM papers WHERE external_id = '$target'")
papers=$(sqlite3 "$web" "SELECT group_concat(p.external_id) FROM pool JOIN papers p ON p.id = pool.paper_id WHERE pool.target_id = $target_key")

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" --db "$web" serve --addr "127.0.0.1:$port" 2>"$work/serve.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
page_url="http://127.0.0.1:$port/targets/$target_key"
curl -sf -c "$work/cookies" -o "$work/page.html" "$page_url"
static_path=$(grep -m1 -o '/static/style.css?v=[0-9a-f]*' "$work/page.html")
static_url="http://127.0.0.1:$port$static_path"
curl -sf -o "$work/static.css" "$static_url"
token=$(grep -m1 -o 'name="csrf_token" value="[^"]*"' "$work/page.html" | sed 's/.*value="//; s/"$//')
# The token is bound to the browser session in the cookie the page came with.
browser=$(awk '$6 == "paperjudge_browser" {print $7}' "$work/cookies")
for run in $(seq "$runs"); do
    wrk -t2 -c16 -d5s --latency "$page_url" > "$work/wrk-page-$run.txt"
    wrk -t2 -c16 -d5s --latency "$static_url" > "$work/wrk-static-$run.txt"
    CSRF_TOKEN=$token BROWSER=$browser PAPERS=$papers wrk -t2 -c16 -d5s --latency -s "$root/scripts/bench-rate.lua" \
        "$page_url/ratings" > "$work/wrk-rate-$run.txt"
done
peak_kb=$(awk '/VmHWM/ {print $2}' "/proc/$server/status")
kill "$server"
trap - EXIT
ratings_stored=$(sqlite3 "$web" "SELECT COUNT(*) FROM rating_history WHERE source = 'web'")

import_s=$(median "$work/import.json" 0)
sqlite_s=$(median "$work/import.json" 1)
board_s=$(median "$work/leaderboard.json" 0)
pytrec_s=$(median "$work/leaderboard.json" 1)
floor_s=$(median "$work/leaderboard.json" 2)
fresh_s=$(median "$work/leaderboard.json" 3)
import_rss=$(cat "$work/import.rss" 2>/dev/null || echo "?")

python3 - "$import_s" "$sqlite_s" "$board_s" "$pytrec_s" "$floor_s" "$import_rss" "$runs" \
    "$work" "$(wc -c < "$work/page.html")" "$(wc -c < "$work/static.css")" "$peak_kb" "$ratings_stored" \
    "$fresh_s" \
    > BENCHMARKS.md <<'EOF'
import glob, platform, re, statistics, subprocess, sys, datetime
imp, sq, board, pytrec, floor = map(float, sys.argv[1:6])
rss, runs, work, page_bytes, static_bytes, peak_kb, stored = sys.argv[6:13]
fresh = float(sys.argv[13])

def wrk(name):
    # Median requests/s and latency percentiles (ms) over the runs of one wrk benchmark.
    unit = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    rps, p50, p99, errors = [], [], [], 0
    for path in sorted(glob.glob(f"{work}/wrk-{name}-*.txt")):
        text = open(path).read()
        rps.append(float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)))
        for pct, into in (("50", p50), ("99", p99)):
            value, u = re.search(pct + r"%\s+([\d.]+)(us|ms|s)", text).groups()
            into.append(float(value) * unit[u])
        found = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
        errors += int(found.group(1)) if found else 0
    return statistics.median(rps), statistics.median(p50), statistics.median(p99), errors

page, static, rate = wrk("page"), wrk("static"), wrk("rate")
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
print("# Benchmarks\n")
print("Produced by `scripts/bench.sh` (medians of %s runs each, measured side by side in one run)." % runs)
print("Machine: %s, %s cores, %s; %s UTC.\n" % (cpu, cores, platform.platform(), datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M")))
print("Study L: 40,000 papers; 8 models x 40,000 targets x top 20 = 6.4 M recommendation rows")
print("(recommendations.csv, about 228 MB); 100,000 ratings over 5,000 targets; generated by")
print("`paperjudge-synth --size l --seed 1`.\n")
print("| benchmark | paperjudge | reference | ratio | goal |")
print("| --- | --- | --- | --- | --- |")
print("| import 6.4 M recommendation rows, pooling included | %.2f s | sqlite3 `.import` into a plain table: %.2f s | %.2fx the reference | at most 1.5x: %s |" % (imp, sq, imp / sq, "met" if imp / sq <= 1.5 else "MISSED"))
print("| `leaderboard --format json --include-partial` (whole process, intervals and tests included) | %.2f s | pytrec_eval ndcg_cut_8 of the 8 runs from TREC files: %.2f s | %.1fx faster | at least 10x: %s |" % (board, pytrec, pytrec / board, "met" if pytrec / board >= 10 else "MISSED"))
print("| the same computed afresh (`--recompute`: the first call after a change; the line above prints the output kept for the study's revision) | %.2f s | pytrec_eval: %.2f s | %.1fx faster | |" % (fresh, pytrec, pytrec / fresh))
print("| (floor) read the top 8 of every list from the study file | %.2f s | | | |" % floor)
print("| rating page of a target with 60 pooled papers (%s bytes), 16 connections | %.0f req/s, median %.2f ms, p99 %.2f ms | the same server's stylesheet (%s bytes): %.0f req/s, p99 %.2f ms | %.2f of its req/s | at least 0.5 and p99 under 10 ms: %s |" % (
    page_bytes, page[0], page[1], page[2], static_bytes, static[0], static[2], page[0] / static[0],
    "met" if page[0] / static[0] >= 0.5 and page[2] < 10 else "MISSED"))
print("| rating POST (durable commit, JSON answer), 16 connections | %.0f req/s, median %.2f ms, p99 %.2f ms | | | |" % rate[:3])
print("| peak memory of the server on study L (after all of the above) | %.1f MB | | | under 100 MB: %s |" % (
    int(peak_kb) / 1024, "met" if int(peak_kb) / 1024 < 100 else "MISSED"))
print("\nNon-2xx answers under load: page %d, stylesheet %d, rating %d; ratings recorded in the history: %s." % (
    page[3], static[3], rate[3], stored))
print("The binary serves no static file as large as the page, so the reference is its largest")
print("static file; serving a larger file is no faster, so a goal met against it is met a fortiori.")
print("wrk runs on the same 2 cores as the server.")
print("\nPeak memory of that import: %s KB (its rows, held to be sorted, and its page cache)." % rss)
EOF
cat BENCHMARKS.md

# ---------------------------------------------------------------------------------------------
echo "== 6. a 40,000-paper library with 65 chosen targets: the pages a rater opens"
# Seed 000's study as researchers run it: the papers, then 65 targets chosen by hand, then the
# models' lists for every paper (pooled for the chosen 65 only), then ratings: 40 targets fully
# rated, 25 half rated. Each page is timed alone, one request after another; the figures are
# appended to BENCHMARKS.md.
chosen=$work/chosen-65.db
if [ ! -f "$chosen.done" ]; then
    rm -f "$chosen" "$chosen"-* "$chosen.done"
    python3 -c 'print("\n".join("P%06d" % (1 + 77 * k) for k in range(65)))' > "$work/chosen-65.txt"
    "$bin" --db "$chosen" import papers "$study/papers.csv"
    "$bin" --db "$chosen" targets choose --file "$work/chosen-65.txt"
    /usr/bin/time -f '%e' -o "$work/chosen-import.s" \
        "$bin" --db "$chosen" import recommendations "$study/recommendations.csv"
    "$bin" --db "$chosen" export pool -o "$work/chosen-pool.csv"
    python3 - "$work/chosen-pool.csv" > "$work/chosen-ratings.csv" <<'PY'
import csv, sys, zlib
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
targets = sorted({row["target"] for row in rows})
fully, half = set(targets[:40]), set(targets[40:])
print("target,paper,stars")
for row in rows:
    target, position = row["target"], int(row["position"])
    if target in fully or (target in half and position % 2 == 1):
        stars = 1 + zlib.crc32(f"{target} {row['paper']}".encode()) % 5
        print(f"{target},{row['paper']},{stars}")
PY
    "$bin" --db "$chosen" import ratings "$work/chosen-ratings.csv"
    touch "$chosen.done"
fi
"$bin" --db "$chosen" status > "$work/chosen-status.txt"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" --db "$chosen" serve --addr "127.0.0.1:$port" 2>"$work/chosen-serve.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
rating_page=$(curl -s -o /dev/null -w '%{redirect_url}' "http://127.0.0.1:$port/next" | sed 's|^http://[^/]*||')
python3 "$root/scripts/bench-pages.py" "http://127.0.0.1:$port" "${PAGE_REQUESTS:-300}" \
    /targets /next "$rating_page" "/papers?q=graph" / "/papers?q=model" /leaderboard \
    > "$work/chosen-pages.jsonl"
kill "$server"
trap - EXIT
python3 - "$work/chosen-pages.jsonl" "$work/chosen-status.txt" "$(cat "$work/chosen-import.s")" \
    "${PAGE_REQUESTS:-300}" >> BENCHMARKS.md <<'PY'
import datetime, json, os, sys
pages = [json.loads(line) for line in open(sys.argv[1])]
status, import_s, requests = open(sys.argv[2]).read(), sys.argv[3], sys.argv[4]
goal = {"/targets", "/next", "/", "/papers?q=graph"}
print("\n## A 40,000-paper library with 65 chosen targets\n")
print("Study L's papers and lists, with 65 targets chosen before the lists were imported")
print("(`targets choose --file`), so that the import of the 6.4 M rows pooled those 65 only")
print("(%s s); 40 of them fully rated, 25 half rated. Each page alone, %s requests one after" % (import_s, requests))
print("another over one connection, after 5 of warm-up. Goal: under 100 ms at the 95th")
print("percentile for the target list, `/next`, a rating page, a search and the dashboard.")
print("Measured %s UTC, load average %.1f on the machine's cores.\n" % (
    datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), os.getloadavg()[0]))
print("| page | status | bytes | median | 95th percentile | max | goal |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for i, page in enumerate(pages):
    in_goal = page["path"] in goal or i == 2
    verdict = ("met" if page["p95_ms"] < 100 else "MISSED") if in_goal else "(for information)"
    print("| `%s` | %d | %d | %.2f ms | %.2f ms | %.2f ms | %s |" % (
        page["path"], page["status"], page["bytes"], page["p50_ms"], page["p95_ms"], page["max_ms"], verdict))
print("\n`paperjudge status` of that study:\n\n```\n%s```" % status)
PY
tail -n 20 BENCHMARKS.md

report_import
bench_evaluation

# ---------------------------------------------------------------------------------------------
echo "== 8. ratings to a decision under each order"
PAPERJUDGE_BIN="$bin" SYNTH_BIN="$synth" scripts/bench-decision.sh

bench_upload

PAPERJUDGE_BIN="$bin" STUDY_L="$study" scripts/bench-judges.sh
PAPERJUDGE_BIN="$bin" PAPERJUDGE_SYNTH="$synth" scripts/bench-judge-runs.sh
bench_lists
