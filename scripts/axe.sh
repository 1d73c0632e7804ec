#!/usr/bin/env bash
# The accessibility audit: axe-core in headless Chromium, every page at 1280 px, at 390 px (a
# phone) and in dark mode, also checking that no page is wider than the window. Exits 1 on any
# finding.
#
#   scripts/axe.sh            # serves an empty study and the demo study (rated, with imports
#                             # done, failed and running) and audits their pages
#   scripts/axe.sh URL...     # these pages of a server you run
#
# Installs axe-core and puppeteer-core from npm into target/axe once, and Debian's Chromium
# when it is missing (as scripts/test.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
. "$root/scripts/lib/serve.sh"
browser_tools
audit() { NODE_PATH=$tools/node_modules node "$root/scripts/axe.cjs" "$@"; }
if [ $# -gt 0 ]; then
    audit "$@"
    exit
fi

start_study_work

empty=$work/empty.db
serve "$empty"
empty_url=$(cat "$empty.url")

demo=$work/demo.db
"$bin" --db "$demo" import papers src/demo/papers.csv 2>/dev/null
"$bin" --db "$demo" import recommendations src/demo/recommendations.csv 2>/dev/null
"$bin" --db "$demo" import ratings tests/fixtures/verdict/demo-ratings.csv 2>/dev/null
# The study's guidelines on every rating page, and a note and a "can't judge" on demo-02.
printf '## Scope\n\nRate **method** papers by what a reader of the target would *use*.\n\n- same task: 3 stars or more\n- [the guidelines](/guidelines)\n\n| case | stars |\n| --- | --- |\n| same data | 4 |\n\n<script>alert(1)</script>\n' >"$work/guidelines.md"
"$bin" --db "$demo" guidelines set "$work/guidelines.md" 2>/dev/null
printf 'target,paper,stars,note\ndemo-02,demo-04,5,"Same task, same data"\ndemo-02,demo-09,cannot-judge,A field I do not know\n' >"$work/notes.csv"
"$bin" --db "$demo" import ratings "$work/notes.csv" 2>/dev/null
# A trial of a judge that is a local command, and a judge made from it: /judges with both.
JUDGE_LOG=$work/judge.log "$bin" --db "$demo" judge --command \
    "python3 tests/fixtures/judges/command_judge.py" --trial 2>/dev/null
JUDGE_LOG=$work/judge.log "$bin" --db "$demo" judge --command \
    "python3 tests/fixtures/judges/command_judge.py" --from-trial 1 --name script 2>/dev/null
noted_target=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT id FROM papers WHERE external_id = ?", ("demo-02",)).fetchone()[0])' "$demo")
serve "$demo"
url=$(cat "$demo.url")
done_job=$(upload "$url" papers src/demo/papers.csv)
printf 'id,title\nA1,One\nA1,Twice\n' >"$work/broken.csv"
failed_job=$(upload "$url" papers "$work/broken.csv")
# Another process holds the write lock for a while, so that the next import waits, writing.
python3 -c 'import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
time.sleep(20)' "$demo" &
pids+=($!)
sleep 0.5
running_job=$(upload "$url" papers src/demo/papers.csv)
first_target=$(curl -sf "$url/targets" | grep -m1 -o 'href="/targets/[0-9]*"' | sed 's/href="//; s/"$//')

audit "$empty_url/" "$empty_url/import" "$empty_url/lists" "$empty_url/raters" \
    "$empty_url/guidelines" \
    "$url$running_job" "$url$done_job" "$url$failed_job" "$url/import" \
    "$url/" "$url/targets" "$url$first_target" "$url/papers?q=topic" \
    "$url/targets/$noted_target" "$url/leaderboard/targets/$noted_target" "$url/guidelines" \
    "$url/leaderboard" "$url/leaderboard/targets" "$url/checks" "$url/checks/recheck" \
    "$url/lists" "$url/raters" "$url/judges" "$url/judges/trials/1/disagreements" \
    "$url/judges/script/disagreements" "$url/leaderboard?judge=script"
