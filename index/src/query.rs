//! User text as a query. The query syntax reaches the chunks' searchable
//! fields only: words, `"phrases"`, `+must`, `-must_not`, `AND`/`OR`/`NOT`,
//! `(groups)`, `word^2` boosts, and `title:`/`text:` before any of
//! them. Text that asks for anything else — another field (`kind:doc`,
//! `id:c3`), a field's existence (`title:*`), a range, a set, a regex, every
//! record (`*`) — is searched as its words, so no user text can make a search
//! fail or reach the index's other records. A query that excludes words
//! (`-harbour`) matches everything else but them, so it is held to the chunks.

use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, QueryParser};
use tantivy::query_grammar::{UserInputAst, UserInputLeaf, parse_query_lenient};

/// The fields a query may name (the chunks' searchable ones).
const SEARCHABLE: &[&str] = &["title", "text"];

/// The query `text` asks for (see the module's doc); `chunks` matches every
/// chunk and nothing else.
pub(crate) fn user_query(
    parser: &QueryParser,
    text: &str,
    chunks: impl FnOnce() -> Box<dyn Query>,
) -> Box<dyn Query> {
    let words = as_words(text);
    if words.trim().is_empty() {
        // No word at all ("} !"): nothing, not every record.
        return Box::new(tantivy::query::EmptyQuery);
    }
    let (ast, _errors) = parse_query_lenient(text);
    if !only_searchable(&ast) {
        return parser.parse_query_lenient(&words).0;
    }
    let excludes = excludes(&ast);
    let query = parser.build_query_from_user_input_ast_lenient(ast).0;
    if !excludes {
        // Only chunks have `title`/`text` terms: no filter, which would
        // defeat the top-k pruning.
        return query;
    }
    Box::new(BooleanQuery::new(vec![
        (Occur::Must, query),
        (Occur::Must, Box::new(ConstScoreQuery::new(chunks(), 0.0))),
    ]))
}

/// Whether `ast` excludes anything (a `-word` or `NOT word` at any depth).
fn excludes(ast: &UserInputAst) -> bool {
    match ast {
        UserInputAst::Clause(clauses) => clauses
            .iter()
            .any(|(occur, a)| *occur == Some(Occur::MustNot) || excludes(a)),
        UserInputAst::Boost(a, _) => excludes(a),
        UserInputAst::Leaf(_) => false,
    }
}

/// Whether every leaf of `ast` is a word or phrase over the searchable
/// fields, and every boost a positive number.
fn only_searchable(ast: &UserInputAst) -> bool {
    match ast {
        UserInputAst::Clause(clauses) => clauses.iter().all(|(_, a)| only_searchable(a)),
        UserInputAst::Boost(a, boost) => {
            boost.is_finite() && boost.into_inner() > 0.0 && only_searchable(a)
        }
        UserInputAst::Leaf(leaf) => match leaf.as_ref() {
            // A leaf with no word ("!") would match every record.
            UserInputLeaf::Literal(l) => {
                l.field_name
                    .as_deref()
                    .is_none_or(|f| SEARCHABLE.contains(&f))
                    && l.phrase.chars().any(char::is_alphanumeric)
            }
            _ => false,
        },
    }
}

/// `text` with the syntax taken out: its letters and digits, lower-cased (so
/// `AND`, `OR` and `NOT` are words), every other character a space.
fn as_words(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let keep = c.is_alphanumeric();
            c.to_lowercase()
                .filter(move |_| keep)
                .chain((!keep).then_some(' '))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_is_taken_out_of_words() {
        for (text, want) in [
            ("title:* AND (\"", "title   and   "),
            ("Tromsø NOT Oslo", "tromsø not oslo"),
            ("kind:doc", "kind doc"),
        ] {
            assert_eq!(as_words(text), want, "{text}");
        }
    }
}
