//! HTML to normalized text, in time linear in the input.
//!
//! A document is parsed by html5ever into scraper's tree and its text read
//! from the tree. html5ever's tree builder, though, does work per token in
//! proportion to its state: the scope checks walk the stack of open elements
//! (every `<div>` looks for an open `<p>` to close), a formatting element
//! walks the list of active formatting elements, and that list is copied
//! anew into every block it was misnested across. A document nested 200 000
//! levels deep therefore parses in minutes, and a page of misnested `<b>`s
//! grows a tree quadratic in its size (html5ever issue 788).
//!
//! So the parse is watched ([`Watch`]): the stack of open elements plus the
//! list of active formatting elements may hold [`MAX_OPEN`] entries
//! (browsers, Blink and WebKit, stop nesting at the same depth), and the
//! nodes the tree builder makes may number [`NODES_PER_TOKEN`] a token. A
//! document that goes past either is read by [`TokenText`] instead: the same
//! reading ([`Extract`]) fed by the tokenizer alone, linear by construction.
//! It keeps all the text, in source order, with the same breaks at blocks,
//! headings and title, and skips scripts and styles the same way; what it
//! does not do is the tree builder's repair of broken markup (text misplaced
//! into a table is not moved before it, an unclosed `<p>` is not closed by
//! the next block), which in a document of that kind changes where a few
//! breaks fall, not which words are kept. A document within the bounds is
//! read exactly as before.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use ego_tree::NodeId;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::tree_builder::{
    Attribute, ElementFlags, NodeOrText, QuirksMode, Tracer, TreeBuilder, TreeSink,
};
use html5ever::{ParseOpts, QualName, TokenizerResult};
use scraper::{Html, HtmlTreeSink};

use super::DocMeta;
use crate::text::normalize;

/// The most entries the tree builder's stack of open elements and its list
/// of active formatting elements may hold together before the document is
/// read by the tokenizer alone: the depth at which Blink and WebKit stop
/// nesting (`kMaximumHTMLParserDOMTreeDepth`), far past any page a person
/// reads as nested. Every walk the tree builder makes per token is bounded
/// by it.
const MAX_OPEN: usize = 512;

/// Nodes the tree builder may make per token on average (with
/// [`NODE_ALLOWANCE`] to start with) before the document is read by the
/// tokenizer alone. A token makes at most one node of its own; more come
/// from implied elements (`<tbody>`, `<tr>`) and from formatting elements
/// reopened in the next block, which a hostile page repeats without end.
const NODES_PER_TOKEN: u64 = 4;

/// Nodes allowed before [`NODES_PER_TOKEN`] applies (the document, `<html>`,
/// `<head>`, `<body>`, and room for a short page's implied elements).
const NODE_ALLOWANCE: u64 = 1024;

/// The fewest tokens between two measurements of the tree builder's state.
/// A measurement costs as much as the state is large, so the next one waits
/// at least that many tokens: measuring adds at most one step per token.
const MIN_GAP: u64 = 64;

/// The largest piece of input handed to the tokenizer at once (its buffers
/// hold at most 4 GiB); a smaller document goes in whole.
const PIECE: usize = 1 << 30;

/// How a document was read, with the work counted on the way (for tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct HtmlWork {
    /// Tokens given to the tree builder.
    pub tree_tokens: u64,
    /// Calls the tree builder made into the tree: each element it looked at
    /// while walking its stack, each node compared, made or moved.
    pub tree_steps: u64,
    /// Handles counted by the measurements of the tree builder's state.
    pub measured: u64,
    /// Whether the document went past the bounds and was read by the
    /// tokenizer alone.
    pub by_tokens: bool,
    /// Tokens the tokenizer-only reading took.
    pub token_tokens: u64,
}

impl HtmlWork {
    /// All the counted work.
    #[cfg(test)]
    pub fn total(&self) -> u64 {
        self.tree_tokens + self.tree_steps + self.measured + self.token_tokens
    }
}

/// The title, the normalized text and the headings of an HTML document.
pub(crate) fn html_text(raw: &str) -> (Option<String>, String, DocMeta) {
    html_text_counted(raw).0
}

