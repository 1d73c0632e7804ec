-- Each model's list per target once more, packed into one value: the lists view reads every
-- list of every target it speaks over (study L: 40,000 targets x 8 models), and stepping their
-- 2.56 M rows of `recommendations` took most of its time; one packed row per list reads about
-- ten times faster. Written with the list by the import (src/study/import/store.rs); lists are
-- replaced, never removed. `papers`: the papers' keys, best first, after one byte giving their
-- width: 4 (each key from 0 below 2^32) or 8, each key big-endian.
CREATE TABLE packed_lists (
    model_id  INTEGER NOT NULL REFERENCES models (id),
    target_id INTEGER NOT NULL REFERENCES papers (id),
    papers    BLOB    NOT NULL,
    PRIMARY KEY (model_id, target_id)
) WITHOUT ROWID;

INSERT INTO packed_lists (model_id, target_id, papers)
SELECT model_id, target_id,
       CASE WHEN MIN(paper_id) >= 0 AND MAX(paper_id) < 4294967296
            THEN unhex('04' || group_concat(printf('%08X', paper_id), '' ORDER BY position))
            ELSE unhex('08' || group_concat(printf('%016X', paper_id), '' ORDER BY position))
       END
FROM recommendations
GROUP BY model_id, target_id;
