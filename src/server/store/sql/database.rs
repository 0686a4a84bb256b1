//! The REST side of the store (`Database`): listing, renaming and deleting threads, users and
//! their preferences.

use super::*;

#[async_trait::async_trait]
impl Database for SqlStore {
    async fn ping(&self) -> Result<(), StoreError> {
        let _timed = timed("ping");
        sqlx::query(&self.sql("SELECT 1"))
            .execute(&self.pool)
            .await
            .map(|_| ())
            .map_err(backend)
    }

    async fn interrupt_running_runs(&self) -> Result<u64, StoreError> {
        let _timed = timed("interrupt_running_runs");
        let updated = sqlx::query(&self.sql(
            "UPDATE runs SET status = 'interrupted', finished_at = ?, \
             error = COALESCE(error, 'the server stopped during the run') WHERE status = 'running'",
        ))
        .bind(self.now())
        .execute(&self.writer)
        .await
        .map_err(backend)?;
        Ok(updated.rows_affected())
    }

    async fn list_threads(
        &self,
        owner: &str,
        limit: u32,
        offset: u32,
    ) -> Result<Page<ThreadSummary>, StoreError> {
        let _timed = timed("list_threads");
        let rows: Vec<ThreadRow> = sqlx::query_as(&self.sql(&format!(
            "{THREAD_COLUMNS} WHERE owner = ? ORDER BY last_activity DESC, created_at DESC, id LIMIT ? OFFSET ?"
        )))
        .bind(owner)
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        let (total,): (i64,) =
            sqlx::query_as(&self.sql("SELECT COUNT(*) FROM threads WHERE owner = ?"))
                .bind(owner)
                .fetch_one(&self.pool)
                .await
                .map_err(backend)?;
        Ok(Page {
            items: rows.into_iter().map(ThreadRow::into_summary).collect(),
            total: u64::try_from(total).unwrap_or(0),
        })
    }

    async fn thread_summary(&self, thread_id: &str) -> Result<ThreadSummary, StoreError> {
        let _timed = timed("thread_summary");
        Ok(self.thread_row(thread_id).await?.into_summary())
    }

    async fn rename_thread(
        &self,
        thread_id: &str,
        title: &str,
    ) -> Result<ThreadSummary, StoreError> {
        let _timed = timed("rename_thread");
        let updated = sqlx::query(
            &self.sql("UPDATE threads SET title = ?, title_locked = TRUE WHERE id = ?"),
        )
        .bind(title)
        .bind(thread_id)
        .execute(&self.writer)
        .await
        .map_err(backend)?;
        if updated.rows_affected() == 0 {
            return Err(thread_not_found(thread_id));
        }
        self.thread_summary(thread_id).await
    }

    async fn delete_thread(&self, thread_id: &str) -> Result<(), StoreError> {
        let _timed = timed("delete_thread");
        // Messages, runs and approvals follow through ON DELETE CASCADE.
        let deleted = sqlx::query(&self.sql("DELETE FROM threads WHERE id = ?"))
            .bind(thread_id)
            .execute(&self.writer)
            .await
            .map_err(backend)?;
        self.history.forget(thread_id);
        if deleted.rows_affected() == 0 {
            return Err(thread_not_found(thread_id));
        }
        Ok(())
    }

    async fn create_user(&self, user: &NewUser) -> Result<UserRecord, StoreError> {
        let _timed = timed("create_user");
        let id = user
            .id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let now = self.now();
        let result = sqlx::query(&self.sql("INSERT INTO users (id, email, name, role, created_at, last_activity) VALUES (?, ?, ?, ?, ?, ?)"))
        .bind(&id)
        .bind(&user.email)
        .bind(&user.name)
        .bind(user.role.as_str())
        .bind(now)
        .bind(now)
        .execute(&self.writer)
        .await;
        // Its preferences, kept here as those of nobody, are the new user's defaults now.
        self.preferences.forget(&id);
        match result {
            Ok(_) => self.user_row(&id).await,
            Err(e) if error_kind(&e) == Some(ErrorKind::UniqueViolation) => {
                // SQLite names the column, PostgreSQL the index on lower(email).
                let on_email = e.as_database_error().is_some_and(|d| {
                    d.message().contains("users.email") || d.constraint() == Some("users_email")
                });
                Err(StoreError::Conflict(if on_email {
                    format!("A user with email {} already exists", user.email)
                } else {
                    format!("A user with id {id} already exists")
                }))
            }
            Err(e) => Err(backend(e)),
        }
    }

