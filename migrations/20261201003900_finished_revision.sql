-- Which targets being rated are fully rated changes with ratings, and also with the rating
-- plan and the raters (a target that needs more raters than rated it is no longer fully
-- rated; one whose unfinished rater is removed may be), which move neither the rating history
-- nor the study's revision counter. What is shown of fully rated targets only (the
-- leaderboard, the lists) is kept with this counter beside the others, so that nothing kept
-- from before such a change is served after it.
ALTER TABLE study ADD COLUMN finished_revision INTEGER NOT NULL DEFAULT 0;

-- Rule: every change of which targets being rated are fully rated moves the finished revision.
CREATE TRIGGER targets_finished_revision
AFTER UPDATE OF active, pooled, raters, raters_done, needed ON targets
WHEN (OLD.active AND OLD.fully_rated) IS NOT (NEW.active AND NEW.fully_rated)
BEGIN
    UPDATE study SET finished_revision = finished_revision + 1 WHERE id = 1;
END;
