-- Full-text search of the library: id, title, authors and abstract of every paper, ranked by
-- bm25. The index holds no copy of the text (external content: it reads `papers`); the
-- triggers keep it in step with every change of a paper.
CREATE VIRTUAL TABLE papers_search USING fts5 (
    external_id, title, authors, abstract,
    content = 'papers', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

INSERT INTO papers_search (papers_search) VALUES ('rebuild');

CREATE TRIGGER papers_search_insert AFTER INSERT ON papers
BEGIN
    INSERT INTO papers_search (rowid, external_id, title, authors, abstract)
    VALUES (NEW.id, NEW.external_id, NEW.title, NEW.authors, NEW.abstract);
END;

CREATE TRIGGER papers_search_delete AFTER DELETE ON papers
BEGIN
    INSERT INTO papers_search (papers_search, rowid, external_id, title, authors, abstract)
    VALUES ('delete', OLD.id, OLD.external_id, OLD.title, OLD.authors, OLD.abstract);
END;

CREATE TRIGGER papers_search_update AFTER UPDATE OF external_id, title, authors, abstract ON papers
BEGIN
    INSERT INTO papers_search (papers_search, rowid, external_id, title, authors, abstract)
    VALUES ('delete', OLD.id, OLD.external_id, OLD.title, OLD.authors, OLD.abstract);
    INSERT INTO papers_search (rowid, external_id, title, authors, abstract)
    VALUES (NEW.id, NEW.external_id, NEW.title, NEW.authors, NEW.abstract);
END;

-- The ranking of `ORDER BY rank`: bm25 with a match in the id weighing most, then the title,
-- the authors and the abstract.
INSERT INTO papers_search (papers_search, rank) VALUES ('rank', 'bm25(10.0, 5.0, 3.0, 1.0)');
