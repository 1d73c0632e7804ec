"""Re-checks pairs of the demo study through the running app, for screenshots of /checks.

    python3 scripts/recheck_demo.py http://127.0.0.1:8080 ratings.csv 20

ratings.csv is what scripts/rate_demo.py wrote. Each re-check gives the stars of the first
rating, one star off now and then (fixed seed): a stand-in for a rater, not a judgment. It
goes through /checks/recheck as a browser would: the page's form, its token and its cookie.
"""
import csv, random, re, sys, urllib.parse, urllib.request
from http.cookiejar import CookieJar

base, ratings_file, count = sys.argv[1].rstrip("/"), sys.argv[2], int(sys.argv[3])
random.seed(11)
with open(ratings_file, newline="") as f:
    stars_then = {(r["target"], r["paper"]): int(r["stars"]) for r in csv.DictReader(f)}
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
field = lambda name, page: re.search(rf'name="{name}" value="([^"]*)"', page).group(1)
for _ in range(count):
    page = opener.open(base + "/checks/recheck").read().decode()
    if 'id="recheck-form"' not in page:
        break
    target, paper = field("target", page), field("paper", page)
    then = stars_then[(target, paper)]
    now = min(5, max(1, then + random.choice([0, 0, 0, 0, 0, 1, -1])))
    form = {"csrf_token": field("csrf_token", page), "target": target, "paper": paper, "stars": now}
    opener.open(base + "/checks/recheck", urllib.parse.urlencode(form).encode()).read()
