-- When each rated pair was first rated: the id of its first rating in `rating_history`. A
-- target was completed when the last pair of its pool was first rated, so the order the
-- verdict watches targets in (see src/decision.rs) is read from `ratings` alone, instead of
-- from the whole history on every evaluation. A later change of a rating does not move it;
-- a rating removed (undone) and given again keeps the first.
ALTER TABLE ratings ADD COLUMN first_rated INTEGER;

UPDATE ratings SET first_rated = (
    SELECT MIN(h.id) FROM rating_history h
    WHERE h.target_id = ratings.target_id AND h.paper_id = ratings.paper_id
      AND h.stars IS NOT NULL
);

-- A rating comes back with the first rating its pair ever had: NULL for a pair never rated,
-- which the history row written next (in the same transaction) fills in.
CREATE TRIGGER ratings_first_rated_on_insert AFTER INSERT ON ratings
BEGIN
    UPDATE ratings SET first_rated = (
        SELECT MIN(h.id) FROM rating_history h
        WHERE h.target_id = NEW.target_id AND h.paper_id = NEW.paper_id AND h.stars IS NOT NULL
    )
    WHERE target_id = NEW.target_id AND paper_id = NEW.paper_id;
END;

CREATE TRIGGER rating_history_first_rating AFTER INSERT ON rating_history
WHEN NEW.stars IS NOT NULL
BEGIN
    UPDATE ratings SET first_rated = NEW.id
    WHERE target_id = NEW.target_id AND paper_id = NEW.paper_id AND first_rated IS NULL;
END;
