#!/usr/bin/env bash
# The whole test suite, the browser tests included: installs Debian's Chromium and chromedriver
# when they are missing (which needs root and the Debian archive), then runs every test of the
# workspace's default members: the app and its statistics (crates/paperjudge-stats).
# `cargo test` alone runs everything but the browser tests, which it lists as ignored.
# Arguments go to cargo test, e.g. `scripts/test.sh --test it web_rating::`.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    echo "installing chromium and chromium-driver for the browser tests" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium chromium-driver >/dev/null
    # The downloaded packages (about 100 MB) are not needed once installed.
    apt-get clean
fi

cargo test "$@" -- --include-ignored