    async fn ensure_user(&self, user: &NewUser) -> Result<UserRecord, StoreError> {
        let _timed = timed("ensure_user");
        if let Some(id) = &user.id {
            match self.user_row(id).await {
                Ok(existing) => return Ok(existing),
                Err(StoreError::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        match self.create_user(user).await {
            // Created meanwhile by another connection.
            Err(StoreError::Conflict(_)) if user.id.is_some() => {
                self.user_row(user.id.as_deref().unwrap_or_default()).await
            }
            other => other,
        }
    }

    async fn user(&self, user_id: &str) -> Result<UserRecord, StoreError> {
        let _timed = timed("user");
        self.user_row(user_id).await
    }

    async fn list_users(&self, limit: u32, offset: u32) -> Result<Page<UserRecord>, StoreError> {
        let _timed = timed("list_users");
        let rows: Vec<UserRow> = sqlx::query_as(&self.sql(&format!(
            "{USER_COLUMNS} ORDER BY u.created_at DESC, u.rowid DESC LIMIT ? OFFSET ?"
        )))
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        let (total,): (i64,) = sqlx::query_as(&self.sql("SELECT COUNT(*) FROM users"))
            .fetch_one(&self.pool)
            .await
            .map_err(backend)?;
        Ok(Page {
            items: rows
                .into_iter()
                .map(UserRow::into_record)
                .collect::<Result<_, _>>()?,
            total: u64::try_from(total).unwrap_or(0),
        })
    }

    async fn update_user(
        &self,
        user_id: &str,
        update: &UserUpdate,
    ) -> Result<UserRecord, StoreError> {
        let _timed = timed("update_user");
        let now = self.now();
        let mut tx = self.begin().await?;
        let updated = sqlx::query(&self.sql("UPDATE users SET name = COALESCE(?, name), role = COALESCE(?, role), last_activity = ? WHERE id = ?"))
        .bind(update.name.as_deref())
        .bind(update.role.map(UserRole::as_str))
        .bind(now)
        .bind(user_id)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        if updated.rows_affected() == 0 {
            return Err(user_not_found(user_id));
        }
        if let Some(preferences) = &update.preferences {
            self.write_preferences(&mut tx, user_id, preferences, now)
                .await?;
        }
        let committed = tx.commit().await.map_err(backend);
        self.preferences.forget(user_id);
        committed?;
        self.user_row(user_id).await
    }

    async fn delete_user(&self, user_id: &str) -> Result<u64, StoreError> {
        let _timed = timed("delete_user");
        let mut tx = self.begin().await?;
        let deleted = sqlx::query(&self.sql("DELETE FROM users WHERE id = ?"))
            .bind(user_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        if deleted.rows_affected() == 0 {
            return Err(user_not_found(user_id));
        }
        let threads = sqlx::query(&self.sql("DELETE FROM threads WHERE owner = ?"))
            .bind(user_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        // Their reports go with their threads, and with them where they were mailed to.
        sqlx::query(&self.sql("DELETE FROM report_mail WHERE user_id = ?"))
            .bind(user_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        let committed = tx.commit().await.map_err(backend);
        self.preferences.forget(user_id);
        committed?;
        Ok(threads.rows_affected())
    }

    async fn preferences(&self, user_id: &str) -> Result<Preferences, StoreError> {
        let cached = self.dialect != SqlDialect::Postgres;
        let generation = match self.preferences.get(user_id) {
            Ok(Some(preferences)) if cached => return Ok(preferences),
            Ok(None) if cached => return Err(user_not_found(user_id)),
            Ok(_) => 0,
            Err(generation) => generation,
        };
        let _timed = timed("preferences");
        let read = self.user_row(user_id).await.map(|user| user.preferences);
        if cached {
            match &read {
                Ok(preferences) => self
                    .preferences
                    .keep(user_id, Some(preferences), generation),
                Err(StoreError::NotFound(_)) => self.preferences.keep(user_id, None, generation),
                Err(_) => {}
            }
        }
        read
    }

    async fn update_preferences(
        &self,
        user_id: &str,
        update: &PreferencesUpdate,
    ) -> Result<Preferences, StoreError> {
        let _timed = timed("update_preferences");
        let now = self.now();
        let mut tx = self.begin().await?;
        let updated = sqlx::query(&self.sql("UPDATE users SET last_activity = ? WHERE id = ?"))
            .bind(now)
            .bind(user_id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        if updated.rows_affected() == 0 {
            return Err(user_not_found(user_id));
        }
        let preferences = self
            .write_preferences(&mut tx, user_id, update, now)
            .await?;
        let committed = tx.commit().await.map_err(backend);
        self.preferences.forget(user_id);
        committed?;
        Ok(preferences)
    }
}

impl SqlStore {
    /// Applies `update` to the stored (or default) preferences inside `tx`; returns the result.
    async fn write_preferences(
        &self,
        tx: &mut Transaction<'static, Any>,
        user_id: &str,
        update: &PreferencesUpdate,
        now: i64,
    ) -> Result<Preferences, StoreError> {
        let current: Option<PreferencesRow> = sqlx::query_as(&self.sql(
            "SELECT theme, notifications_enabled, default_agent_id, language, spoken_text_type \
         FROM user_preferences WHERE user_id = ?",
        ))
        .bind(user_id)
        .fetch_optional(&mut **tx)
        .await
        .map_err(backend)?;
        let mut preferences = match current {
            Some(row) => row.into_preferences()?,
            None => Preferences::default(),
        };
        update.apply(&mut preferences);
        sqlx::query(&self.sql("INSERT INTO user_preferences (user_id, theme, notifications_enabled, default_agent_id, language, \
         spoken_text_type, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) \
         ON CONFLICT (user_id) DO UPDATE SET theme = excluded.theme, \
         notifications_enabled = excluded.notifications_enabled, default_agent_id = excluded.default_agent_id, \
         language = excluded.language, spoken_text_type = excluded.spoken_text_type, updated_at = excluded.updated_at"))
    .bind(user_id)
    .bind(preferences.theme.as_str())
    .bind(preferences.notifications_enabled)
    .bind(&preferences.default_agent_id)
    .bind(&preferences.language)
    .bind(preferences.spoken_text_type.as_str())
    .bind(now)
    .execute(&mut **tx)
    .await
    .map_err(backend)?;
        Ok(preferences)
    }
}