/// [`html_text`], with the work it took.
pub(crate) fn html_text_counted(raw: &str) -> ((Option<String>, String, DocMeta), HtmlWork) {
    let mut work = HtmlWork::default();
    if let Some(doc) = parse_watched(raw, &mut work) {
        return (from_tree(&doc), work);
    }
    work.by_tokens = true;
    let reader = TokenText::default();
    let tok = Tokenizer::new(reader, TokenizerOpts::default());
    run(&tok, raw, |_| true);
    tok.sink.flush();
    work.token_tokens = tok.sink.tokens.get();
    (tok.sink.out.into_inner().finish(), work)
}

/// Feed `raw` to `tok` until it is all read or `stop` says so when the sink
/// paused the tokenizer; `stop` true means the document was given up.
fn run<S: TokenSink>(tok: &Tokenizer<S>, raw: &str, stop: impl Fn(&Tokenizer<S>) -> bool) -> bool {
    let queue = BufferQueue::default();
    let mut rest = raw;
    while !rest.is_empty() {
        // A character is at most 4 bytes: a boundary is near.
        let cut = (1..=rest.len().min(PIECE))
            .rev()
            .find(|&i| rest.is_char_boundary(i))
            .unwrap_or(rest.len());
        let (piece, after) = rest.split_at(cut);
        queue.push_back(StrTendril::from_slice(piece));
        rest = after;
    }
    loop {
        match tok.feed(&queue) {
            TokenizerResult::Done => break,
            TokenizerResult::Script(_) if stop(tok) => return false,
            _ => {}
        }
    }
    tok.end();
    true
}

/// Parse `raw` into a tree while the tree builder stays within the bounds;
/// None when it went past them.
fn parse_watched(raw: &str, work: &mut HtmlWork) -> Option<Html> {
    let opts = ParseOpts::default();
    let sink = Counted {
        inner: HtmlTreeSink::new(Html::new_document()),
        steps: Cell::new(0),
        nodes: Cell::new(0),
    };
    let watch = Watch {
        builder: TreeBuilder::new(sink, opts.tree_builder),
        tokens: Cell::new(0),
        next_check: Cell::new(0),
        measured: Cell::new(0),
        over: Cell::new(false),
    };
    let tok = Tokenizer::new(watch, opts.tokenizer);
    let whole = run(&tok, raw, |t| t.sink.over.get());
    let watch = tok.sink;
    work.tree_tokens = watch.tokens.get();
    work.tree_steps = watch.builder.sink.steps.get();
    work.measured = watch.measured.get();
    (whole && !watch.over.get()).then(|| watch.builder.sink.inner.finish())
}

/// A token sink between html5ever's tokenizer and its tree builder that
/// passes every token on and gives the document up (pausing the tokenizer
/// for good) once the tree builder's state or the nodes it made go past the
/// bounds.
struct Watch {
    builder: TreeBuilder<NodeId, Counted>,
    /// Tokens passed on.
    tokens: Cell<u64>,
    /// The token count at which the state is measured next.
    next_check: Cell<u64>,
    /// Handles counted by all measurements.
    measured: Cell<u64>,
    /// Set once the document went past the bounds.
    over: Cell<bool>,
}

impl Watch {
    /// The entries of the tree builder's stack of open elements and list of
    /// active formatting elements (with the document, head and form
    /// elements it also holds).
    fn open_entries(&self) -> u64 {
        let count = Count(Cell::new(0));
        self.builder.trace_handles(&count);
        count.0.get()
    }

    /// Whether the tree builder is past the bounds after `tokens` tokens.
    fn past_bounds(&self, tokens: u64) -> bool {
        let nodes = self.builder.sink.nodes.get();
        if nodes > NODE_ALLOWANCE.saturating_add(NODES_PER_TOKEN.saturating_mul(tokens)) {
            return true;
        }
        if tokens < self.next_check.get() {
            return false;
        }
        let entries = self.open_entries();
        self.measured
            .set(self.measured.get().saturating_add(entries));
        self.next_check
            .set(tokens.saturating_add(entries.max(MIN_GAP)));
        entries > MAX_OPEN as u64
    }
}

