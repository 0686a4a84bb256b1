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
