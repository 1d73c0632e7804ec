-- A judge reads what the raters read (issue 40): a prompt may hold the study's guidelines
-- (`{guidelines}`, as paperjudge's own prompt does), and what a judge graded under them is
-- kept as a rating keeps it.
--
-- `judges.guidelines`: the version of the guidelines its prompt was filled with (NULL: a
-- prompt without `{guidelines}`, a study that never had any, or grades imported); a run under
-- its name with other guidelines in force is refused, as one with another prompt is.
-- `judge_grades.guidelines`: the version each grade was made under (NULL likewise).
ALTER TABLE judges ADD COLUMN guidelines INTEGER REFERENCES guidelines (version);

ALTER TABLE judge_grades ADD COLUMN guidelines INTEGER REFERENCES guidelines (version);
