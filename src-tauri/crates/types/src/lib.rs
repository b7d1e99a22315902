//! The records Maru keeps and shows: projects, chats, messages, attachments, memory, settings…
//! as plain data with their wire shape (serde, the OpenAPI schema, the TypeScript type).
//!
//! They sit below the store so that the store holds only SQL: it fills these from its tables,
//! and the API sends them, each shape declared once. Where what the API shows differs from the
//! row (a server's key, a tool server's secrets), the core has its own view type instead.

/// `as_str` for an enum stored as text, and with the `sql` feature its `ToSql`/`FromSql`.
macro_rules! sql_text_enum {
    ($ty:ty { $($variant:ident => $text:literal),* $(,)? }) => {
        impl $ty {
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text),* }
            }
        }
        #[cfg(feature = "sql")]
        impl rusqlite::types::ToSql for $ty {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(rusqlite::types::ToSqlOutput::from(self.as_str()))
            }
        }
        #[cfg(feature = "sql")]
        impl rusqlite::types::FromSql for $ty {
            fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
                match value.as_str()? {
                    $($text => Ok(Self::$variant),)*
                    other => Err(rusqlite::types::FromSqlError::Other(format!("unknown value {other:?}").into())),
                }
            }
        }
    };
}

// The layers below, by the names the modules use.
use maru_error as error;

pub mod attachments;
pub mod changes;
pub mod connections;
pub mod exports;
pub mod memories;
pub mod messages;
pub mod presets;
pub mod projects;
pub mod search;
pub mod sessions;
pub mod settings;
pub mod sharing;
pub mod skills;
pub mod summaries;
pub mod tool_calls;
pub mod tool_outcomes;
pub mod tool_servers;

/// For a patch's field: tells one that is absent (outer `None`) from one set to null
/// (`Some(None)`), which sets it back.
pub fn present<'de, T: serde::Deserialize<'de>, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
    <Option<T> as serde::Deserialize>::deserialize(d).map(Some)
}
