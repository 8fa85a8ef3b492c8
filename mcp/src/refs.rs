//! Short refs for the model: `e<N>` in place of the core's `<document>.<n>` (and, inside a
//! frame, `<frame>/<document>.<n>`, whose frame id alone is 32 characters in Chromium). A model
//! pays for every character of every snapshot it reads, as tokens; a short ref costs it two or
//! three.
//!
//! A short ref stands for one element of one document for the whole session, and is never
//! given to another: a ref shown before a navigation still names the element of the document
//! that left, so the core refuses it as stale, exactly as it refuses the long form. The long
//! form is still taken.

use navguard::agent::FailureKind;
use std::collections::{HashMap, VecDeque};

/// How many short refs the server remembers; the oldest are forgotten first (a ref that old is
/// of a page long gone, and a refused one says to take a new snapshot).
const KEPT: usize = 50_000;

/// The short refs given so far in a session, both ways.
#[derive(Debug, Default)]
pub struct RefBook {
    full_of: HashMap<u64, String>,
    short_of: HashMap<String, u64>,
    given: VecDeque<u64>,
    next: u64,
}

/// A short ref the book cannot turn into the core's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnknownRef {
    /// Never given in this session.
    #[error("{0} is not a ref of any answer of this session: take refs from the latest answer")]
    NeverGiven(String),
    /// Given so long ago that it was forgotten.
    #[error("{0} is a ref of a page seen long ago: take a new snapshot")]
    Forgotten(String),
    /// Neither a short ref nor the core's long form: told in the form the client sees.
    #[error("{0:?} is not a ref (refs look like e12, as the latest answer lists them)")]
    Malformed(String),
}

impl UnknownRef {
    /// As a call's failure: a ref never given is bad input; a forgotten one is as stale as the
    /// page it was of.
    pub fn kind(&self) -> FailureKind {
        match self {
            Self::NeverGiven(_) | Self::Malformed(_) => FailureKind::BadInput,
            Self::Forgotten(_) => FailureKind::StaleRef,
        }
    }
}

impl RefBook {
    /// The short ref of `full` (a ref as the core writes it): the one given before, else a new one.
    pub fn short(&mut self, full: &str) -> String {
        if let Some(n) = self.short_of.get(full) {
            return format!("e{n}");
        }
        let n = self.next;
        self.next += 1;
        self.full_of.insert(n, full.to_owned());
        self.short_of.insert(full.to_owned(), n);
        self.given.push_back(n);
        if self.given.len() > KEPT
            && let Some(old) = self.given.pop_front()
            && let Some(full) = self.full_of.remove(&old)
        {
            self.short_of.remove(&full);
        }
        format!("e{n}")
    }

    /// Whether `text` has the short form (`e12`), given or not.
    pub fn is_short(text: &str) -> bool {
        short_number(text).is_some()
    }

    /// The core's ref for `given`: `None` when `given` is the core's long form (the core judges
    /// it); a text that is neither form is refused here, in the form the client sees.
    pub fn full(&self, given: &str) -> Result<Option<String>, UnknownRef> {
        let Some(n) = short_number(given) else {
            return match given.parse::<navguard::browser::ElementRef>() {
                Ok(_) => Ok(None),
                Err(_) => Err(UnknownRef::Malformed(given.to_owned())),
            };
        };
        match self.full_of.get(&n) {
            Some(full) => Ok(Some(full.clone())),
            None if n < self.next => Err(UnknownRef::Forgotten(given.to_owned())),
            None => Err(UnknownRef::NeverGiven(given.to_owned())),
        }
    }
}

/// `N` of `e<N>`.
fn short_number(text: &str) -> Option<u64> {
    let digits = text.strip_prefix('e')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ref_keeps_its_short_form_and_another_gets_the_next() {
        let mut book = RefBook::default();
        assert_eq!(book.short("k3x9q2a.0"), "e0");
        assert_eq!(book.short("k3x9q2a.1"), "e1");
        assert_eq!(book.short("k3x9q2a.0"), "e0");
        assert_eq!(book.full("e1"), Ok(Some("k3x9q2a.1".to_owned())));
    }

    #[test]
    fn the_long_form_passes_through_and_other_text_is_refused_in_the_form_the_client_sees() {
        let book = RefBook::default();
        assert_eq!(book.full("k3x9q2a.0"), Ok(None));
        for not_a_ref in ["e", "e1x", "#send", "", "12"] {
            let refused = book.full(not_a_ref).unwrap_err();
            assert_eq!(refused, UnknownRef::Malformed(not_a_ref.into()));
            assert!(refused.to_string().contains("refs look like e12"), "{refused}");
            assert_eq!(refused.kind(), FailureKind::BadInput);
        }
    }

    #[test]
    fn a_short_ref_never_given_is_refused_as_such() {
        let mut book = RefBook::default();
        book.short("k3x9q2a.0");
        assert_eq!(book.full("e7"), Err(UnknownRef::NeverGiven("e7".into())));
    }

    #[test]
    fn the_oldest_refs_are_forgotten_past_the_limit_and_refused_as_old() {
        let mut book = RefBook::default();
        for i in 0..=KEPT {
            book.short(&format!("doc.{i}"));
        }
        assert_eq!(book.full("e0"), Err(UnknownRef::Forgotten("e0".into())));
        assert_eq!(book.full("e1"), Ok(Some("doc.1".to_owned())));
        // A forgotten ref seen again is given a new short form, never its old one.
        assert_eq!(book.short("doc.0"), format!("e{}", KEPT + 1));
    }
}
