//! Closed sets of names: a fieldless enum whose wire names are written once, in one table, and
//! from which `ALL`, `name()`, `Display`, `FromStr` and serde are derived. Adding a member means
//! adding one line to its table; nothing else lists the names.

/// A name that is not a member of its closed set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {set} {got:?}: expected one of {expected}")]
#[non_exhaustive]
pub struct UnknownName {
    /// What the set is called ("tool", "navigation event kind", …).
    pub set: &'static str,
    /// The name that came.
    pub got: String,
    /// The members, comma-separated.
    pub expected: String,
}

impl UnknownName {
    /// `got` is not one of `expected` in the set called `set`. (A constructor, because the
    /// struct is non-exhaustive and `closed_set!` expands in other crates too.)
    pub fn new(set: &'static str, got: &str, expected: String) -> Self {
        Self { set, got: got.to_owned(), expected }
    }
}

/// Declares a closed set. Each member is `Variant = "wire-name"`; the set's own name (for
/// errors) comes first:
///
/// ```
/// navguard::closed_set! {
///     /// What a tab did.
///     pub enum Kind("navigation event kind") { Started = "started", Load = "load" }
/// }
///
/// assert_eq!("load".parse::<Kind>(), Ok(Kind::Load));
/// assert_eq!(Kind::Started.to_string(), "started");
/// assert_eq!(Kind::ALL, [Kind::Started, Kind::Load]);
/// ```
///
/// A set can also be the kinds of an enum whose members carry data: both are declared at once,
/// the data enum's members with their fields and wire names, and the set of their kinds is
/// derived from it with a method that gives a value's kind (so the two cannot drift apart):
///
/// ```
/// navguard::closed_set! {
///     /// The kinds of [`Stop`], by their names in the trace.
///     pub enum StopKind("stop reason");
///     /// How a task ended.
///     #[derive(Clone, Debug)]
///     pub enum Stop by kind {
///         Done { summary: String } = "done",
///         User = "user",
///     }
/// }
///
/// let stop = Stop::Done { summary: "booked".into() };
/// assert_eq!(stop.kind(), StopKind::Done);
/// assert_eq!(stop.kind().name(), "done");
/// ```
#[macro_export]
macro_rules! closed_set {
    (
        $(#[$kind_meta:meta])*
        $kind_vis:vis enum $kind:ident($set:literal);
        $(#[$meta:meta])*
        $vis:vis enum $name:ident by $method:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident $({ $($field:tt)* })? $(( $($member:tt)* ))? = $wire:literal
            ),+ $(,)?
        }
    ) => {
        $crate::closed_set! {
            $(#[$kind_meta])*
            $kind_vis enum $kind($set) {
                $(
                    #[doc = concat!("[`", stringify!($name), "::", stringify!($variant), "`]")]
                    $variant = $wire
                ),+
            }
        }

        $(#[$meta])*
        $vis enum $name {
            $(
                $(#[$vmeta])*
                $variant $({ $($field)* })? $(( $($member)* ))?
            ),+
        }

        impl $name {
            #[doc = concat!("Its kind: the member of [`", stringify!($kind), "`] of the same name.")]
            $vis const fn $method(&self) -> $kind {
                match self {
                    $(Self::$variant { .. } => $kind::$variant),+
                }
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident($set:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every member, in declaration order.
            $vis const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The member's wire name.
            $vis const fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $wire),+
                }
            }

            /// The members' names, comma-separated (for messages).
            $vis fn list() -> String {
                Self::ALL.iter().map(|m| m.name()).collect::<Vec<_>>().join(", ")
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::names::UnknownName;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::ALL.iter().copied().find(|m| m.name() == s).ok_or_else(|| $crate::names::UnknownName::new($set, s, Self::list()))
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.name())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let name = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(deserializer)?;
                name.parse().map_err(::serde::de::Error::custom)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    closed_set! {
        /// A set for the tests.
        enum Colour("colour") { Red = "red", DarkBlue = "dark-blue" }
    }

    closed_set! {
        /// The kinds of [`Paint`].
        enum PaintKind("paint");
        /// A set whose members carry data.
        #[derive(Debug)]
        enum Paint by kind {
            /// A plain one.
            Plain = "plain",
            Mixed { parts: Vec<Colour> } = "mixed",
            Named(String) = "named",
        }
    }

    #[test]
    fn the_kinds_of_a_set_with_data_are_derived_from_it() {
        let paints = [Paint::Plain, Paint::Mixed { parts: vec![Colour::Red] }, Paint::Named("ochre".into())];
        let kinds: Vec<PaintKind> = paints.iter().map(Paint::kind).collect();
        assert_eq!(kinds, PaintKind::ALL);
        assert!(matches!(&paints[1], Paint::Mixed { parts } if parts == &[Colour::Red]));
        assert!(matches!(&paints[2], Paint::Named(name) if name == "ochre"));
        assert_eq!(PaintKind::Mixed.name(), "mixed");
        assert_eq!("named".parse::<PaintKind>().unwrap(), PaintKind::Named);
    }

    #[test]
    fn names_parse_and_print_from_one_table() {
        for colour in Colour::ALL {
            assert_eq!(colour.to_string().parse::<Colour>().unwrap(), *colour);
        }
        assert_eq!(Colour::DarkBlue.name(), "dark-blue");
        assert_eq!(serde_json::to_string(&Colour::DarkBlue).unwrap(), "\"dark-blue\"");
        assert_eq!(serde_json::from_str::<Colour>("\"red\"").unwrap(), Colour::Red);
    }

    #[test]
    fn an_unknown_name_is_an_error_naming_it_and_the_members() {
        let err = "green".parse::<Colour>().unwrap_err();
        assert_eq!(err.to_string(), "unknown colour \"green\": expected one of red, dark-blue");
        let json = serde_json::from_str::<Colour>("\"green\"").unwrap_err().to_string();
        assert!(json.contains("unknown colour \"green\""), "{json}");
    }
}
