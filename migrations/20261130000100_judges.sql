-- Machine judges (docs/metrics.md, "Machine judges"): a judge gives a pooled pair one whole
-- star from 1 to 5, the question a rater answers. Its grades are kept here, apart from the
-- ratings: no trigger of the ratings reads them, so they never finish a target, never enter
-- the judgments of the leaderboard and never show on a rating page.

-- A judge: a name; for one that grades through a model endpoint (`paperjudge judge`), the
-- model, the endpoint it was last run against, its prompt (the template, before a pair's
-- texts fill it in), the prompt's SHA-256 and the settings of its requests (JSON). All NULL
-- for a judge whose grades were imported. `revision` moves with every change of its grades:
-- what is computed from them is kept until it moves.
CREATE TABLE judges (
    id            INTEGER PRIMARY KEY,
    name          TEXT    NOT NULL UNIQUE,
    model         TEXT,
    endpoint      TEXT,
    prompt        TEXT,
    prompt_sha256 TEXT,
    settings      TEXT,
    added_at      TEXT    NOT NULL,
    revision      INTEGER NOT NULL DEFAULT 0,
    CHECK ((model IS NULL) = (prompt IS NULL) AND (model IS NULL) = (prompt_sha256 IS NULL)
           AND (model IS NULL) = (endpoint IS NULL))
);

-- A judge's grade of a pair (target, paper): whole stars, an optional explanation, and when
-- it was given. A judge removed takes its grades with it.
CREATE TABLE judge_grades (
    judge_id    INTEGER NOT NULL REFERENCES judges (id) ON DELETE CASCADE,
    target_id   INTEGER NOT NULL REFERENCES papers (id),
    paper_id    INTEGER NOT NULL REFERENCES papers (id),
    stars       INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    explanation TEXT,
    judged_at   TEXT    NOT NULL,
    PRIMARY KEY (judge_id, target_id, paper_id)
) WITHOUT ROWID;
