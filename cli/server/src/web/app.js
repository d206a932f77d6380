// The rlmkg page: ask a question (streamed from POST /v1/ask), show the short
// answer, the explanation with each claim coloured by its verdict, the cited
// sentences inside their passages, and the run's trajectory; or open a saved
// trajectory file. Everything from the server is put in the page as text
// (textContent), never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

let apiKey = sessionStorage.getItem("rlmkg-key") || "";

function withKey(headers) {
  const h = Object.assign({}, headers || {});
  if (apiKey) h["Authorization"] = "Bearer " + apiKey;
  return h;
}

async function api(path, opts) {
  const o = Object.assign({}, opts || {});
  o.headers = withKey(o.headers);
  const r = await fetch(path, o);
  if (r.status === 401) {
    $("key-row").hidden = false;
    throw new Error("this server needs an API key: enter it above");
  }
  if (!r.ok) {
    let message = r.status + " " + r.statusText;
    try { message = (await r.json()).error.message; } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  return r;
}

function setStatus(text) { $("status").textContent = text || ""; }

function showError(message) {
  const s = $("status");
  s.textContent = "";
  s.appendChild(el("span", "error-box", message));
}

// ---- the answer ------------------------------------------------------------

const VERDICT_RANK = { broken: 0, unsupported: 1, uncited: 2, overreach: 3, partial: 4, supported: 5, exempt: 6 };

// "c12.s2-s4" -> ["c12.s2", "c12.s3", "c12.s4"]; "c12.s3" -> ["c12.s3"]; "c12" -> [].
function sentenceIds(id) {
  const m = /^(c\d+)(?:\.s(\d+)(?:-s?(\d+))?)?$/.exec(id || "");
  if (!m || !m[2]) return [];
  const first = Number(m[2]);
  const last = m[3] ? Number(m[3]) : first;
  const out = [];
  for (let i = first; i <= last && i - first < 200; i++) out.push(m[1] + ".s" + i);
  return out;
}

function chunkOf(id) {
  const m = /^(c\d+)/.exec(id || "");
  return m ? m[1] : null;
}

function reasonsText(c) {
  const lines = [c.verdict + " (score " + Number(c.score || 0).toFixed(2) + ")"];
  for (const r of c.reasons || []) lines.push("• " + r.detail);
  for (const e of (c.evidence || []).slice(0, 2)) lines.push("source " + e.id + ": " + e.text);
  return lines.join("\n");
}

function showAnswer(a) {
  $("answer").hidden = false;
  const short = a.short_answer ? a.short_answer.text : (a.not_found ? "not found" : "—");
  $("short-answer").textContent = short;
  const badge = $("verified-badge");
  badge.textContent = a.verified ? "verified" : "not verified";
  badge.className = "badge " + (a.verified ? "yes" : "no");
  badge.dataset.verified = String(!!a.verified);
  // The answer checked as an answer: the chain of cited facts, or why not.
  const check = a.answer_check;
  const checkLine = $("answer-check");
  if (check) {
    const chain = (check.chain || [])
      .map((h) => h.from + " —" + h.relation + "→ " + h.to + " [" + h.sentence + "]")
      .join("; ");
    checkLine.textContent = check.verdict === "answers"
      ? "Answers the question: " + chain
      : "Not shown to answer the question (" + check.verdict.replace("_", " ") + "): " + check.reason;
    checkLine.dataset.verdict = check.verdict;
  } else {
    checkLine.textContent = "";
    delete checkLine.dataset.verdict;
  }

  const report = a.verification || { claims: [] };
  const explanation = $("explanation");
  explanation.textContent = "";
  // sentence id -> the worst verdict of a claim citing it (for the colours).
  const cited = new Map();
  // claim index -> the sentence ids it points at.
  const claimSentences = [];
  for (const c of report.claims || []) {
    const span = el("span", "claim v-" + c.verdict, (c.text || "").trim());
    span.dataset.verdict = c.verdict;
    span.dataset.index = String(c.index);
    span.title = reasonsText(c);
    const ids = [];
    for (const cit of c.citations || []) {
      if (!cit.resolved || !cit.id) continue;
      const s = sentenceIds(cit.id);
      if (s.length) ids.push(...s);
      else ids.push(...(c.evidence || []).filter((e) => chunkOf(e.id) === cit.id).map((e) => e.id));
    }
    claimSentences[c.index] = ids;
    for (const id of ids) {
      const prev = cited.get(id);
      if (!prev || VERDICT_RANK[c.verdict] < VERDICT_RANK[prev]) cited.set(id, c.verdict);
    }
    span.addEventListener("click", () => focusClaim(span, ids));
    explanation.appendChild(span);
    for (const cit of c.citations || []) {
      const mark = el("sup", "cite", cit.footnote ? "[" + cit.footnote + "]" : "[" + cit.raw + "?]");
      mark.title = cit.id || cit.raw;
      explanation.appendChild(mark);
    }
    explanation.appendChild(document.createTextNode(" "));
  }
  showSources(report, cited);
}

function focusClaim(span, ids) {
  for (const e of document.querySelectorAll(".claim.active, .focus")) e.classList.remove("active", "focus");
  span.classList.add("active");
  let first = null;
  for (const id of ids) {
    const s = document.querySelector('[data-sentence="' + CSS.escape(id) + '"]');
    if (s) { s.classList.add("focus"); first = first || s; }
  }
  if (first) first.scrollIntoView({ behavior: "smooth", block: "center" });
}

async function showSources(report, cited) {
  const box = $("sources");
  box.textContent = "";
  const chunks = [];
  for (const f of report.footnotes || []) {
    const c = chunkOf(f.id);
    if (c && !chunks.includes(c)) chunks.push(c);
  }
  for (const id of cited.keys()) {
    const c = chunkOf(id);
    if (c && !chunks.includes(c)) chunks.push(c);
  }
  for (const chunk of chunks.slice(0, 30)) {
    const div = el("div", "source");
    div.dataset.chunk = chunk;
    box.appendChild(div);
    try {
      const p = await (await api("/v1/read/" + encodeURIComponent(chunk))).json();
      div.appendChild(el("div", "head", chunk + " · " + p.doc.title + " · " + p.doc.path));
      for (const s of p.sentences) {
        const verdict = cited.get(s.id);
        const node = el(verdict ? "mark" : "span", verdict ? "v-" + verdict : "");
        node.dataset.sentence = s.id;
        node.appendChild(el("span", "sid", s.id));
        node.appendChild(document.createTextNode(s.text.trim()));
        if (verdict) node.title = "cited by a " + verdict + " claim";
        div.appendChild(node);
        div.appendChild(document.createTextNode(" "));
      }
    } catch (e) {
      div.appendChild(el("div", "head", chunk + ": " + e.message));
    }
  }
}

// ---- the trajectory --------------------------------------------------------

function tokens(u) { return u ? (u.prompt_tokens || 0) + (u.completion_tokens || 0) : 0; }

function onTraceLine(line) {
  const list = $("trajectory");
  if (line.type === "header") {
    $("run-summary").textContent = "root " + line.root_model + ", sub " + line.sub_model + ", profile " + line.profile;
  } else if (line.type === "iteration") {
    const li = el("li");
    li.dataset.iteration = String(line.iteration);
    li.appendChild(el("div", null, "Turn " + line.iteration + (line.depth ? " (depth " + line.depth + ")" : "")));
    li.appendChild(el("div", "meta", tokens(line.usage) + " tokens · " + (line.latency_ms || 0) + " ms" + (line.cached ? " · cached" : "")));
    if (line.reply) {
      const d = el("details");
      d.appendChild(el("summary", "meta", "model reply"));
      d.appendChild(el("pre", "output", line.reply));
      li.appendChild(d);
    }
    for (const b of line.blocks || []) {
      li.appendChild(el("pre", "code", b.code));
      if (b.output) li.appendChild(el("pre", "output", b.output));
      if (b.error) li.appendChild(el("pre", "error", b.error));
      li.appendChild(el("div", "meta", "ran in " + (b.elapsed_ms || 0) + " ms" + (b.limit ? " · stopped by a limit" : "")));
    }
    if ((line.sub_calls || []).length) {
      const ul = el("ul", "subcalls");
      for (const s of line.sub_calls) {
        ul.appendChild(el("li", null, s.kind + " → " + s.model + " · " + tokens(s.usage) + " tokens · " + s.latency_ms + " ms" +
          (s.cached ? " · cached" : "") + (s.error ? " · error: " + s.error : "")));
      }
      li.appendChild(ul);
    }
    for (const ev of line.events || []) li.appendChild(el("div", "note", ev.kind + ": " + ev.message));
    list.appendChild(li);
  } else if (line.type === "final") {
    const t = line.totals || {};
    const li = el("li");
    li.appendChild(el("div", null, "End: " + line.stop_reason));
    li.appendChild(el("div", "meta", (t.iterations || 0) + " turns · " + (t.calls || 0) + " calls (" + (t.sub_calls || 0) + " sub-calls) · " +
      tokens(t) + " tokens · " + Number(t.seconds || 0).toFixed(2) + " s"));
    list.appendChild(li);
  }
}

function addNote(message) { $("notes").appendChild(el("div", "note", message)); }

function reset() {
  $("answer").hidden = true;
  for (const id of ["short-answer", "explanation", "sources", "notes", "trajectory", "run-summary"]) $(id).textContent = "";
  $("verified-badge").textContent = "";
  $("answer-check").textContent = "";
}

function summarize(a) {
  const u = a.usage || {};
  if (!u.iterations) {
    $("run-summary").textContent = "no model run: " + a.method.replace("_", " ") + " answer (" + Number(u.seconds || 0).toFixed(2) + " s)";
  }
  setStatus(a.stop_reason || "");
}

// ---- asking ----------------------------------------------------------------

async function ask(question, strategy) {
  reset();
  setStatus("asking…");
  $("ask").disabled = true;
  try {
    const body = { question: question, stream: true };
    if (strategy) body.strategy = strategy;
    const r = await api("/v1/ask", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const reader = r.body.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const text = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (text.trim()) onEvent(JSON.parse(text));
      }
    }
  } catch (e) {
    showError(e.message);
  } finally {
    $("ask").disabled = false;
  }
}

