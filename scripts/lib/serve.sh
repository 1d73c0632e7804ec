# Shell functions for the scripts that drive a served study in headless Chromium (scripts/axe.sh,
# scripts/screenshots.sh). Sourced, from the repository's root ($root).

# Sets $bin (PAPERJUDGE_BIN: a binary built already, else the debug build, built now), $work (a
# scratch directory) and pids (the servers started), all gone or stopped when the script exits.
start_study_work() {
    if [ -z "${PAPERJUDGE_BIN:-}" ]; then
        cargo build -q
    fi
    bin=${PAPERJUDGE_BIN:-$root/target/debug/paperjudge}
    work=$(mktemp -d)
    pids=()
    trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
}

# Starts `paperjudge serve` on a free port for the study $1; its address goes to $1.url.
serve() {
    "$bin" --db "$1" serve --addr 127.0.0.1:0 2>"$1.log" &
    pids+=($!)
    for _ in $(seq 200); do
        grep -o 'http://127.0.0.1:[0-9]*' "$1.log" >"$1.url" 2>/dev/null && break
        sleep 0.05
    done
}

# Uploads the files $3... of kind $2 to the server at $1 as the import page's script does;
# prints the job's address.
upload() {
    local base=$1 kind=$2 page=$work/page.html cookies=$work/cookies token file
    shift 2
    local files=()
    for file in "$@"; do files+=(-F "file=@$file"); done
    curl -sf -c "$cookies" -o "$page" "$base/import"
    token=$(grep -m1 -o 'name="csrf_token" value="[^"]*"' "$page" | sed 's/.*value="//; s/"$//')
    curl -sf -b "$cookies" -H 'Accept: application/json' -F "csrf_token=$token" -F "kind=$kind" \
        "${files[@]}" "$base/import" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["url"])'
}

# Installs puppeteer-core (and axe-core) from npm into target/axe once, and Debian's Chromium
# when it is missing (as scripts/test.sh does). $root: the repository.
browser_tools() {
    tools=$root/target/axe
    if [ ! -d "$tools/node_modules/axe-core" ] || [ ! -d "$tools/node_modules/puppeteer-core" ]; then
        mkdir -p "$tools"
        (cd "$tools" && npm init -y >/dev/null &&
            npm install --no-audit --no-fund --silent axe-core@4.14 puppeteer-core@24)
    fi
    if ! command -v chromium >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq chromium >/dev/null
    fi
}
