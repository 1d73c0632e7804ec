//! Passwords: what makes one too easily guessed (the owner's given to `serve` and every
//! rater's alike), and the hash a rater's is stored as.
//!
//! A rater's password is kept in the study file, which people copy and mail: only its Argon2id
//! hash is stored (the `argon2` crate's defaults, OWASP's recommended parameters: 19 MiB,
//! two passes), with a salt of its own, as a PHC string that names the parameters it was made
//! with. Checking a password costs tens of milliseconds of one core on purpose; the web runs
//! it off the async workers.

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

/// The fewest characters a password may have.
pub const MIN_CHARACTERS: usize = 8;

/// The most bytes (UTF-8) a password may have: the login form (4 KiB) carries it
/// percent-encoded, up to three times as long, beside the longest rater's name.
pub const MAX_BYTES: usize = 1024;

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
        "has {} {}; a password needs {MIN_CHARACTERS} or more",
        .0,
        crate::words::plural(*.0, "character", "characters")
    )]
    Short(usize),
    #[error(
        "holds a control character ({0}); a password is typed into the login form, where a \
         tab moves on and a line break sends it: choose one of letters, digits, punctuation \
         and spaces"
    )]
    Control(ControlCharacter),
    #[error(
        "has {0} bytes; a password may have at most {MAX_BYTES} (the login form carries no more)"
    )]
    Long(usize),
}

/// A control character as a person can read it: `U+0000` and where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControlCharacter {
    character: char,
    /// 1-based, in characters.
    position: usize,
}

impl std::fmt::Display for ControlCharacter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let code = u32::from(self.character);
        write!(f, "U+{code:04X} at character {}", self.position)
    }
}

/// Refuses a password too easily guessed: shorter than [`MIN_CHARACTERS`] or nothing but white
/// space; or one that the login form cannot carry (over [`MAX_BYTES`]) or a person cannot type
/// into it (a control character: NUL, a tab, a line break, an escape).
pub fn check_strength(text: &str) -> Result<(), WeakPassword> {
    let characters = text.chars().count();
    let control = (text.chars().enumerate()).find(|(_, character)| character.is_control());
    if text.len() > MAX_BYTES {
        Err(WeakPassword::Long(text.len()))
    } else if text.is_empty() {
        Err(WeakPassword::Empty)
    } else if text.chars().all(char::is_whitespace) {
        Err(WeakPassword::Blank)
    } else if let Some((index, character)) = control {
        Err(WeakPassword::Control(ControlCharacter {
            character,
            position: index + 1,
        }))
    } else if characters < MIN_CHARACTERS {
        Err(WeakPassword::Short(characters))
    } else {
        Ok(())
    }
}

/// The PHC string of `text` hashed with Argon2id and a new random salt.
pub fn hash(text: &str) -> Result<String, argon2::password_hash::Error> {
    let salt = SaltString::generate(&mut OsRng);
    Ok(Argon2::default()
        .hash_password(text.as_bytes(), &salt)?
        .to_string())
}

/// Whether `guess` is the password whose PHC string is `stored` (false for a string that is
/// no hash).
pub fn verify(guess: &str, stored: &str) -> bool {
    PasswordHash::new(stored).is_ok_and(|hash| {
        Argon2::default()
            .verify_password(guess.as_bytes(), &hash)
            .is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_has_8_characters_or_more_not_all_white_space() {
        assert_eq!(check_strength(""), Err(WeakPassword::Empty));
        assert_eq!(check_strength("        "), Err(WeakPassword::Blank));
        assert_eq!(check_strength("\t\u{a0}\n"), Err(WeakPassword::Blank));
        assert_eq!(check_strength("x"), Err(WeakPassword::Short(1)));
        assert_eq!(check_strength("ééééééé"), Err(WeakPassword::Short(7)));
        assert_eq!(check_strength("12345678"), Ok(()));
        assert_eq!(check_strength(&"é".repeat(512)), Ok(()));
        assert_eq!(
            check_strength(&"x".repeat(MAX_BYTES + 1)),
            Err(WeakPassword::Long(MAX_BYTES + 1))
        );
        assert_eq!(check_strength("   x    "), Ok(()));
        let control = |character, position| {
            Err(WeakPassword::Control(ControlCharacter {
                character,
                position,
            }))
        };
        assert_eq!(check_strength("pass\0word"), control('\0', 5));
        assert_eq!(check_strength("tab\there!"), control('\t', 4));
        assert_eq!(check_strength("password\r"), control('\r', 9));
        assert_eq!(check_strength("\u{1b}[31mred"), control('\u{1b}', 1));
        assert_eq!(
            check_strength("pass\0word").unwrap_err().to_string(),
            "holds a control character (U+0000 at character 5); a password is typed into the \
             login form, where a tab moves on and a line break sends it: choose one of letters, \
             digits, punctuation and spaces"
        );
        assert_eq!(
            WeakPassword::Short(1).to_string(),
            "has 1 character; a password needs 8 or more"
        );
    }

    #[test]
    fn only_the_password_itself_verifies_against_its_salted_hash() {
        let stored = hash("correct horse").unwrap();
        assert!(stored.starts_with("$argon2id$"), "{stored}");
        assert_ne!(
            stored,
            hash("correct horse").unwrap(),
            "each hash has its own salt"
        );
        assert!(verify("correct horse", &stored));
        assert!(!verify("correct hors", &stored));
        assert!(!verify("", &stored));
        assert!(!verify("correct horse", "not a hash"));
    }
}
