#!/usr/bin/env bash
# Takes again the pictures of docs/ that show the demo study (docs/README.md): rated by
# scripts/rate_demo.py, nine pairs re-checked by scripts/recheck_demo.py, and an upload of two
# runs with problems. The rating page's picture (a note being typed) and the verdict on study S
# are taken by hand.
#
#   scripts/screenshots.sh      # writes docs/{checks,decision-dashboard,import,import-problems,
#                               #   leaderboard,lists}.png
#
# PAPERJUDGE_BIN: a binary built already (else the debug build, built now).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
. "$root/scripts/lib/serve.sh"
browser_tools
start_study_work

demo=$work/demo.db
"$bin" --db "$demo" import papers src/demo/papers.csv 2>/dev/null
"$bin" --db "$demo" import recommendations src/demo/recommendations.csv 2>/dev/null
"$bin" --db "$demo" export pool -o "$work/pool.csv" 2>/dev/null
python3 scripts/rate_demo.py src/demo/recommendations.csv "$work/pool.csv" >"$work/ratings.csv"
"$bin" --db "$demo" import ratings "$work/ratings.csv" 2>/dev/null
serve "$demo"
url=$(cat "$demo.url")
python3 scripts/recheck_demo.py "$url" "$work/ratings.csv" 9 >/dev/null
# Two runs with problems: an unknown paper in one, a score that is no number in the other.
printf 'demo-01 Q0 demo-02 1 0.9 lda\ndemo-01 Q0 demo-99 2 0.8 lda\n' >"$work/lda-300.run"
printf 'demo-01 Q0 demo-03 1 high bm25\n' >"$work/bm25.run"
problems=$(upload "$url" recommendations "$work/lda-300.run" "$work/bm25.run")
for _ in $(seq 100); do
    curl -sf "$url$problems" | grep -q 'Nothing was written' && break
    sleep 0.1
done

NODE_PATH=$tools/node_modules node scripts/screenshots.cjs \
    "$url/checks=docs/checks.png" "$url/=docs/decision-dashboard.png" \
    "$url/import=docs/import.png" "$url$problems=docs/import-problems.png" \
    "$url/leaderboard=docs/leaderboard.png" "$url/lists=docs/lists.png"
