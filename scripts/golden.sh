#!/usr/bin/env bash
# Every command-line output and every page of two studies, written as files for comparing two
# builds of paperjudge byte for byte (a refactoring must change none of them).
#
#   scripts/golden.sh BIN OUT [FIXTURES]
#   diff -r OUT-of-one-build OUT-of-another
#
# The studies are built once, by the first binary given FIXTURES (target/golden/fixtures by
# default), and every run works on copies of them: display and order keys are drawn at random
# by an import, so two builds compare outputs of the same study file. From `paperjudge-synth
# --size s --seed 1` (40 targets fully rated, 10 partly) and from the demo rated by
# scripts/rate_demo.py. What each build imports itself is compared too, as far as it does not
# depend on those random keys (the summaries, the status, the leaderboard, the ratings).
#
# Masked, because they change from run to run: browser-session cookies and CSRF tokens
# (random), times written by the run itself (RFC 3339, in the files built by the run and in
# the exports after the web's ratings), and the pair `/checks/recheck` draws at random.
# Each output file holds the exit status (or the HTTP status and the headers that carry
# meaning: type, location, download name, retry delay), then what was printed or served.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "$1")
out=$(realpath -m "$2")
fixtures=$(realpath -m "${3:-$root/target/golden/fixtures}")
synth=${SYNTH_BIN:-$root/target/release/paperjudge-synth}
rm -rf "$out"
mkdir -p "$out" "$fixtures"
work=$out.work
rm -rf "$work" && mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

# Times of this run (RFC 3339, second precision, UTC) are masked by their day: today's, and the
# day the fixtures were built, whose times the first run would otherwise mask and a run after
# midnight not (`days`, set once the fixtures are there).
today=$(date -u +%Y-%m-%d)
mask_times() { sed -E "s|${work}|<work>|g; s/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]+Z/<log time>/g; s/(${days})T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/<now>/g"; }

# run NAME DB ARGS...: one command's exit status, stdout and stderr into OUT/NAME.
run() {
    local name=$1 db=$2 status=0
    shift 2
    "$bin" --db "$db" "$@" >"$work/stdout" 2>"$work/stderr" || status=$?
    {
        echo "exit $status"
        echo "--- stdout"
        mask_times <"$work/stdout"
        echo "--- stderr"
        mask_times <"$work/stderr"
    } >"$out/$name"
}

