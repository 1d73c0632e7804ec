-- A judge that is a local command (issue 42, item 3: `paperjudge judge --command "CMD ARGS"`):
-- started once, it reads one JSON line a pair and writes one a grade. `command` is its command
-- line (the words joined again, each quoted as a shell needs): what identifies it, as the model
-- and the prompt identify a judge behind an endpoint. A judge is one or the other, or neither
-- (grades imported).
ALTER TABLE judges ADD COLUMN command TEXT CHECK (command IS NULL OR model IS NULL);
