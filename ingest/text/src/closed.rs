//! Reading a word that names one of a closed set of values (a strategy, a
//! dataset format, a server kind): one rule, any case, and one message that
//! lists the names when the word is none of them.

/// The value of `all` whose `name` is `word`, ignoring ASCII case; else the
/// message "unknown {what} "{word}" (expected a, b, c)", naming every value in
/// the order of `all`.
///
/// ```
/// let names = |n: u8| ["one", "two"][usize::from(n)];
/// assert_eq!(rlmkg_text::one_of(&[0, 1], names, "number", "TWO"), Ok(1));
/// assert_eq!(
///     rlmkg_text::one_of(&[0, 1], names, "number", "three"),
///     Err("unknown number \"three\" (expected one, two)".to_string())
/// );
/// ```
pub fn one_of<T: Copy>(
    all: &[T],
    name: impl Fn(T) -> &'static str,
    what: &str,
    word: &str,
) -> Result<T, String> {
    all.iter()
        .copied()
        .find(|v| name(*v).eq_ignore_ascii_case(word))
        .ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|v| name(*v)).collect();
            format!("unknown {what} {word:?} (expected {})", names.join(", "))
        })
}
