-- Trials of a judge before it is trusted (issue 41): a trial grades only the tuning set, the
-- first N fully rated targets in the study's order, and is no judge (its grades reach no
-- estimate). A judge made from a trial keeps its grades.

-- The tuning set, in the study's order: fixed when a trial first asks for it, the same for
-- every trial until one asks for another number of targets (topped up, in the study's order,
-- while it has fewer than asked, and keeping only targets still being rated and fully rated).
CREATE TABLE tuning_targets (
    position  INTEGER PRIMARY KEY,
    target_id INTEGER NOT NULL UNIQUE REFERENCES papers (id)
);

-- A trial: what it grades with (a model behind an endpoint with its prompt, the guidelines'
-- version the prompt was filled with and the requests' settings; or a local command), the
-- tuning set's size it asked (`tuning_targets`), the pairs it set out to grade, and the
-- seconds its run took so far.
CREATE TABLE judge_trials (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    model          TEXT,
    endpoint       TEXT,
    prompt         TEXT,
    prompt_sha256  TEXT,
    guidelines     INTEGER REFERENCES guidelines (version),
    settings       TEXT,
    command        TEXT,
    tuning_targets INTEGER NOT NULL CHECK (tuning_targets >= 1),
    pairs          INTEGER NOT NULL CHECK (pairs >= 0),
    seconds        REAL    NOT NULL DEFAULT 0 CHECK (seconds >= 0),
    created_at     TEXT    NOT NULL,
    CHECK ((model IS NULL) <> (command IS NULL)
           AND (model IS NULL) = (prompt IS NULL) AND (model IS NULL) = (endpoint IS NULL)
           AND (model IS NULL) = (prompt_sha256 IS NULL))
);

-- A trial's grade of a pair of the tuning set, as a judge's.
CREATE TABLE trial_grades (
    trial_id    INTEGER NOT NULL REFERENCES judge_trials (id) ON DELETE CASCADE,
    target_id   INTEGER NOT NULL REFERENCES papers (id),
    paper_id    INTEGER NOT NULL REFERENCES papers (id),
    stars       INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    explanation TEXT,
    judged_at   TEXT    NOT NULL,
    PRIMARY KEY (trial_id, target_id, paper_id)
) WITHOUT ROWID;

-- The trial a judge was made from (`judge --from-trial ID`), whose grades it kept.
ALTER TABLE judges ADD COLUMN from_trial INTEGER REFERENCES judge_trials (id);
