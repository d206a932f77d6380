//! Small closed sets of named values (strategies, dataset formats): one way to
//! show, parse and list them.

/// A value with a fixed set of variants, each with a lower-case name.
pub trait Named: Copy + 'static {
    /// Every variant, in the order they are shown.
    const ALL: &'static [Self];
    /// What the values are called in messages ("strategy", "format").
    const WHAT: &'static str;

    /// This variant's name.
    fn name(self) -> &'static str;

    /// The variant called `s` (any case), or an error listing the names.
    fn parse_name(s: &str) -> Result<Self, String> {
        rlmkg_text::one_of(Self::ALL, Self::name, Self::WHAT, s)
    }
}

/// `Display` and `FromStr` for a [`Named`] type, from its names.
#[macro_export]
macro_rules! named_display_from_str {
    ($t:ty) => {
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($crate::named::Named::name(*self))
            }
        }

        impl std::str::FromStr for $t {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                <$t as $crate::named::Named>::parse_name(s)
            }
        }
    };
}
