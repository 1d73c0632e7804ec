"""Rates the whole pool of the demo study by a script, for screenshots and trying the leaderboard.

    paperjudge --db demo.db serve --demo            # once, to load the demo study (then stop it)
    paperjudge --db demo.db export pool -o pool.csv
    python3 scripts/rate_demo.py src/demo/recommendations.csv pool.csv > ratings.csv
    paperjudge --db demo.db import ratings ratings.csv

Papers that several models rank high get more stars, plus noise (fixed seed): a stand-in
for a researcher, not a judgment.
"""
import csv, random, sys
from collections import defaultdict

DEPTH = 8
random.seed(7)
consensus = defaultdict(float)
with open(sys.argv[1], newline="") as f:
    for row in csv.DictReader(f):
        rank = int(row["rank"])
        if rank <= DEPTH:
            consensus[(row["target"], row["paper"])] += (DEPTH + 1 - rank) / DEPTH
with open(sys.argv[2], newline="") as f:
    pool = [(r["target"], r["paper"]) for r in csv.DictReader(f)]
noisy = {pair: consensus[pair] + random.gauss(0, 0.45) for pair in pool}
ordered = sorted(noisy.values())
# Share of pairs at or below each star: 1★ 30%, 2★ 55%, 3★ 75%, 4★ 90%, 5★ the rest.
cuts = [ordered[int(len(ordered) * q) - 1] for q in (0.30, 0.55, 0.75, 0.90)]
out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["target", "paper", "stars"])
for target, paper in pool:
    stars = 1 + sum(noisy[(target, paper)] > cut for cut in cuts)
    out.writerow([target, paper, stars])
