//! `papers.csv`: the library of papers, each of one research topic.

use std::fs::File;
use std::io;
use std::path::Path;

use rand::Rng;

use crate::format::{push_id, push_number};
use crate::random::{rng_for, Stream};
use crate::text::{TextGen, TOPIC_COUNT};

/// The topic of every paper.
pub fn assign_topics(papers: usize, seed: u64) -> Vec<u8> {
    let mut rng = rng_for(seed, Stream::Topics);
    (0..papers)
        .map(|_| rng.random_range(0..TOPIC_COUNT) as u8)
        .collect()
}

/// Writes `papers.csv`; returns its size in bytes.
pub fn write_papers(path: &Path, topics: &[u8], seed: u64) -> io::Result<u64> {
    let mut rng = rng_for(seed, Stream::Text);
    let text = TextGen::new();
    let mut csv = csv::WriterBuilder::new()
        .buffer_capacity(1 << 20)
        .from_writer(File::create(path)?);
    csv.write_record(["id", "title", "abstract", "authors", "year", "url"])?;
    let (mut id, mut title, mut abstract_text, mut authors, mut year, mut url) = (
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    );
    for (index, &topic) in topics.iter().enumerate() {
        let topic = usize::from(topic);
        id.clear();
        push_id(&mut id, index as u32);
        text.title(&mut title, index == 0, topic, &mut rng);
        text.abstract_text(&mut abstract_text, topic, &mut rng);
        text.authors(&mut authors, &mut rng);
        // More recent years are more common, as in any literature.
        let year_offset = rng.random_range(0..30u64).max(rng.random_range(0..30u64));
        year.clear();
        push_number(&mut year, 1995 + year_offset, 1);
        url.clear();
        url.push_str("https://example.org/p/");
        url.push_str(&id);
        csv.write_record([&id, &title, &abstract_text, &authors, &year, &url])?;
    }
    let file = csv.into_inner().map_err(|e| e.into_error())?;
    Ok(file.metadata()?.len())
}