impl TokenSink for Watch {
    type Handle = NodeId;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<NodeId> {
        if self.over.get() {
            return TokenSinkResult::Script(self.builder.sink.get_document());
        }
        let tokens = self.tokens.get() + 1;
        self.tokens.set(tokens);
        let result = self.builder.process_token(token, line_number);
        if self.past_bounds(tokens) {
            self.over.set(true);
            // Pauses the tokenizer; `run` sees `over` and stops.
            return TokenSinkResult::Script(self.builder.sink.get_document());
        }
        result
    }

    fn end(&self) {
        self.builder.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// A tracer that counts the handles it is shown.
struct Count(Cell<u64>);

impl Tracer for Count {
    type Handle = NodeId;

    fn trace_handle(&self, _node: &NodeId) {
        self.0.set(self.0.get() + 1);
    }
}

/// scraper's tree sink, counting the calls the tree builder makes into it
/// (`steps`) and the nodes it makes (`nodes`).
struct Counted {
    inner: HtmlTreeSink,
    steps: Cell<u64>,
    nodes: Cell<u64>,
}

impl Counted {
    fn step(&self) {
        self.steps.set(self.steps.get() + 1);
    }

    fn made(&self) {
        self.step();
        self.nodes.set(self.nodes.get() + 1);
    }
}

impl TreeSink for Counted {
    type Handle = NodeId;
    type Output = Html;
    type ElemName<'a>
        = <HtmlTreeSink as TreeSink>::ElemName<'a>
    where
        Self: 'a;

    fn finish(self) -> Html {
        self.inner.finish()
    }

    fn parse_error(&self, msg: Cow<'static, str>) {
        self.inner.parse_error(msg);
    }

    fn get_document(&self) -> NodeId {
        self.inner.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Self::ElemName<'a> {
        self.step();
        self.inner.elem_name(target)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        self.made();
        self.inner.create_element(name, attrs, flags)
    }

    fn create_comment(&self, text: StrTendril) -> NodeId {
        self.made();
        self.inner.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> NodeId {
        self.made();
        self.inner.create_pi(target, data)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        self.step();
        self.inner.append(parent, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        self.step();
        self.inner
            .append_based_on_parent_node(element, prev_element, child);
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.step();
        self.inner
            .append_doctype_to_document(name, public_id, system_id);
    }

    fn mark_script_already_started(&self, node: &NodeId) {
        self.step();
        self.inner.mark_script_already_started(node);
    }

    fn pop(&self, node: &NodeId) {
        self.step();
        self.inner.pop(node);
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        self.step();
        self.inner.get_template_contents(target)
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        self.step();
        self.inner.same_node(x, y)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.inner.set_quirks_mode(mode);
    }

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        self.step();
        self.inner.append_before_sibling(sibling, new_node);
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        self.step();
        self.inner.add_attrs_if_missing(target, attrs);
    }

    fn associate_with_form(
        &self,
        target: &NodeId,
        form: &NodeId,
        nodes: (&NodeId, Option<&NodeId>),
    ) {
        self.step();
        self.inner.associate_with_form(target, form, nodes);
    }

    fn remove_from_parent(&self, target: &NodeId) {
        self.step();
        self.inner.remove_from_parent(target);
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        self.step();
        self.inner.reparent_children(node, new_parent);
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &NodeId) -> bool {
        self.step();
        self.inner
            .is_mathml_annotation_xml_integration_point(handle)
    }

    fn set_current_line(&self, line_number: u64) {
        self.inner.set_current_line(line_number);
    }

    fn allow_declarative_shadow_roots(&self, intended_parent: &NodeId) -> bool {
        self.inner.allow_declarative_shadow_roots(intended_parent)
    }

    fn attach_declarative_shadow(
        &self,
        location: &NodeId,
        template: &NodeId,
        attrs: &[Attribute],
    ) -> bool {
        self.step();
        self.inner
            .attach_declarative_shadow(location, template, attrs)
    }

    fn maybe_clone_an_option_into_selectedcontent(&self, option: &NodeId) {
        self.step();
        self.inner
            .maybe_clone_an_option_into_selectedcontent(option);
    }
}

/// Read the text of a parsed tree: its elements opened and closed in
/// document order (an explicit walk, no recursion).
fn from_tree(doc: &Html) -> (Option<String>, String, DocMeta) {
    use ego_tree::iter::Edge;
    use scraper::Node;
    let mut out = Extract::default();
    for edge in doc.tree.root().traverse() {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(e) => out.open(e.name()),
                Node::Text(t) => out.text(t),
                _ => {}
            },
            Edge::Close(node) => {
                if let Node::Element(e) = node.value() {
                    out.close(e.name());
                }
            }
        }
    }
    out.finish()
}

/// Elements whose content is not text a reader sees.
fn is_skipped(name: &str) -> bool {
    matches!(name, "script" | "style" | "noscript" | "template" | "svg")
}

/// Elements that break the text (a line, or a paragraph for `p` and the
/// headings).
const BLOCK: &[&str] = &[
    "p",
    "div",
    "li",
    "br",
    "tr",
    "section",
    "article",
    "blockquote",
    "table",
    "ul",
    "ol",
    "header",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "dt",
    "dd",
    "figcaption",
    "main",
    "nav",
    "aside",
    "hr",
];

fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// The reading of a document's elements and text into normalized text,
/// headings and a title: one for the tree and the tokens alike.
#[derive(Default)]
struct Extract {
    text: String,
    meta: DocMeta,
    title: Option<String>,
    skip_depth: usize,
    in_title: bool,
    heading_start: Option<usize>,
    pre_depth: usize,
}

impl Extract {
    /// End the line (or the paragraph, when `double`) unless it is ended.
    fn newline(&mut self, double: bool) {
        let text = &mut self.text;
        while text.ends_with(' ') {
            text.pop();
        }
        if text.is_empty() {
            return;
        }
        let want = if double { "\n\n" } else { "\n" };
        if !text.ends_with(want) {
            if text.ends_with('\n') && double {
                text.push('\n');
            } else if !text.ends_with('\n') {
                text.push_str(want);
            }
        }
    }