# The fixtures, built once.
if [ ! -f "$fixtures/done" ]; then
    rm -rf "${fixtures:?}"/*
    "$synth" --size s --seed 1 --ratings all --rated-targets 40 --out "$fixtures/s-full" >/dev/null
    "$synth" --size s --seed 1 --ratings 200 --rated-targets 50 --out "$fixtures/s-some" >/dev/null
    "$bin" --db "$fixtures/s.db" import papers "$fixtures/s-full/papers.csv" 2>/dev/null
    "$bin" --db "$fixtures/s.db" import recommendations "$fixtures/s-full/recommendations.csv" 2>/dev/null
    "$bin" --db "$fixtures/s.db" import ratings "$fixtures/s-full/ratings.csv" 2>/dev/null
    # Targets 41 to 50 partly rated; the ratings of 1 to 40 that this file holds change.
    "$bin" --db "$fixtures/s.db" import ratings "$fixtures/s-some/ratings.csv" 2>/dev/null
    "$bin" --db "$fixtures/demo.db" import papers "$root/src/demo/papers.csv" 2>/dev/null
    "$bin" --db "$fixtures/demo.db" import recommendations "$root/src/demo/recommendations.csv" 2>/dev/null
    "$bin" --db "$fixtures/demo.db" export pool -o "$fixtures/demo-pool.csv"
    python3 "$root/scripts/rate_demo.py" "$root/src/demo/recommendations.csv" "$fixtures/demo-pool.csv" \
        >"$fixtures/demo-ratings.csv"
    "$bin" --db "$fixtures/demo.db" import ratings "$fixtures/demo-ratings.csv" 2>/dev/null
    echo "$today" >"$fixtures/day"
    touch "$fixtures/done"
fi
# Fixtures built before the day file was written are of a day unknown: today stands for it.
days="$today|$(cat "$fixtures/day" 2>/dev/null || echo "$today")"

# What this build imports itself: the same files into new studies.
built=$work/built.db
run build-1-papers "$built" import papers "$fixtures/s-full/papers.csv"
run build-2-recommendations "$built" import recommendations "$fixtures/s-full/recommendations.csv"
run build-3-ratings "$built" import ratings "$fixtures/s-full/ratings.csv"
run build-4-ratings-again "$built" import ratings "$fixtures/s-some/ratings.csv"
run build-5-status "$built" status --format json
run build-6-leaderboard "$built" leaderboard --format json --per-target
run build-7-export-ratings "$built" export ratings
run build-8-runs "$work/runs.db" import papers "$fixtures/s-full/papers.csv"
for model in 1 2 3; do
    run "build-9-run-$model" "$work/runs.db" import recommendations "$fixtures/s-full/runs/model-$model.run"
done
run build-10-runs-leaderboard "$work/runs.db" leaderboard --format csv

# Every read of the command line, on copies of the fixtures.
for study in s demo; do
    db=$work/$study.db
    cp "$fixtures/$study.db" "$db"
    run "$study-status-text" "$db" status
    run "$study-status-json" "$db" status --format json
    run "$study-leaderboard-table" "$db" leaderboard
    run "$study-leaderboard-csv" "$db" leaderboard --format csv
    run "$study-leaderboard-json" "$db" leaderboard --format json
    run "$study-leaderboard-per-target-csv" "$db" leaderboard --format csv --per-target
    run "$study-leaderboard-per-target-json" "$db" leaderboard --format json --per-target
    run "$study-leaderboard-partial" "$db" leaderboard --include-partial --format json
    run "$study-leaderboard-options" "$db" leaderboard --k 5 --gain exponential --relevance stars \
        --ideal list --unjudged skip --empty zero --threshold 3 --ap-denominator hits
    run "$study-checks-text" "$db" checks
    run "$study-checks-json" "$db" checks --format json
    run "$study-checks-options" "$db" checks --k 4 --include-partial --format json
    run "$study-lists-table" "$db" lists
    run "$study-lists-csv" "$db" lists --format csv
    run "$study-lists-options" "$db" lists --format json --k 5 --rbo-p 0.8
    run "$study-targets-text" "$db" targets list
    run "$study-targets-csv" "$db" targets list --format csv
    run "$study-targets-json" "$db" targets list --format json
    run "$study-next-text" "$db" next
    run "$study-next-json" "$db" next --format json
    run "$study-export-ratings" "$db" export ratings
    run "$study-export-qrels" "$db" export qrels
    run "$study-export-qrels-stars" "$db" export qrels --relevance stars
    run "$study-export-pool" "$db" export pool
    run "$study-simulate-text" "$db" simulate --seeds 20
    run "$study-simulate-json" "$db" simulate --seeds 20 --format json --order random
done
run trec-simulate "$work/none.db" simulate --seeds 20 --qrels "$root/tests/fixtures/simulate/qrels.txt" \
    --run "$root/tests/fixtures/simulate/alpha.run" --run "$root/tests/fixtures/simulate/beta.run" \
    --run "$root/tests/fixtures/simulate/gamma.run"

# Bad input: the message and the exit status.
db=$work/s.db
printf 'target,paper,stars\nnope,P1,3\n%s\n' "x,y,9" >"$work/bad-ratings.csv"
printf 'id,title\nA B,Spaced\n' >"$work/bad-papers.csv"
printf 'nope\n# a comment\nnada\n' >"$work/ids.txt"
run bad-ratings "$db" import ratings "$work/bad-ratings.csv"
run bad-papers "$db" import papers "$work/bad-papers.csv"
run bad-missing-file "$db" import papers "$work/no-such.csv"
run bad-format "$db" import recommendations "$work/ids.txt"
run bad-pool-depth "$db" init --pool-depth 5
run bad-pool-depth-range "$db" init --pool-depth 0
run bad-gain "$db" leaderboard --gain quadratic
run bad-threshold "$db" leaderboard --threshold 6
run bad-k "$db" leaderboard --k 0
run bad-checks-k "$db" checks --k x
run bad-lists-rbo-p "$db" lists --rbo-p 1
run bad-simulate-gain "$db" simulate --gain x
for command in leaderboard checks lists simulate "targets choose" "import recommendations" serve; do
    run "help-${command// /-}" "$db" $command --help
done
run bad-choose "$db" targets choose nope nada
run bad-choose-file "$db" targets choose --file "$work/ids.txt"
run bad-drop "$db" targets drop nope
run bad-sample "$db" targets choose --sample 100000
run bad-seed "$db" targets choose --seed 3 P1
run bad-backup "$db" backup "$work/bad-ratings.csv"
run bad-simulate "$work/demo.db" simulate --seeds 0
run bad-serve "$db" serve --addr 0.0.0.0:0

# Commands that change the study, on the copy of S (their outputs depend on no random key).
first_target=$(sed -n 2p "$fixtures/s-full/ratings.csv" | cut -d, -f1)
run change-1-sample "$db" targets choose --sample 5 --seed 3
run change-2-choose "$db" targets choose "$first_target"
run change-3-list "$db" targets list
run change-4-drop "$db" targets drop "$first_target"
run change-5-status "$db" status
run change-6-leaderboard "$db" leaderboard --format json
run change-7-all "$db" targets choose --all
run change-8-status "$db" status
run change-9-init "$work/new.db" init --pool-depth 5
run change-11-prune "$db" prune
run change-12-prune-on "$db" prune on
run change-13-next "$db" next --format json
run change-14-status "$db" status --format json
run change-15-prune-off "$db" prune off
run change-16-margin "$db" leaderboard --margin 0.05 --format json
run change-17-simulate "$db" simulate --seeds 5 --resample --prune --targets 30 --format json
run change-10-backup "$db" backup "$work/backup.db"

# Every page of a served copy, then the web's changes.
for study in s demo; do
    db=$work/$study-web.db
    cp "$fixtures/$study.db" "$db"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$bin" --db "$db" serve --addr "127.0.0.1:$port" 2>"$work/serve.log" &
    server=$!
    for _ in $(seq 100); do
        python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/healthz')" 2>/dev/null && break
        sleep 0.1
    done
    python3 - "http://127.0.0.1:$port" "$out/web-$study" "$days" <<'PY'
import http.client, json, os, re, sys, urllib.parse

base, out, days = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(out, exist_ok=True)
address = urllib.parse.urlsplit(base)
cookie = None
count = 0

def mask(text):
    text = re.sub(r'(name="csrf_token" value=")[0-9a-f]+', r'\1<token>', text)
    text = re.sub(r'paperjudge_browser=[0-9a-f]+', 'paperjudge_browser=<id>', text)
    return re.sub('(' + days + r')T\d\d:\d\d:\d\dZ', '<now>', text)

def request(method, path, fields=None, accept=None, name=None):
    global count, cookie
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=120)
    headers = {}
    body = None
    if cookie:
        headers["Cookie"] = cookie
    if accept:
        headers["Accept"] = accept
    if fields is not None:
        body = urllib.parse.urlencode(fields)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        headers["Origin"] = base
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read().decode("utf-8", "replace")
    for value in response.headers.get_all("Set-Cookie") or []:
        if value.startswith("paperjudge_browser="):
            cookie = value.split(";")[0]
    kept = [f"{key}: {response.headers[key]}" for key in
            ("Content-Type", "Location", "Content-Disposition", "Retry-After", "Allow")
            if response.headers.get(key) is not None]
    count += 1
    label = name or re.sub(r"[^A-Za-z0-9]+", "-", path).strip("-") or "root"
    with open(f"{out}/{count:02d}-{method.lower()}-{label}", "w") as f:
        f.write(f"{method} {path}\n{response.status}\n" + "\n".join(kept) + "\n---\n" + mask(data))
    return response.status, data

def get(path, **kwargs):
    return request("GET", path, **kwargs)

status, page = get("/targets")
keys = re.findall(r'href="/targets/(\d+)"', page)
finished = re.findall(r'<tr class="is-finished">\s*<td><a href="/targets/(\d+)"', page)
first, last = keys[0], keys[-1]
some_finished = finished[0] if finished else first
for path in ["/", "/targets", "/targets?show=unfinished", "/targets?page=2", "/targets?page=0",
             f"/targets/{first}", f"/targets/{last}", f"/targets/{some_finished}", "/targets/999999",
             "/targets/abc", "/next", "/leaderboard", "/leaderboard?k=5&gain=exponential",
             "/leaderboard?partial=include", "/leaderboard?sort=recall&order=asc",
             "/leaderboard?sort=model", "/leaderboard?gain=quadratic", "/leaderboard?colour=red",
             "/leaderboard.csv", "/leaderboard.csv?per_target=1", "/leaderboard.json",
             "/leaderboard.json?per_target=1&k=3", "/leaderboard.json?partial=include",
             "/leaderboard/targets", "/leaderboard/targets?k=4",
             f"/leaderboard/targets/{some_finished}", f"/leaderboard/targets/{first}",
             f"/leaderboard/targets/{last}", "/leaderboard/targets/999999",
             "/papers", "/papers?q=graph", "/papers?q=learning&page=2", "/papers?q=%22x+NEAR(",
             "/papers?q=zzzzqqq", "/papers?q=a&page=0", "/checks", "/checks?k=4&partial=include",
             "/checks.json", "/checks.json?gain=exponential", "/checks.json?bad=1",
             "/export/ratings.csv", "/export/qrels.txt", "/export/qrels.txt?relevance=stars",
             "/export/qrels.txt?relevance=x", "/healthz", "/no/such/page"]:
    get(path)
get("/leaderboard?gain=quadratic", accept="application/json", name="leaderboard-bad-json")
get("/targets/999999", accept="application/json", name="target-missing-json")

# The re-check page draws its pair at random: only its progress line is kept.
status, page = get("/checks/recheck", name="recheck")
pair = re.search(r'name="target" value="([^"]*)".*?name="paper" value="([^"]*)"', page, re.S)
with open(f"{out}/{count:02d}-get-recheck", "w") as f:
    progress = re.search(r'<span id="recheck-progress">.*?</span>', page, re.S)
    f.write(f"{status}\n{progress.group(0) if progress else ''}\n{bool(pair)}\n")

# Changes: a rating, its undo, a clear, refusals; a choice; a re-check.
status, page = get(f"/targets/{last}", name="rating-page-for-token")
token = re.search(r'name="csrf_token" value="([0-9a-f]+)"', page).group(1)
papers = re.findall(r'data-paper="([^"]*)"', page)
html_unescape = lambda s: s.replace("&#34;", '"').replace("&#39;", "'").replace("&#60;", "<").replace("&#62;", ">").replace("&#38;", "&")
paper = html_unescape(papers[0])
json_accept = "application/json"
for fields, accept in [
        ({"paper": paper, "stars": "4", "csrf_token": token}, json_accept),
        ({"paper": paper, "stars": "2", "csrf_token": token}, None),
        ({"paper": paper, "stars": "clear", "csrf_token": token}, json_accept),
        ({"paper": paper, "stars": "6", "csrf_token": token}, json_accept),
        ({"paper": "no-such-paper", "stars": "3", "csrf_token": token}, json_accept),
        ({"paper": paper, "stars": "3"}, json_accept),
        ({"paper": paper, "stars": "5", "csrf_token": token}, json_accept)]:
    request("POST", f"/targets/{last}/ratings", fields, accept=accept)
request("POST", f"/targets/{last}/undo", {"csrf_token": token}, accept=json_accept)
request("POST", f"/targets/{last}/undo", {"csrf_token": token}, accept=json_accept)
request("POST", f"/targets/{last}/undo", {"csrf_token": token})
request("POST", "/targets/999999/ratings", {"paper": paper, "stars": "3", "csrf_token": token}, accept=json_accept)
request("POST", f"/targets/{last}/ratings", {"paper": paper, "stars": "5", "csrf_token": token}, accept=json_accept)
get(f"/targets/{last}", name="rating-page-after")
if pair:
    request("POST", "/checks/recheck", {"target": html_unescape(pair.group(1)), "paper": html_unescape(pair.group(2)), "stars": "3", "csrf_token": token})
request("POST", "/checks/recheck", {"target": "nope", "paper": "nada", "stars": "3", "csrf_token": token})
request("POST", "/checks/recheck", {"target": "nope", "stars": "3", "csrf_token": token})
status, page = get("/papers?q=graph", name="search-for-choice")
for fields in [{"paper": "nope", "csrf_token": token}, {"paper": "", "csrf_token": token},
               {"paper": html_unescape(papers[-1]), "action": "choose", "csrf_token": token, "q": "graph", "page": "1"},
               {"paper": html_unescape(papers[-1]), "action": "drop", "csrf_token": token},
               {"paper": html_unescape(papers[-1]), "action": "delete", "csrf_token": token}]:
    request("POST", "/targets", fields)
request("POST", "/prune", {"prune": "on", "csrf_token": token, "back": "/leaderboard"})
request("POST", "/prune", {"prune": "maybe", "csrf_token": token})
request("POST", "/targets", {"action": "sample", "count": "x", "csrf_token": token})
for path in ["/", "/targets", "/leaderboard", "/leaderboard.json", "/export/ratings.csv",
             "/leaderboard?margin=0.05"]:
    get(path, name="after-" + (re.sub(r"[^A-Za-z0-9]+", "-", path).strip("-") or "root"))
# The import page (last, so that the files before keep their numbers); a job's page of a job
# the server does not keep; the pool depth, fixed once there are lists.
get("/import")
get("/import/0123456789abcdef0123456789abcdef", name="import-no-such-job")
request("POST", "/import/settings", {"pool_depth": "5", "csrf_token": token})
PY
    kill "$server"
    wait "$server" 2>/dev/null || true
    run "web-$study-status-after" "$db" status
done
echo "golden outputs of $bin in $out"
