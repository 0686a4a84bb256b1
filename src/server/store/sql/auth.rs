//! Accounts and sessions in SQLite.

use super::{Flag, SqlStore, USER_COLUMNS, UserRow, backend, timed, user_not_found};
use crate::server::store::{AuthStore, LoginRecord, StoreError, UserRecord};

#[derive(sqlx::FromRow)]
struct LoginRow {
    #[sqlx(flatten)]
    user: UserRow,
    password_hash: Option<String>,
    disabled: Flag,
}

const LOGIN_COLUMNS: &str = "SELECT u.id, u.email, u.name, u.role, u.created_at, u.last_activity, p.theme, \
                             p.notifications_enabled, p.default_agent_id, p.language, p.spoken_text_type, \
                             u.password_hash, u.disabled \
                             FROM users u LEFT JOIN user_preferences p ON p.user_id = u.id";

#[async_trait::async_trait]
impl AuthStore for SqlStore {
    async fn login_record(&self, email: &str) -> Result<Option<LoginRecord>, StoreError> {
        let _timed = timed("login_record");
        let row = sqlx::query_as::<_, LoginRow>(
            &self.sql(&format!("{LOGIN_COLUMNS} WHERE lower(u.email) = lower(?)")),
        )
        .bind(email.trim())
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?;
        row.map(|row| {
            Ok(LoginRecord {
                user: row.user.into_record()?,
                password_hash: row.password_hash,
                disabled: row.disabled.0,
            })
        })
        .transpose()
    }

    async fn set_password(
        &self,
        user_id: &str,
        password_hash: &str,
        keep_session: Option<&str>,
    ) -> Result<(), StoreError> {
        let _timed = timed("set_password");
        let mut tx = self.writer.begin().await.map_err(backend)?;
        let done = sqlx::query(&self.sql("UPDATE users SET password_hash = ? WHERE id = ?"))
            .bind(password_hash)
            .bind(user_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        if done.rows_affected() == 0 {
            return Err(user_not_found(user_id));
        }
        sqlx::query(
            &self.sql("DELETE FROM sessions WHERE user_id = ? AND token_hash IS DISTINCT FROM ?"),
        )
        .bind(user_id)
        .bind(keep_session)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        tx.commit().await.map_err(backend)
    }

    async fn set_disabled(&self, user_id: &str, disabled: bool) -> Result<(), StoreError> {
        let _timed = timed("set_disabled");
        let mut tx = self.writer.begin().await.map_err(backend)?;
        let done = sqlx::query(&self.sql("UPDATE users SET disabled = ? WHERE id = ?"))
            .bind(disabled)
            .bind(user_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        if done.rows_affected() == 0 {
            return Err(user_not_found(user_id));
        }
        if disabled {
            sqlx::query(&self.sql("DELETE FROM sessions WHERE user_id = ?"))
                .bind(user_id)
                .execute(&mut *tx)
                .await
                .map_err(backend)?;
        }
        tx.commit().await.map_err(backend)
    }

    async fn is_disabled(&self, user_id: &str) -> Result<bool, StoreError> {
        let _timed = timed("is_disabled");
        sqlx::query_scalar::<_, Flag>(&self.sql("SELECT disabled FROM users WHERE id = ?"))
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(backend)?
            .map(|Flag(disabled)| disabled)
            .ok_or_else(|| user_not_found(user_id))
    }

    async fn has_admin_login(&self) -> Result<bool, StoreError> {
        let _timed = timed("has_admin_login");
        sqlx::query_scalar::<_, Flag>(&self.sql("SELECT EXISTS (SELECT 1 FROM users WHERE role = 'admin' AND password_hash IS NOT NULL AND disabled = FALSE)"))
        .fetch_one(&self.pool)
        .await
        .map(|Flag(exists)| exists)
        .map_err(backend)
    }

    async fn other_enabled_admins(&self, user_id: &str) -> Result<u64, StoreError> {
        let _timed = timed("other_enabled_admins");
        sqlx::query_scalar::<_, i64>(&self.sql(
            "SELECT COUNT(*) FROM users WHERE role = 'admin' AND disabled = FALSE AND id <> ?",
        ))
        .bind(user_id)
        .fetch_one(&self.pool)
        .await
        .map(|n| n.max(0) as u64)
        .map_err(backend)
    }

    async fn create_session(
        &self,
        token_hash: &str,
        user_id: &str,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        let _timed = timed("create_session");
        sqlx::query(&self.sql("INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)"))
            .bind(token_hash)
            .bind(user_id)
            .bind(self.now())
            .bind(expires_at)
            .execute(&self.writer)
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn session_user(
        &self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<UserRecord>, StoreError> {
        let _timed = timed("session_user");
        let query = format!(
            "{USER_COLUMNS} JOIN sessions s ON s.user_id = u.id \
             WHERE s.token_hash = ? AND s.expires_at > ? AND u.disabled = FALSE"
        );
        sqlx::query_as::<_, UserRow>(&self.sql(&query))
            .bind(token_hash)
            .bind(now)
            .fetch_optional(&self.pool)
            .await
            .map_err(backend)?
            .map(UserRow::into_record)
            .transpose()
    }

    async fn delete_session(&self, token_hash: &str) -> Result<(), StoreError> {
        let _timed = timed("delete_session");
        sqlx::query(&self.sql("DELETE FROM sessions WHERE token_hash = ?"))
            .bind(token_hash)
            .execute(&self.writer)
            .await
            .map_err(backend)?;
        Ok(())
    }
}
