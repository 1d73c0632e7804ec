#!/usr/bin/env python3
"""The first page after a rating that finishes a target: `/leaderboard`, then the dashboard.

    scripts/bench-after-rating.py http://127.0.0.1:PORT STUDY.db HELD.csv

HELD.csv (target,paper,stars) holds one rating of each of several targets, the one pair each
of them still lacks: every rating of it finishes its target. The first half of them are given
one by one through the rating page's form, as its script sends them, each followed by
`/leaderboard` (its first load after the rating, timed) and again (from what the study keeps);
the second half the same way with the owner's dashboard `/`. STUDY.db is read (read only) for
the targets' keys, which the rating's address holds.

Prints one JSON object per page: the median and the worst of its first loads, the median of
the loads after them, and the load average of the machine.
"""
import csv
import http.client
import importlib
import json
import os
import re
import sqlite3
import statistics
import sys
import urllib.parse

# One timed request, as the evaluation's bench makes it.
timed = importlib.import_module("bench-evaluation").timed


def main():
    base, study, held = sys.argv[1:4]
    with open(held) as lines:
        ratings = [row for row in csv.DictReader(lines)]
    database = sqlite3.connect(f"file:{study}?mode=ro", uri=True)
    key_of = lambda paper: database.execute(
        "SELECT id FROM papers WHERE external_id = ?", (paper,)).fetchone()[0]
    address = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=120)
    # The rating page's form: a browser-session cookie and the token bound to it.
    _, response, data = timed(connection, "GET", f"/targets/{key_of(ratings[0]['target'])}")
    cookie = re.search(r"paperjudge_browser=[^;]+", response.getheader("Set-Cookie")).group(0)
    token = re.search(rb'name="csrf_token" value="([^"]+)"', data).group(1).decode()
    # Both pages once, so that what they keep besides the evaluation is warm.
    for path in ["/leaderboard", "/"]:
        timed(connection, "GET", path)
    half = len(ratings) // 2
    for page, given in [("/leaderboard", ratings[:half]), ("/", ratings[half:])]:
        first, then = [], []
        for rating in given:
            body = urllib.parse.urlencode(
                {"paper": rating["paper"], "stars": rating["stars"], "csrf_token": token})
            _, response, answer = timed(
                connection, "POST", f"/targets/{key_of(rating['target'])}/ratings", body, {
                    "Content-Type": "application/x-www-form-urlencoded",
                    "Accept": "application/json",
                    "Cookie": cookie,
                })
            assert response.status == 200, (response.status, answer)
            elapsed, response, _ = timed(connection, "GET", page)
            assert response.status == 200, (page, response.status)
            first.append(elapsed)
            then.append(timed(connection, "GET", page)[0])
        print(json.dumps({
            "path": page,
            "ratings": len(given),
            "first_median_ms": round(statistics.median(first), 2),
            "first_max_ms": round(max(first), 2),
            "then_median_ms": round(statistics.median(then), 2),
            "load": round(os.getloadavg()[0], 2),
        }), flush=True)


if __name__ == "__main__":
    main()
