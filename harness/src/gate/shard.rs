//! `--shard i/n`: a stable split of the suite by scenario name, the same on every machine.

use std::num::ParseIntError;
use std::str::FromStr;

/// A stable 64-bit FNV-1a hash, for sharding by scenario name (the same on every machine).
pub fn stable_hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Shard `index` of `count` (1-based, `1 <= index <= count`), written `i/n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: u64,
    count: u64,
}

impl Shard {
    pub fn index(self) -> u64 {
        self.index
    }

    pub fn count(self) -> u64 {
        self.count
    }

    /// Whether the scenario `name` belongs to this shard, by a stable hash of the name.
    pub fn contains(self, name: &str) -> bool {
        stable_hash(name) % self.count == self.index - 1
    }
}

/// A `--shard` that is not `i/n` with `1 <= i <= n`.
#[derive(Debug, thiserror::Error)]
#[error("{text:?} is not a shard i/n with 1 <= i <= n")]
#[non_exhaustive]
pub struct ShardError {
    pub text: String,
    /// Why a number did not parse, if that was it.
    #[source]
    pub source: Option<ParseIntError>,
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Self, ShardError> {
        let bad = |source| ShardError { text: text.to_owned(), source };
        let (index, count) = text.split_once('/').ok_or_else(|| bad(None))?;
        let number = |n: &str| n.parse::<u64>().map_err(|e| bad(Some(e)));
        let (index, count) = (number(index)?, number(count)?);
        match count >= 1 && (1..=count).contains(&index) {
            true => Ok(Self { index, count }),
            false => Err(bad(None)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_every_name_exactly_once() {
        let names: Vec<String> = (0..50).map(|i| format!("scenario {i}")).collect();
        let shards = ["1/3", "2/3", "3/3"].map(|s| s.parse::<Shard>().unwrap());
        let counts: Vec<usize> = shards.iter().map(|s| names.iter().filter(|n| s.contains(n)).count()).collect();
        assert_eq!(counts.iter().sum::<usize>(), 50);
        assert!(counts.iter().all(|c| *c > 0), "{counts:?}");
    }

    #[test]
    fn a_shard_is_i_of_n_with_i_from_1_to_n() {
        let shard = "2/3".parse::<Shard>().unwrap();
        assert_eq!((shard.index(), shard.count()), (2, 3));
        for bad in ["0/2", "3/2", "1/0", "2", "a/2", "1/-1"] {
            let err = bad.parse::<Shard>().unwrap_err();
            assert_eq!(err.to_string(), format!("{bad:?} is not a shard i/n with 1 <= i <= n"));
        }
        assert!(std::error::Error::source(&"a/2".parse::<Shard>().unwrap_err()).is_some());
    }
}
