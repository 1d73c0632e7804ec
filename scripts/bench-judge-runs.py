#!/usr/bin/env python3
"""Ratings saved while a judge run goes on, and how long each took to be answered.

    scripts/bench-judge-runs.py BASE TARGET_KEY PAPERS baseline N
    scripts/bench-judge-runs.py BASE TARGET_KEY PAPERS browser CONCURRENCY NAME ENDPOINT
    scripts/bench-judge-runs.py BASE TARGET_KEY PAPERS cli CONCURRENCY NAME ENDPOINT BIN DB

PAPERS: the external ids of the pool of the target with key TARGET_KEY, comma-separated. One
rater rates them in turn, 10 ms between an answer and the next rating, each a POST of the
rating page's form as its script sends it: N ratings with no run (`baseline`), or for as long
as a judge run lasts, one started from the browser's form (`POST /judges/run`, followed on its
JSON until it has ended) or `paperjudge judge` in a process of its own (`cli`). Every rating
must be answered 200. Prints one JSON object: the ratings' latencies (median, 95th
percentile, worst), what the run said, and the load average.
"""
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse


def main():
    base, target, papers, mode = sys.argv[1:5]
    papers = papers.split(",")
    address = urllib.parse.urlsplit(base)
    connect = lambda: http.client.HTTPConnection(address.hostname, address.port, timeout=120)
    rating = connect()
    rating.request("GET", f"/targets/{target}")
    page = rating.getresponse()
    html = page.read()
    cookie = re.search(r"paperjudge_browser=[^;]+", page.getheader("Set-Cookie")).group(0)
    token = re.search(rb'name="csrf_token" value="([^"]+)"', html).group(1).decode()
    form = {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie}
    latencies = []

    def rate():
        n = len(latencies)
        body = urllib.parse.urlencode(
            {"paper": papers[n % len(papers)], "stars": n % 5 + 1, "csrf_token": token})
        started = time.perf_counter()
        rating.request("POST", f"/targets/{target}/ratings", body=body,
                       headers={**form, "Accept": "application/json"})
        answer = rating.getresponse()
        answer.read()
        latencies.append((time.perf_counter() - started) * 1000)
        assert answer.status == 200, (answer.status, len(latencies))
        time.sleep(0.01)

    result = {"mode": mode, "load_before": os.getloadavg()[0]}
    if mode == "baseline":
        for _ in range(int(sys.argv[5])):
            rate()
    elif mode == "browser":
        concurrency, name, endpoint = sys.argv[5:8]
        starting = connect()
        body = urllib.parse.urlencode({"csrf_token": token, "endpoint": endpoint, "model": "stand-in",
                                       "name": name, "concurrency": concurrency})
        starting.request("POST", "/judges/run", body=body, headers=form)
        started = starting.getresponse()
        started.read()
        assert started.status == 303, started.status
        run = started.getheader("Location") + ".json"
        state = {"state": "running"}

        def follow():
            while state["state"] == "running":
                time.sleep(0.2)
                starting.request("GET", run)
                state.update(json.loads(starting.getresponse().read()))

        following = threading.Thread(target=follow)
        following.start()
        while state["state"] == "running":
            rate()
        following.join()
        result.update(concurrency=int(concurrency), state=state["state"], said=state["summary"])
    elif mode == "cli":
        concurrency, name, endpoint, binary, db = sys.argv[5:10]
        judge = subprocess.Popen(
            [binary, "--db", db, "judge", "--endpoint", endpoint, "--model", "stand-in",
             "--name", name, "--concurrency", concurrency],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        while judge.poll() is None:
            rate()
        said = judge.stderr.read().strip().splitlines()
        result.update(concurrency=int(concurrency), state="done" if judge.returncode == 0 else "failed",
                      said=said[-1] if said else "")
    latencies.sort()
    result.update(
        ratings=len(latencies),
        median_ms=round(statistics.median(latencies), 2),
        p95_ms=round(latencies[max(0, -(-len(latencies) * 95 // 100) - 1)], 2),
        max_ms=round(latencies[-1], 2),
        load_after=os.getloadavg()[0],
    )
    print(json.dumps(result), flush=True)


main()
