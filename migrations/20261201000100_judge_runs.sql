-- Judges that never mix (issue 39): a judge's id is never given again, and one judge runs in
-- one place at a time, across processes.

-- The judges, rebuilt with AUTOINCREMENT: without it SQLite gives a new row the largest id
-- plus one, so that a judge added after the last one was removed took its id, and the grades
-- a run of the removed judge still stored landed under the new one. Their grades are rebuilt
-- with them (their key refers to the judges' table).
CREATE TABLE judges_never_reused (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
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

INSERT INTO judges_never_reused
    (id, name, model, endpoint, prompt, prompt_sha256, settings, added_at, revision)
SELECT id, name, model, endpoint, prompt, prompt_sha256, settings, added_at, revision
FROM judges;

CREATE TABLE judge_grades_of_judges (
    judge_id    INTEGER NOT NULL REFERENCES judges_never_reused (id) ON DELETE CASCADE,
    target_id   INTEGER NOT NULL REFERENCES papers (id),
    paper_id    INTEGER NOT NULL REFERENCES papers (id),
    stars       INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    explanation TEXT,
    judged_at   TEXT    NOT NULL,
    PRIMARY KEY (judge_id, target_id, paper_id)
) WITHOUT ROWID;

INSERT INTO judge_grades_of_judges
    (judge_id, target_id, paper_id, stars, explanation, judged_at)
SELECT judge_id, target_id, paper_id, stars, explanation, judged_at FROM judge_grades;

DROP TABLE judge_grades;
DROP TABLE judges;
ALTER TABLE judges_never_reused RENAME TO judges;
ALTER TABLE judge_grades_of_judges RENAME TO judge_grades;

-- The run of a judge going on now, by the judge's name (a judge is added with its first
-- grade): a lease that one run holds at a time, wherever it runs. `holder` is the run's own
-- random token, which every write of its grades checks in the same transaction; `place` says
-- where it runs (from the command line, from the browser), `pid` and `host` which process;
-- `renewed_at` (Unix seconds) is when it was last heard from: it renews the lease every few
-- seconds, and another run may take over a lease not renewed for 30 s, or at once one whose
-- process has ended on the same host.
CREATE TABLE judge_runs (
    judge      TEXT    PRIMARY KEY,
    holder     TEXT    NOT NULL,
    place      TEXT    NOT NULL,
    pid        INTEGER NOT NULL,
    host       TEXT    NOT NULL,
    started_at TEXT    NOT NULL,
    renewed_at INTEGER NOT NULL
) WITHOUT ROWID;
