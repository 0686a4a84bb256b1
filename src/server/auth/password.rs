//! Argon2id password hashes as PHC strings (salt and parameters inside).

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};

pub fn hash_password(password: &str) -> String {
    let mut random = [0u8; 16];
    getrandom::fill(&mut random).expect("the operating system provides randomness");
    let salt = SaltString::encode_b64(&random).expect("16 bytes make a valid salt");
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .expect("argon2 with default parameters hashes any password")
        .to_string()
}

/// False for a wrong password and for a hash that is not a PHC string.
pub fn verify_password(password: &str, phc: &str) -> bool {
    PasswordHash::new(phc).is_ok_and(|hash| {
        Argon2::default()
            .verify_password(password.as_bytes(), &hash)
            .is_ok()
    })
}

/// Argon2 is made to be slow (tens of ms and 19 MiB a hash): run it on blocking threads, so a
/// sign-in flood never stalls the async workers, and at most a few at once, so it cannot take
/// all the memory either. A flood waits here instead.
fn argon2_slots() -> &'static tokio::sync::Semaphore {
    static SLOTS: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    SLOTS.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        tokio::sync::Semaphore::new(cores)
    })
}

/// [`hash_password`] off the async workers.
pub async fn hash_password_blocking(password: &str) -> String {
    let _slot = argon2_slots().acquire().await.expect("never closed");
    let password = password.to_owned();
    tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .expect("hashing does not panic")
}

/// [`verify_password`] off the async workers.
pub async fn verify_password_blocking(password: &str, phc: &str) -> bool {
    let Ok(_slot) = argon2_slots().acquire().await else {
        return false;
    };
    let (password, phc) = (password.to_owned(), phc.to_owned());
    tokio::task::spawn_blocking(move || verify_password(&password, &phc))
        .await
        .unwrap_or(false)
}
