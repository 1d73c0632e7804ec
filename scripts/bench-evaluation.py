#!/usr/bin/env python3
"""Latency of the leaderboard's pages, and of the first load after a rating.

    scripts/bench-evaluation.py http://127.0.0.1:PORT TARGET_KEY PAPER REQUESTS CHANGES [PAGE...]

1. Each page is requested once (its first load, which may compute the evaluation) and then
   REQUESTS times one after another over one kept-alive connection: the dashboard, the
   leaderboard page, its JSON, the per-target matrix and the per-target view of the target
   with key TARGET_KEY; or the PAGEs given.
2. CHANGES times: the rating of PAPER (an external id in the pool of TARGET_KEY, which is
   fully rated) is changed through the rating page's form, as its script sends it, and the
   leaderboard page (or the first PAGE given) is timed right after (its first load after a
   rating), then once more.

Prints one JSON object per page and one for the loads after a rating, each with the load
average of the machine when it was measured.
"""
import http.client
import json
import os
import re
import statistics
import sys
import time
import urllib.parse


def percentile(sorted_values, fraction):
    # Nearest rank: the smallest value with at least `fraction` of the values at or below it.
    rank = max(1, -(-len(sorted_values) * fraction // 1))
    return sorted_values[int(rank) - 1]


def timed(connection, method, path, body=None, headers=None):
    started = time.perf_counter()
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    return (time.perf_counter() - started) * 1000, response, data


def main():
    base, target, paper, requests, changes = sys.argv[1:6]
    requests, changes = int(requests), int(changes)
    address = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=120)
    pages = sys.argv[6:] or ["/", "/leaderboard", "/leaderboard.json", "/leaderboard/targets",
                             f"/leaderboard/targets/{target}"]
    watched = sys.argv[6] if len(sys.argv) > 6 else "/leaderboard"
    for path in pages:
        first, response, data = timed(connection, "GET", path)
        assert response.status == 200, (path, response.status)
        timings = sorted(timed(connection, "GET", path)[0] for _ in range(requests))
        print(json.dumps({
            "path": path,
            "bytes": len(data),
            "first_ms": round(first, 2),
            "p50_ms": round(percentile(timings, 0.50), 2),
            "p95_ms": round(percentile(timings, 0.95), 2),
            "max_ms": round(timings[-1], 2),
            "load": round(os.getloadavg()[0], 2),
        }), flush=True)

    # The rating page's form: a browser-session cookie and the token bound to it.
    _, response, data = timed(connection, "GET", f"/targets/{target}")
    cookie = re.search(r"paperjudge_browser=[^;]+", response.getheader("Set-Cookie")).group(0)
    token = re.search(rb'name="csrf_token" value="([^"]+)"', data).group(1).decode()
    after, again = [], []
    # Stars 1 and 2 in turn: after the first, unmeasured, round every POST changes the rating.
    for change in range(changes + 1):
        body = urllib.parse.urlencode(
            {"paper": paper, "stars": 1 + change % 2, "csrf_token": token})
        _, response, _ = timed(connection, "POST", f"/targets/{target}/ratings", body, {
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json",
            "Cookie": cookie,
        })
        assert response.status == 200, response.status
        first, then = (timed(connection, "GET", watched)[0] for _ in range(2))
        if change > 0:
            after.append(first)
            again.append(then)
    print(json.dumps({
        "path": f"{watched} after a rating",
        "changes": changes,
        "first_median_ms": round(statistics.median(after), 2),
        "first_max_ms": round(max(after), 2),
        "then_median_ms": round(statistics.median(again), 2),
        "load": round(os.getloadavg()[0], 2),
    }), flush=True)


if __name__ == "__main__":
    main()
