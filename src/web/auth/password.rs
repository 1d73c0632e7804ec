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

/// The fewest characters a password may have.
pub const MIN_CHARACTERS: usize = 8;

/// Why a password is refused, said of it ("the password in FILE is empty").
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WeakPassword {
    #[error("is empty")]
    Empty,
    #[error(
        "is only white space; a password needs {MIN_CHARACTERS} characters or more, not all of \
         them white space"
    )]
    Blank,
    #[error(
        "has {0} character{plural}; a password needs {MIN_CHARACTERS} or more",
        plural = if *.0 == 1 { "" } else { "s" }
    )]
    Short(usize),
}

impl Password {
    /// The password `text`, unless it is too easily guessed: shorter than [`MIN_CHARACTERS`]
    /// or nothing but white space.
    pub fn new(text: &str) -> Result<Password, WeakPassword> {
        let characters = text.chars().count();
        if text.is_empty() {
            Err(WeakPassword::Empty)
        } else if text.chars().all(char::is_whitespace) {
            Err(WeakPassword::Blank)
        } else if characters < MIN_CHARACTERS {
            Err(WeakPassword::Short(characters))
        } else {
            Ok(Password {
                digest: tokens::sha256(text.as_bytes()),
            })
        }
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

    #[test]
    fn a_password_has_8_characters_or_more_not_all_white_space() {
        let refusal = |text: &str| Password::new(text).err();
        assert_eq!(refusal(""), Some(WeakPassword::Empty));
        assert_eq!(refusal("        "), Some(WeakPassword::Blank));
        assert_eq!(refusal("\t\u{a0}\n"), Some(WeakPassword::Blank));
        assert_eq!(refusal("x"), Some(WeakPassword::Short(1)));
        assert_eq!(refusal("ééééééé"), Some(WeakPassword::Short(7)));
        assert_eq!(refusal("12345678"), None);
        assert_eq!(refusal("   x    "), None);
        assert_eq!(
            WeakPassword::Short(1).to_string(),
            "has 1 character; a password needs 8 or more"
        );
    }
}
