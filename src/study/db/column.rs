//! The domain's values in the study file's columns. The domain's types (`domain`, in the
//! statistics crate) know no database driver: each is read here, once for every store and for
//! both drivers, from the integer or text its column holds, and a store binds that integer or
//! text itself (`.bind(rater.0)`, `.bind(name.as_str())`).
//!
//! A row's field of a domain type reads through [`Stored`]
//! (`#[sqlx(try_from = "Stored<Stars>")] stars: Stars`), as does a tuple or a scalar
//! (`query_scalar::<_, Stored<PaperKey>>`); a row stepped directly gives its columns with
//! [`get`].

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ValueRef};
use sqlx::error::BoxDynError;
use sqlx::sqlite::{Sqlite, SqliteTypeInfo, SqliteValueRef};

use crate::domain::{
    GuidelinesVersion, JudgeName, ModelId, PaperId, PaperKey, RaterId, RaterName, Stars,
};

/// A domain type that one column holds.
pub trait Column: Sized {
    /// What the column holds: `i64` or `String`.
    type Value;

    /// The value a column holds as the domain type; `Err` for one that is not (stars out of
    /// range fail the read instead of being dropped).
    fn decode(value: Self::Value) -> Result<Self, BoxDynError>;
}

/// A domain value read from its column, with either driver.
#[derive(Debug)]
pub struct Stored<T>(pub T);

impl<T: Column> sqlx::Type<Sqlite> for Stored<T>
where
    T::Value: sqlx::Type<Sqlite>,
{
    fn type_info() -> SqliteTypeInfo {
        T::Value::type_info()
    }

    fn compatible(ty: &SqliteTypeInfo) -> bool {
        T::Value::compatible(ty)
    }
}

impl<'r, T: Column> sqlx::Decode<'r, Sqlite> for Stored<T>
where
    T::Value: sqlx::Decode<'r, Sqlite>,
{
    fn decode(value: SqliteValueRef<'r>) -> Result<Self, BoxDynError> {
        T::decode(T::Value::decode(value)?).map(Stored)
    }
}

impl<T: Column> FromSql for Stored<T>
where
    T::Value: FromSql,
{
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        T::decode(T::Value::column_result(value)?)
            .map(Stored)
            .map_err(FromSqlError::Other)
    }
}

/// Column `index` of a row stepped directly (see [`super::direct`]), as the domain type it
/// holds.
pub fn get<T: Column>(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<T>
where
    T::Value: FromSql,
{
    row.get::<_, Stored<T>>(index).map(|stored| stored.0)
}

/// Each domain type's column: what it holds and how it becomes the type (`From<Stored<T>>` is
/// what a row's `try_from` field asks for).
macro_rules! columns {
    ($($type:ty: $value:ty => $decode:expr;)*) => {$(
        impl Column for $type {
            type Value = $value;

            fn decode(value: $value) -> Result<Self, BoxDynError> {
                $decode(value)
            }
        }

        impl From<Stored<$type>> for $type {
            fn from(stored: Stored<$type>) -> $type {
                stored.0
            }
        }
    )*};
}

columns! {
    Stars: i64 => |value| Ok(Stars::try_from(value)?);
    PaperKey: i64 => |value| Ok(PaperKey(value));
    ModelId: i64 => |value| Ok(ModelId(value));
    RaterId: i64 => |value| Ok(RaterId(value));
    PaperId: String => |text| Ok(PaperId::stored(text));
    RaterName: String => |text| Ok(RaterName::stored(text));
    JudgeName: String => |text| Ok(JudgeName::stored(text));
    GuidelinesVersion: i64 => |value| Ok(GuidelinesVersion(value));
}
