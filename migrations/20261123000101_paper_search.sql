-- Full-text search of the library: id, title, authors and abstract of every paper, ranked by
-- bm25. The index holds no copy of the text (external content: it reads `papers`).
CREATE VIRTUAL TABLE papers_search USING fts5 (
    external_id, title, authors, abstract,
    content = 'papers', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

INSERT INTO papers_search (papers_search) VALUES ('rebuild');

-- The ranking of `ORDER BY rank`: bm25 with a match in the id weighing most, then the title,
-- the authors and the abstract.
INSERT INTO papers_search (papers_search, rank) VALUES ('rank', 'bm25(10.0, 5.0, 3.0, 1.0)');

-- New papers wait here to be indexed all at once at the end of their import: FTS5 writes out
-- what it holds at the start of every statement, so indexing a large library row by row takes
-- several times as long as the import itself.
CREATE TABLE papers_search_pending (
    paper_id INTEGER PRIMARY KEY REFERENCES papers (id)
);

CREATE TRIGGER papers_search_insert AFTER INSERT ON papers
BEGIN
    INSERT INTO papers_search_pending (paper_id) VALUES (NEW.id);
END;

-- A paper in the index is taken out with the text it was indexed with, then indexed again; a
-- pending one will be indexed with its text of then.
CREATE TRIGGER papers_search_update AFTER UPDATE OF external_id, title, authors, abstract ON papers
WHEN NOT EXISTS (SELECT 1 FROM papers_search_pending WHERE paper_id = NEW.id)
BEGIN
    INSERT INTO papers_search (papers_search, rowid, external_id, title, authors, abstract)
    VALUES ('delete', OLD.id, OLD.external_id, OLD.title, OLD.authors, OLD.abstract);
    INSERT INTO papers_search (rowid, external_id, title, authors, abstract)
    VALUES (NEW.id, NEW.external_id, NEW.title, NEW.authors, NEW.abstract);
END;

CREATE TRIGGER papers_search_delete AFTER DELETE ON papers
BEGIN
    INSERT INTO papers_search (papers_search, rowid, external_id, title, authors, abstract)
    SELECT 'delete', OLD.id, OLD.external_id, OLD.title, OLD.authors, OLD.abstract
    WHERE NOT EXISTS (SELECT 1 FROM papers_search_pending WHERE paper_id = OLD.id);
    DELETE FROM papers_search_pending WHERE paper_id = OLD.id;
END;
