-- The models' lists, stored model by model: (model, target, position) instead of (target,
-- model, position). A model's run file imported after the others, or imported again after a
-- retraining, then writes its own part of the table only, instead of a few rows into every
-- page of it; an import costs what its file holds, not what the study holds. Reads of one
-- target's lists name the models (`model_id IN (SELECT id FROM models)`) to seek to each list.
CREATE TABLE recommendations_by_model (
    target_id  INTEGER NOT NULL REFERENCES papers (id),
    model_id   INTEGER NOT NULL REFERENCES models (id),
    position   INTEGER NOT NULL CHECK (position >= 1),
    paper_id   INTEGER NOT NULL REFERENCES papers (id),
    given_rank INTEGER,
    score      REAL,
    PRIMARY KEY (model_id, target_id, position)
) WITHOUT ROWID;

INSERT INTO recommendations_by_model (target_id, model_id, position, paper_id, given_rank, score)
SELECT target_id, model_id, position, paper_id, given_rank, score
FROM recommendations
ORDER BY model_id, target_id, position;

DROP TABLE recommendations;

ALTER TABLE recommendations_by_model RENAME TO recommendations;