function onEvent(e) {
  if (e.event === "run") onTraceLine(e.line);
  else if (e.event === "note") addNote(e.message);
  else if (e.event === "draft") setStatus("checking the claims of the draft…");
  else if (e.event === "answer") { showAnswer(e.answer); summarize(e.answer); }
  else if (e.event === "error") showError(e.error.message);
}

// ---- a saved trajectory ----------------------------------------------------

async function openTrace(file) {
  reset();
  const text = await file.text();
  let last = null;
  let n = 0;
  for (const raw of text.split("\n")) {
    if (!raw.trim()) continue;
    let line;
    try { line = JSON.parse(raw); } catch (_) { showError("line " + (n + 1) + " of " + file.name + " is not JSON"); return; }
    n++;
    onTraceLine(line);
    if (line.type === "final") last = line;
  }
  setStatus(file.name + ": " + n + " lines");
  if (last && last.answer && last.verification && last.verification.claims) {
    const claims = last.verification.claims;
    showAnswer({
      short_answer: null, not_found: false, text: last.answer, verification: last.verification,
      verified: claims.length > 0 && claims.every((c) => c.verdict === "supported" || c.verdict === "exempt"),
    });
  }
}

// ---- start -----------------------------------------------------------------

async function loadStats() {
  try {
    const s = await (await api("/v1/stats")).json();
    $("stats").textContent = s.docs + " documents · " + s.chunks + " chunks · " + s.entities + " entities";
  } catch (_) { /* shown when asking */ }
}

document.addEventListener("DOMContentLoaded", () => {
  $("ask-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const q = $("question").value.trim();
    if (q) ask(q, $("strategy").value);
  });
  $("key-save").addEventListener("click", () => {
    apiKey = $("api-key").value.trim();
    sessionStorage.setItem("rlmkg-key", apiKey);
    $("key-row").hidden = true;
    setStatus("key set");
    loadStats();
  });
  $("trace-file").addEventListener("change", (e) => { if (e.target.files[0]) openTrace(e.target.files[0]); });
  loadStats();
  // A link can carry its question: /?q=…&strategy=heuristic
  const params = new URLSearchParams(location.search);
  if (params.get("q")) {
    $("question").value = params.get("q");
    if (params.get("strategy")) $("strategy").value = params.get("strategy");
    ask(params.get("q"), params.get("strategy") || "");
  }
});
