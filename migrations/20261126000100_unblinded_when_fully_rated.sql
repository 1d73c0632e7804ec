-- A target is unblinded once its pool is fully rated: from then on its numbers are in every
-- view a rater reaches (the leaderboard, its downloads, the dashboard), and they tell which
-- models listed the paper whose rating changes. So every later change of its ratings is made
-- with its provenance known, whatever anyone viewed (src/db/ratings.rs marks it in
-- `rating_history.provenance_known`, reading `unblinded_at` before the change is written).
--
-- `targets.unblinded_at` was set by the views that showed a target (a per-target view, an
-- include-partial one), on GET. It is now set in the transaction that first leaves the target
-- fully rated, by whatever change does (a rating, an undo, an import, a pool that shrinks),
-- and no view writes it. Marks that views wrote in a study from before stay.

UPDATE targets SET unblinded_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
WHERE unblinded_at IS NULL AND pooled > 0 AND rated = pooled;

CREATE TRIGGER targets_unblinded_when_fully_rated AFTER UPDATE OF rated, pooled ON targets
WHEN NEW.unblinded_at IS NULL AND NEW.pooled > 0 AND NEW.rated = NEW.pooled
BEGIN
    UPDATE targets SET unblinded_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
    WHERE target_id = NEW.target_id;
END;
