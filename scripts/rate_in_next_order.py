"""Rates a study as a rater following `paperjudge next` does, from a file of every pair's
stars (a fully rated study's ratings CSV): the next target, every pair of its pool, again,
until `next` names none. Prints the targets and ratings it took as JSON. With pruning on, each
`next` first prunes the models the verdict rules out, so the pools it builds leave them out.

    python3 scripts/rate_in_next_order.py BIN STUDY.db RATINGS.csv
"""
import csv, io, json, os, subprocess, sys, tempfile

bin_path, db, ratings_file = sys.argv[1:4]


def run(*args):
    done = subprocess.run([bin_path, "--db", db, *args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"paperjudge {' '.join(args)}: {done.stderr}")
    return done.stdout


stars = {(row["target"], row["paper"]): row["stars"] for row in csv.DictReader(open(ratings_file))}
targets = ratings = 0
with tempfile.TemporaryDirectory() as work:
    batch = os.path.join(work, "target.csv")
    while True:
        target = run("next").strip()
        if not target:
            break
        pool = [row["paper"] for row in csv.DictReader(io.StringIO(run("export", "pool")))
                if row["target"] == target and not row["stars"]]
        with open(batch, "w") as out:
            out.write("target,paper,stars\n")
            out.writelines(f"{target},{paper},{stars[(target, paper)]}\n" for paper in pool)
        run("import", "ratings", batch)
        targets += 1
        ratings += len(pool)
print(json.dumps({"targets": targets, "ratings": ratings}))
