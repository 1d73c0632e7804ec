//! The study's password.

use std::fmt;

use crate::web::tokens;

/// The study's password. Only its SHA-256 digest is kept: comparing digests of equal length
/// in constant time says nothing, through timing, about the password's length or about how
/// much of a guess is right.
#[derive(Clone)]
pub struct Password {
    digest: [u8; 32],
}

pub use crate::password::WeakPassword;

impl Password {
    /// The password `text`, unless it is too easily guessed (see
    /// [`crate::password::check_strength`]).
    pub fn new(text: &str) -> Result<Password, WeakPassword> {
        crate::password::check_strength(text)?;
        Ok(Password {
            digest: tokens::sha256(text.as_bytes()),
        })
    }

    pub fn is(&self, guess: &str) -> bool {
        tokens::same(&self.digest, &tokens::sha256(guess.as_bytes()))
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(hidden)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_password_itself_matches() {
        let password = Password::new("correct horse").expect("long enough");
        assert!(password.is("correct horse"));
        assert!(!password.is("correct hors"));
        assert!(!password.is("correct horse "));
        assert!(!password.is(""));
        assert_eq!(format!("{password:?}"), "Password(hidden)");
    }
}
