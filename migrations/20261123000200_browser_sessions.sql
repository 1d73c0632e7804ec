-- The secret that signs the forms' CSRF tokens of this study (HMAC-SHA256 of the browser
-- session id). Set by the app when it opens a study that has none.
ALTER TABLE study ADD COLUMN form_secret BLOB;

-- The browser session that made a web change or undo: the SHA-256 of its id, in hex (the id
-- itself is a credential of sorts and the study file gets copied and mailed). Undo reverts
-- only the changes of the session that asks. NULL for imports and for changes made before
-- sessions were recorded, which no undo reaches.
ALTER TABLE rating_history ADD COLUMN browser_session TEXT;

CREATE INDEX rating_history_by_browser_session
    ON rating_history (target_id, browser_session, id);
