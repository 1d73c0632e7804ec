#!/usr/bin/env python3
"""Latency of the pages a rater opens, one request at a time over one kept-alive connection.

    scripts/bench-pages.py http://127.0.0.1:PORT REQUESTS PATH...

Prints one JSON object per path: {"path", "status", "bytes", "p50_ms", "p95_ms", "max_ms"},
after a few requests of warm-up. Redirects are not followed: `/next` is timed as the 303 it
answers.
"""
import http.client
import json
import sys
import time
import urllib.parse


def percentile(sorted_values, fraction):
    # Nearest rank: the smallest value with at least `fraction` of the values at or below it.
    rank = max(1, -(-len(sorted_values) * fraction // 1))
    return sorted_values[int(rank) - 1]


def main():
    base, requests, paths = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    address = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
    for path in paths:
        timings, status, size = [], None, 0
        for index in range(requests + 5):
            started = time.perf_counter()
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read()
            elapsed = (time.perf_counter() - started) * 1000
            status, size = response.status, len(body)
            if index >= 5:
                timings.append(elapsed)
        timings.sort()
        print(json.dumps({
            "path": path,
            "status": status,
            "bytes": size,
            "p50_ms": round(percentile(timings, 0.50), 2),
            "p95_ms": round(percentile(timings, 0.95), 2),
            "max_ms": round(timings[-1], 2),
        }), flush=True)


if __name__ == "__main__":
    main()
