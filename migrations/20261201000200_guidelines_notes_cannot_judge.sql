-- Rating as researchers do it (issue 40): the study's own guidelines, a note on any rating, and
-- "I can't judge this".
--
-- The guidelines: Markdown the owner writes, shown on every rating page. Every version is
-- kept, so that what a rating was made under can be read back: `markdown` NULL records a
-- clear (the built-in scale alone from then on). The current guidelines are the last version.
CREATE TABLE guidelines (
    version  INTEGER PRIMARY KEY CHECK (version >= 1),
    markdown TEXT,
    set_at   TEXT    NOT NULL
);

-- The ratings, rebuilt: `stars` NULL is a pair the rater marked "I can't judge this" (handled,
-- so it counts for finishing the target, and unjudged in every metric); `note` the rater's
-- note (up to 2,000 characters); `guidelines` the version of the guidelines the rating was
-- made under (NULL: before the study had any).
DROP TRIGGER rating_history_first_rating;

CREATE TABLE ratings_with_notes (
    target_id   INTEGER NOT NULL REFERENCES papers (id),
    paper_id    INTEGER NOT NULL REFERENCES papers (id),
    rater_id    INTEGER NOT NULL REFERENCES raters (id),
    stars       INTEGER CHECK (stars BETWEEN 1 AND 5),
    rated_at    TEXT    NOT NULL,
    first_rated INTEGER,
    note        TEXT    CHECK (length(note) BETWEEN 1 AND 2000),
    guidelines  INTEGER REFERENCES guidelines (version),
    PRIMARY KEY (target_id, paper_id, rater_id)
) WITHOUT ROWID;

INSERT INTO ratings_with_notes (target_id, paper_id, rater_id, stars, rated_at, first_rated)
SELECT target_id, paper_id, rater_id, stars, rated_at, first_rated FROM ratings;

DROP TABLE ratings;

ALTER TABLE ratings_with_notes RENAME TO ratings;

CREATE INDEX ratings_by_rater_id ON ratings (rater_id, target_id);

-- The history records "can't judge" and the note beside the stars, before and after each
-- change, so that undo can give a pair back its answer and its note.
ALTER TABLE rating_history ADD COLUMN cannot_judge INTEGER NOT NULL DEFAULT 0
    CHECK (cannot_judge IN (0, 1));
ALTER TABLE rating_history ADD COLUMN previous_cannot_judge INTEGER NOT NULL DEFAULT 0
    CHECK (previous_cannot_judge IN (0, 1));
ALTER TABLE rating_history ADD COLUMN note TEXT;
ALTER TABLE rating_history ADD COLUMN previous_note TEXT;

-- The triggers of the ratings, as before (they went with the table), but a pair's first
-- rating is its first answer, "can't judge" too: it finishes a target as stars do.
CREATE TRIGGER ratings_count_insert AFTER INSERT ON ratings
BEGIN
    UPDATE targets SET rated = rated + 1
    WHERE target_id = NEW.target_id
      AND NOT EXISTS (SELECT 1 FROM ratings r
                      WHERE r.target_id = NEW.target_id AND r.paper_id = NEW.paper_id
                        AND r.rater_id <> NEW.rater_id);
    INSERT OR IGNORE INTO assignments (target_id, rater_id, assigned_at)
    VALUES (NEW.target_id, NEW.rater_id, NEW.rated_at);
    UPDATE assignments SET rated = rated + 1
    WHERE target_id = NEW.target_id AND rater_id = NEW.rater_id;
END;

CREATE TRIGGER ratings_count_delete AFTER DELETE ON ratings
BEGIN
    UPDATE targets SET rated = rated - 1
    WHERE target_id = OLD.target_id
      AND NOT EXISTS (SELECT 1 FROM ratings r
                      WHERE r.target_id = OLD.target_id AND r.paper_id = OLD.paper_id);
    UPDATE assignments SET rated = rated - 1
    WHERE target_id = OLD.target_id AND rater_id = OLD.rater_id;
END;

CREATE TRIGGER ratings_first_rated_on_insert AFTER INSERT ON ratings
BEGIN
    UPDATE ratings SET first_rated = (
        SELECT MIN(h.id) FROM rating_history h
        WHERE h.target_id = NEW.target_id AND h.paper_id = NEW.paper_id
          AND h.rater_id = NEW.rater_id AND (h.stars IS NOT NULL OR h.cannot_judge = 1)
    )
    WHERE target_id = NEW.target_id AND paper_id = NEW.paper_id AND rater_id = NEW.rater_id;
END;

CREATE TRIGGER rating_history_first_rating AFTER INSERT ON rating_history
WHEN NEW.stars IS NOT NULL OR NEW.cannot_judge = 1
BEGIN
    UPDATE ratings SET first_rated = NEW.id
    WHERE target_id = NEW.target_id AND paper_id = NEW.paper_id AND rater_id = NEW.rater_id
      AND first_rated IS NULL;
END;
