-- The outputs of `paperjudge leaderboard` kept for the next call on the same study revision
-- (src/study/evaluation/kept/): `key`, the canonical text of what the output depends on (the
-- build, the study's revision, the options, the format); `build` and `revision`, parts of it,
-- by which a new row deletes the rows of other builds and revisions; `digest`, the FNV-1a hash
-- of `output`, which a read checks. At most a handful of rows; nothing else reads them.
CREATE TABLE kept_outputs (
    key      TEXT    PRIMARY KEY,
    build    TEXT    NOT NULL,
    revision TEXT    NOT NULL,
    output   TEXT    NOT NULL,
    digest   INTEGER NOT NULL,
    made_at  TEXT    NOT NULL
);
