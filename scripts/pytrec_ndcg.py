"""Reference for the leaderboard benchmark: mean ndcg_cut_8 of TREC runs with pytrec_eval.

    python3 scripts/pytrec_ndcg.py QRELS RUN...

Reads the qrels and every run from their TREC files, as a researcher would, and prints each
run's mean over the topics it has (trec_eval's mean).
"""
import sys

import pytrec_eval


def read_qrels(path):
    qrels = {}
    with open(path) as lines:
        for line in lines:
            topic, _, doc, rel = line.split()
            qrels.setdefault(topic, {})[doc] = int(rel)
    return qrels


def read_run(path):
    run = {}
    with open(path) as lines:
        for line in lines:
            topic, _, doc, _, score, _ = line.split()
            run.setdefault(topic, {})[doc] = float(score)
    return run


def main():
    qrels = read_qrels(sys.argv[1])
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_8"})
    for path in sys.argv[2:]:
        scores = evaluator.evaluate(read_run(path))
        values = [measures["ndcg_cut_8"] for measures in scores.values()]
        print(f"{path}\t{sum(values) / len(values):.6f}")


if __name__ == "__main__":
    main()
