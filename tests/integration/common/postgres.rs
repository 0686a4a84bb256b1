//! A fresh PostgreSQL database per test, on the server `AGORA_TEST_POSTGRES_URL` names.
//! `make test` (through `scripts/with-postgres.sh`) starts a throw-away server from Debian's
//! packages and sets it; without it these tests fail and say so, they never skip.

use sqlx::Connection;

/// The URL of the test server (its `postgres` database).
pub fn server_url() -> String {
    std::env::var("AGORA_TEST_POSTGRES_URL").unwrap_or_else(|_| {
        panic!(
            "AGORA_TEST_POSTGRES_URL is not set: run the tests through `make test-native` or \
             `scripts/with-postgres.sh cargo test --features ssr`, which start a throw-away \
             PostgreSQL"
        )
    })
}

/// Creates an empty database and returns its URL.
pub async fn fresh_database() -> String {
    let server = server_url();
    let name = format!("agora_test_{}", uuid::Uuid::new_v4().simple());
    let mut connection = sqlx::PgConnection::connect(&server)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL at {server} does not answer: {e}"));
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut connection)
        .await
        .unwrap();
    let _ = connection.close().await;
    match server.rsplit_once('/') {
        Some((base, _)) => format!("{base}/{name}"),
        None => panic!("AGORA_TEST_POSTGRES_URL has no database name: {server}"),
    }
}
