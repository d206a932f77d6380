//! One spelling for values that differ only in case and in the accents of
//! Latin letters: "Ålesund", "alesund" and "ALESUND" are one place to a count.

/// `text` lowercased, with each Latin letter that carries an accent or is a
/// letter variant (Å, ø, é, ß) written as its plain ASCII letters; letters of
/// other scripts and everything else kept as they are.
pub fn fold_key(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if ('\u{00C0}'..='\u{024F}').contains(&c) {
            match deunicode::deunicode_char(c) {
                Some(plain) => out.push_str(&plain.to_lowercase()),
                None => out.extend(c.to_lowercase()),
            }
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::fold_key;

    #[test]
    fn accents_and_case_fold_and_other_scripts_stay() {
        assert_eq!(fold_key("Ålesund"), "alesund");
        assert_eq!(fold_key("Tromsø"), "tromso");
        assert_eq!(fold_key("POWER Outage"), "power outage");
        assert_eq!(fold_key("Straße"), "strasse");
        assert_eq!(fold_key("北京"), "北京");
    }
}