    fn open(&mut self, name: &str) {
        if is_skipped(name) {
            self.skip_depth += 1;
        } else if name == "title" {
            self.in_title = true;
        } else if self.skip_depth == 0 && BLOCK.contains(&name) {
            let is_h = is_heading(name);
            self.newline(is_h || name == "p");
            if is_h {
                self.heading_start = Some(self.text.len());
            }
            if name == "pre" {
                self.pre_depth += 1;
            }
        }
    }

    fn close(&mut self, name: &str) {
        if is_skipped(name) {
            self.skip_depth = self.skip_depth.saturating_sub(1);
        } else if name == "title" {
            self.in_title = false;
        } else if self.skip_depth == 0 && BLOCK.contains(&name) {
            let is_h = is_heading(name);
            if is_h && let Some(s) = self.heading_start.take() {
                let h = self.text.get(s..).unwrap_or_default().trim().to_string();
                if !h.is_empty() {
                    self.meta.headings.push((s as u64, h));
                }
            }
            if name == "pre" {
                self.pre_depth = self.pre_depth.saturating_sub(1);
            }
            self.newline(is_h || name == "p");
        }
    }

    fn text(&mut self, t: &str) {
        if self.in_title {
            let s = t.split_whitespace().collect::<Vec<_>>().join(" ");
            if !s.is_empty() {
                self.title = Some(normalize(&s));
            }
            return;
        }
        if self.skip_depth > 0 {
            return;
        }
        let text = &mut self.text;
        if self.pre_depth > 0 {
            text.push_str(t);
            return;
        }
        let lead = t.starts_with(char::is_whitespace);
        let trail = t.ends_with(char::is_whitespace);
        let words: Vec<&str> = t.split_whitespace().collect();
        if words.is_empty() {
            if !text.is_empty() && !text.ends_with([' ', '\n']) {
                text.push(' ');
            }
            return;
        }
        if lead && !text.is_empty() && !text.ends_with([' ', '\n']) {
            text.push(' ');
        }
        text.push_str(&words.join(" "));
        if trail {
            text.push(' ');
        }
    }

