-- A counter of the study's changes other than ratings: every import (papers, lists, ratings)
-- and every change of the targets chosen. With the last id of the rating history it names
-- a revision of everything the leaderboard reads, so that a server can keep the study's
-- evaluation in memory and know when it is out of date. Bumped once per import or choice,
-- in its transaction, never per row.
ALTER TABLE study ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
