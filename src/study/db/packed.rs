//! A model's list for a target packed into one value, as `packed_lists` holds it beside the
//! list's rows in `recommendations`: the import writes it ([`pack`]), the lists view and the
//! evaluation read it ([`papers`]). One row per list reads about ten times faster than the
//! list's rows (study L's 8 lists of 40,000 targets are 2.56 M rows of `recommendations`).
//!
//! The value: one byte giving the width of the keys, 4 when every key is from 0 below 2^32
//! (study L's lists take half the room so), else 8; then the papers' keys, best first,
//! big-endian. The import numbers a list's rows 1, 2, 3, ... in the same order, so the first
//! `n` papers of a packed list are its rows of `position <= n`.

use crate::domain::PaperKey;

/// Packs a list's papers, best first, into `packed` (cleared first), as the module says.
pub fn pack(papers: impl Iterator<Item = PaperKey> + Clone, packed: &mut Vec<u8>) {
    packed.clear();
    if papers.clone().all(|paper| u32::try_from(paper.0).is_ok()) {
        packed.push(4);
        for paper in papers {
            packed.extend_from_slice(&(paper.0 as u32).to_be_bytes());
        }
    } else {
        packed.push(8);
        for paper in papers {
            packed.extend_from_slice(&paper.0.to_be_bytes());
        }
    }
}

/// The papers of the packed list in column `index` of `row`, best first, the list being
/// `target`'s. A value that is no packed list fails the read as a value of the wrong type does
/// (the study's error calls both unreadable).
pub fn papers<'r>(
    row: &'r rusqlite::Row<'_>,
    index: usize,
    target: PaperKey,
) -> rusqlite::Result<impl Iterator<Item = PaperKey> + 'r> {
    let packed = match row.get_ref(index)? {
        rusqlite::types::ValueRef::Blob(packed) => packed,
        other => {
            let name = row.as_ref().column_name(index)?.to_owned();
            return Err(rusqlite::Error::InvalidColumnType(
                index,
                name,
                other.data_type(),
            ));
        }
    };
    unpack(packed).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            index,
            rusqlite::types::Type::Blob,
            format!("the packed list of target {} is torn", target.0).into(),
        )
    })
}

/// The papers of a packed list, best first; `None` when it is not one.
fn unpack(packed: &[u8]) -> Option<impl Iterator<Item = PaperKey> + '_> {
    let (&width, keys) = packed.split_first()?;
    let width = usize::from(width);
    (matches!(width, 4 | 8) && keys.len() % width == 0).then(|| {
        keys.chunks_exact(width).map(move |key| {
            let mut bytes = [0; 8];
            bytes[8 - width..].copy_from_slice(key);
            PaperKey(i64::from_be_bytes(bytes))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys 4 or 8 bytes wide, whichever the first byte says.
    #[test]
    fn keys_are_read_as_wide_as_packed() {
        let keys = |packed: &[u8]| -> Vec<i64> {
            unpack(packed)
                .expect("a packed list")
                .map(|key| key.0)
                .collect()
        };
        assert_eq!(
            keys(&[4, 0, 0, 0, 7, 255, 255, 255, 255]),
            [7, 4_294_967_295]
        );
        assert_eq!(
            keys(&[8, 0, 0, 0, 1, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255]),
            [4_294_967_296, -1]
        );
        assert_eq!(keys(&[4]), [0_i64; 0]);
    }

    fn round_trip(keys: &[i64]) -> (u8, Vec<i64>) {
        let mut packed = Vec::new();
        pack(keys.iter().map(|&key| PaperKey(key)), &mut packed);
        let unpacked = unpack(&packed).expect("a packed list");
        (packed[0], unpacked.map(|key| key.0).collect())
    }

    #[test]
    fn keys_come_back_as_packed_narrow_where_they_fit() {
        assert_eq!(
            round_trip(&[7, 1, 4_294_967_295]),
            (4, vec![7, 1, 4_294_967_295])
        );
        assert_eq!(round_trip(&[3, 4_294_967_296]), (8, vec![3, 4_294_967_296]));
        assert_eq!(round_trip(&[-1, 2]), (8, vec![-1, 2]));
        assert_eq!(round_trip(&[]), (4, vec![]));
    }

    #[test]
    fn a_torn_packed_list_is_refused() {
        for torn in [
            &[][..],
            &[4, 0, 0, 1][..],
            &[5, 0, 0, 0, 0, 1][..],
            &[8, 0, 0, 0, 1][..],
        ] {
            assert!(unpack(torn).is_none(), "{torn:?}");
        }
    }

    /// Read from a row, a torn value and a value that is no blob fail as unreadable values.
    #[test]
    fn a_torn_or_mistyped_value_fails_the_read() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let read = |value: &str| -> String {
            let mut statement = conn.prepare(&format!("SELECT 1, {value}")).unwrap();
            let mut rows = statement.query([]).unwrap();
            let row = rows.next().unwrap().unwrap();
            let read = match papers(row, 1, PaperKey(12)) {
                Ok(papers) => format!("{:?}", papers.map(|paper| paper.0).collect::<Vec<_>>()),
                Err(error) => error.to_string(),
            };
            read
        };
        assert_eq!(read("x'040000000300000002'"), "[3, 2]");
        assert_eq!(
            read("x'0400000003000002'"),
            "Conversion error from type Blob at index: 1, the packed list of target 12 is torn"
        );
        assert_eq!(
            read("'P2'"),
            "Invalid column type Text at index: 1, name: 'P2'"
        );
    }
}
