//! Evidence photos in SQL: one row per owner and content address.

use super::{SqlStore, StoreError, StoredPhoto, backend, corrupt, timed};
use crate::server::store::PhotoStore;

type PhotoRow = (String, String, String, i64, i64, Option<String>, Vec<u8>);

impl SqlStore {
    /// The owner's photo `id`, if they have it.
    pub(super) async fn stored_photo(
        &self,
        owner: &str,
        id: &str,
    ) -> Result<Option<StoredPhoto>, StoreError> {
        let _timed = timed("photo");
        let row: Option<PhotoRow> = sqlx::query_as(&self.sql(
            "SELECT owner, id, mime_type, width, height, taken_at, body FROM photos \
             WHERE owner = ? AND id = ?",
        ))
        .bind(owner)
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?;
        row.map(|(owner, id, mime_type, width, height, taken_at, bytes)| {
            Ok(StoredPhoto {
                width: u32::try_from(width)
                    .map_err(|_| corrupt("photo width", &width.to_string()))?,
                height: u32::try_from(height)
                    .map_err(|_| corrupt("photo height", &height.to_string()))?,
                id,
                owner,
                mime_type,
                taken_at,
                bytes,
            })
        })
        .transpose()
    }
}

#[async_trait::async_trait]
impl PhotoStore for SqlStore {
    async fn put_photo(&self, photo: &StoredPhoto) -> Result<bool, StoreError> {
        let _timed = timed("put_photo");
        let done = sqlx::query(&self.sql(
            "INSERT INTO photos (owner, id, mime_type, width, height, taken_at, size, body, created_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (owner, id) DO NOTHING",
        ))
        .bind(&photo.owner)
        .bind(&photo.id)
        .bind(&photo.mime_type)
        .bind(i64::from(photo.width))
        .bind(i64::from(photo.height))
        .bind(photo.taken_at.clone())
        .bind(photo.bytes.len() as i64)
        .bind(photo.bytes.clone())
        .bind(self.now())
        .execute(&self.writer)
        .await
        .map_err(backend)?;
        Ok(done.rows_affected() == 1)
    }

    async fn photos_held(&self, owner: &str, ids: &[String]) -> Result<Vec<String>, StoreError> {
        let _timed = timed("photos_held");
        let mut held = Vec::new();
        for id in ids {
            let found: Option<(i64,)> =
                sqlx::query_as(&self.sql("SELECT 1 FROM photos WHERE owner = ? AND id = ?"))
                    .bind(owner)
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err(backend)?;
            if found.is_some() {
                held.push(id.clone());
            }
        }
        Ok(held)
    }

    async fn photo_bytes_of(&self, owner: &str) -> Result<u64, StoreError> {
        let _timed = timed("photo_bytes_of");
        // CAST: SQLite's SUM of no rows is NULL and PostgreSQL's SUM of BIGINT is NUMERIC.
        let (total,): (i64,) = sqlx::query_as(
            &self.sql("SELECT CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM photos WHERE owner = ?"),
        )
        .bind(owner)
        .fetch_one(&self.pool)
        .await
        .map_err(backend)?;
        Ok(total.max(0) as u64)
    }
}