    fn finish(mut self) -> (Option<String>, String, DocMeta) {
        let text = normalize(self.text.trim_end());
        if self.title.is_none() {
            self.title = self.meta.headings.first().map(|(_, h)| h.clone());
        }
        (self.title, text, self.meta)
    }
}

/// Elements that have no content and no end tag.
fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "basefont"
            | "bgsound"
            | "br"
            | "col"
            | "embed"
            | "frame"
            | "hr"
            | "img"
            | "input"
            | "keygen"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

/// A token sink that reads the text of a document from its tokens alone,
/// without a tree: elements open at their start tags and close at their end
/// tags (void elements at once), and the tokenizer is switched to raw text
/// inside scripts, styles, titles and the like, as the tree builder would.
#[derive(Default)]
struct TokenText {
    out: RefCell<Extract>,
    /// Text since the last tag (the tokenizer gives it in pieces; the tree
    /// joins them into one node).
    pending: RefCell<String>,
    tokens: Cell<u64>,
}

impl TokenText {
    fn flush(&self) {
        let mut pending = self.pending.borrow_mut();
        if !pending.is_empty() {
            self.out.borrow_mut().text(&pending);
            pending.clear();
        }
    }
}

impl TokenSink for TokenText {
    type Handle = ();

    fn process_token(&self, token: Token, _line_number: u64) -> TokenSinkResult<()> {
        self.tokens.set(self.tokens.get() + 1);
        match token {
            Token::CharacterTokens(t) => self.pending.borrow_mut().push_str(&t),
            Token::TagToken(tag) => {
                self.flush();
                let name: &str = &tag.name;
                let mut out = self.out.borrow_mut();
                match tag.kind {
                    TagKind::StartTag => {
                        out.open(name);
                        if is_void(name) || (tag.self_closing && matches!(name, "svg" | "math")) {
                            out.close(name);
                        } else {
                            return match name {
                                "title" | "textarea" => TokenSinkResult::RawData(RawKind::Rcdata),
                                "style" | "xmp" | "iframe" | "noembed" | "noframes"
                                | "noscript" => TokenSinkResult::RawData(RawKind::Rawtext),
                                "script" => TokenSinkResult::RawData(RawKind::ScriptData),
                                "plaintext" => TokenSinkResult::Plaintext,
                                _ => TokenSinkResult::Continue,
                            };
                        }
                    }
                    // `</br>` is read as `<br>`, as the tree builder does.
                    TagKind::EndTag if name == "br" => {
                        out.open(name);
                        out.close(name);
                    }
                    TagKind::EndTag => out.close(name),
                }
            }
            Token::EOFToken => self.flush(),
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Documents of the shapes that make html5ever's tree builder quadratic,
    /// `n` deep (or long), each with the text `deep text here.` inside.
    fn hostile(shape: &str, n: usize) -> String {
        let t = "deep text here.";
        match shape {
            "div" => format!(
                "<html><body>{}{t}{}</body></html>",
                "<div>".repeat(n),
                "</div>".repeat(n)
            ),
            // Never closed: every `</div>` searches the whole stack.
            "span" => format!("<body>{}{t}{}", "<span>".repeat(n), "</div>".repeat(n)),
            "ul" => format!("<body>{}{t}", "<ul><li>".repeat(n)),
            "table" => format!("<body>{}{t}", "<table><tr><td>".repeat(n)),
            // Each new `<b>` walks the list of active formatting elements.
            "b" => {
                let mut s = String::from("<body>");
                for i in 0..n {
                    s.push_str(&format!("<b id={i}>"));
                }
                s + t
            }
            // Every `<b>` so far is reopened in each new block.
            "reopen" => {
                let mut s = String::from("<body>");
                for i in 0..n {
                    s.push_str(&format!("<div><b id={i}></div>"));
                }
                s + t
            }
            // An ordinary page, as long: the control.
            "flat" => format!("<body>{}<p>{t}</p>", "<p>a <b>b</b> c</p>".repeat(n)),
            _ => unreachable!("no shape {shape}"),
        }
    }

    const SHAPES: [&str; 7] = ["div", "span", "ul", "table", "b", "reopen", "flat"];

    /// The issue's case, 200 000 levels: the text comes out, and the tree
    /// builder saw no more than a bounded prefix of the document before it
    /// was read by its tokens (measured: it made no more calls into the
    /// tree than a few per token of that prefix times the bound on its
    /// state, where unbounded it would make 2 × 10^10).
    #[test]
    fn two_hundred_thousand_nested_divs_are_read_in_linear_work() {
        let html = format!(
            "<html><body>{}deep text here. Another sentence.{}</body></html>",
            "<div>".repeat(200_000),
            "</div>".repeat(200_000)
        );
        let ((title, text, _), work) = html_text_counted(&html);
        assert_eq!(text, "deep text here. Another sentence.");
        assert_eq!(title, None);
        assert!(work.by_tokens, "{work:?}");
        assert!(work.tree_tokens <= (MAX_OPEN as u64) * 2, "{work:?}");
        assert!(
            work.tree_steps <= work.tree_tokens * 4 * MAX_OPEN as u64,
            "{work:?}"
        );
        assert!(work.total() <= 4 * html.len() as u64, "{work:?}");
    }

    /// Counted work is linear in every hostile shape: twice the size is at
    /// most a little over twice the work (a quadratic parse is four times).
    /// Measured: without [`MAX_OPEN`] the `div`, `span` and `ul` shapes fail
    /// here (4.0×), and `reopen` without both bounds; `b`'s walks of the
    /// formatting list are not calls into the tree, so are not counted
    /// (the bound on the list is what keeps them short).
    #[test]
    fn work_is_linear_in_every_hostile_shape() {
        for shape in SHAPES {
            let (small, big) = (hostile(shape, 4_000), hostile(shape, 8_000));
            let ((_, text_small, _), w_small) = html_text_counted(&small);
            let ((_, text_big, _), w_big) = html_text_counted(&big);
            for text in [&text_small, &text_big] {
                assert!(text.contains("deep text here."), "{shape}: {text:.200}");
            }
            let ratio = w_big.total() as f64 / w_small.total() as f64;
            assert!(
                ratio < 2.3,
                "{shape}: work {} → {} ({ratio:.2}×) for twice the input; {w_small:?} {w_big:?}",
                w_small.total(),
                w_big.total()
            );
            // And bounded per byte, whatever the size.
            assert!(
                w_big.total() <= 2 * (MAX_OPEN as u64) * big.len() as u64,
                "{shape}: {w_big:?}"
            );
        }
    }

    /// Pages within the bounds are read from the tree, as before (the text
    /// the reading gave before the bounds, checked against the old code).
    #[test]
    fn ordinary_pages_are_read_from_the_tree() {
        let page = "<html><head><title>A  page</title><style>p{}</style></head><body>\
                    <h1>Head</h1><p>One <b>two</b>\n three.</p><table><tr><td>x</td>\
                    <td>y</td></tr></table><pre> a\n  b</pre><script>no()</script>\
                    <ul><li>i<li>j</ul></body></html>";
        let (read, work) = html_text_counted(page);
        assert!(!work.by_tokens, "{work:?}");
        assert_eq!(read.0.as_deref(), Some("A page"));
        assert_eq!(read.1, "Head\n\nOne two three.\n\nxy\n a\n  b\ni\nj");
        // 200 levels is deep, but within the bounds.
        let deep = hostile("div", 200);
        let (_, work) = html_text_counted(&deep);
        assert!(!work.by_tokens, "{work:?}");
    }

    /// The tokens-only reading gives the same text as the tree on well-formed
    /// pages: titles, headings, skipped scripts and styles, breaks, `<pre>`.
    #[test]
    fn the_token_reading_agrees_with_the_tree_on_well_formed_pages() {
        let pages = [
            "<html><head><title>T</title></head><body><h2>Sec</h2><p>a &amp; b</p></body></html>",
            "<body><div>x<br>y</div><script>if (a<b) { x = '</p>' }</script><p>z</p></body>",
            "<body><pre>  kept\n  as is</pre><style>.a{}</style><ol><li>1</li><li>2</li></ol></body>",
            "<body><svg><text>no</text></svg><p>yes</p><noscript><p>no</p></noscript></body>",
        ];
        for page in pages {
            let tree = from_tree(&Html::parse_document(page));
            let tok = Tokenizer::new(TokenText::default(), TokenizerOpts::default());
            run(&tok, page, |_| true);
            tok.sink.flush();
            assert_eq!(tok.sink.out.into_inner().finish(), tree, "{page}");
        }
    }
}
