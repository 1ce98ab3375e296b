# ruff: noqa: E501  (an embedded HTML/JS asset, not Python prose)
"""The browsable API page at ``/docs``: renders ``/openapi.json`` and lets a person try calls.

Self-contained (no CDN), because the service may run where the browser has no internet. The
document's description (Markdown) is rendered here, on the server, with the rules pages'
renderer (markdown-it-py), so the page needs no Markdown library of its own.
"""

from __future__ import annotations

import re
from functools import lru_cache

# The pages' icon, inline: without one every browser asks for /favicon.ico, which the service
# does not serve (a 404 in the console of every page). ``server/static/play/index.html`` carries
# the same line (a static file); tests/test_play_page.py checks that they agree.
FAVICON_LINK = (
    '<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns=\'http://www.w3.org/2000/svg\' '
    "viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%238c3b2f'/%3E%3C/svg%3E\">"
)


def docs_html(description: str) -> str:
    """The ``/docs`` page with the OpenAPI document's ``description`` rendered from Markdown."""
    return _TEMPLATE.replace("<!--favicon-->", FAVICON_LINK).replace(
        "<!--description-->", render_markdown(description)
    )


@lru_cache(maxsize=16)
def render_markdown(text: str) -> str:
    """CommonMark plus tables to HTML; raw HTML in the source is escaped, and every heading gets
    the GitHub-style ``id`` the documents' own ``#anchor`` links use."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            token.attrSet("id", heading_slug(tokens[i + 1].content))
    return md.renderer.render(tokens, md.options, {})


def heading_slug(text: str) -> str:
    """``"The small variant"`` -> ``"the-small-variant"`` (GitHub's anchor rule)."""
    text = re.sub(r"[`*]", "", text.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_TEMPLATE = r"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Atelier hint service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<!--favicon-->
<style>
 body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
 header{background:#2d3142;color:#fff;padding:14px 24px}
 header h1{margin:0;font-size:20px} header p{margin:4px 0 0;opacity:.8}
 main{max-width:1100px;margin:0 auto;padding:16px 24px}
 .keys{display:flex;gap:12px;flex-wrap:wrap;margin:8px 0 16px}
 .keys label{font-size:13px} .keys input{width:260px}
 h2{border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:28px}
 details.op{background:#fff;border:1px solid #ddd;border-radius:6px;margin:8px 0}
 details.op>summary{cursor:pointer;padding:8px 12px;list-style:none;display:flex;gap:12px}
 .m{font-weight:700;width:54px;text-align:center;border-radius:4px;color:#fff;font-size:12px;padding:2px}
 .GET{background:#3a86ff}.POST{background:#2a9d8f}
 .path{font-family:ui-monospace,monospace}.sum{color:#555}
 .body{padding:4px 14px 14px} pre{background:#f3f3f3;padding:8px;overflow:auto;max-height:320px;font-size:12px}
 textarea{width:100%;min-height:140px;font-family:ui-monospace,monospace;font-size:12px}
 table{border-collapse:collapse;font-size:13px} td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}
 button{padding:5px 14px;margin-top:6px} .status{font-weight:700}
 .about{background:#fff;border:1px solid #ddd;border-radius:6px;padding:2px 16px}
 .about code{background:#f3f3f3;padding:0 3px;border-radius:3px;font-size:13px}
 .filled{font-size:12px;color:#2a9d8f}
</style></head>
<body><header><h1>Atelier hint service</h1><p id="desc">loading /openapi.json ...</p></header>
<main>
<div class="keys">
 <label>X-API-Key <input id="apikey" placeholder="only if the server requires keys"></label>
 <label>X-Seat-Token <input id="seattoken" placeholder="for /v1/matches/{id}"></label>
 <span id="token-note" class="filled"></span>
</div>
<section id="about" class="about"><!--description--></section>
<div id="ops"></div>
</main>
<script>
const $ = (t, a = {}, ...kids) => { const e = document.createElement(t);
  for (const [k, v] of Object.entries(a)) k === "text" ? e.textContent = v : e.setAttribute(k, v);
  for (const c of kids) e.append(c); return e; };
let SPEC = null;
// Every operation's match_id field: a created match's id goes into each of them.
const MATCH_ID_INPUTS = [];
// A match just created through "Try it": its id fills every match_id field and the first seat
// token the X-Seat-Token box, so the match's own calls (actions, hint, state) can be tried next.
function rememberMatch(created) {
  if (!created || !created.match_id) return;
  for (const inp of MATCH_ID_INPUTS) inp.value = created.match_id;
  const token = (created.tokens || [])[0];
  if (token) {
    document.getElementById("seattoken").value = token.token;
    document.getElementById("token-note").textContent =
      `filled in: seat ${token.seat} of match ${created.match_id}`;
  }
}
function resolve(s, depth = 0) {
  if (!s || depth > 6) return s;
  if (s.$ref) return resolve(SPEC.components.schemas[s.$ref.split("/").pop()], depth + 1);
  if (Array.isArray(s)) return s.map(x => resolve(x, depth + 1));
  if (typeof s === "object") { const o = {}; for (const [k, v] of Object.entries(s)) o[k] = resolve(v, depth + 1); return o; }
  return s;
}
// The example body of an operation, for the game chosen in its "game" parameter (each game's
// own example information set: another game's would be refused).
async function example(path, op, game) {
  const first = SPEC.paths["/v1/games/{game}"].get.parameters[0].schema.enum[0];
  if (op === "hint" || op === "validate") {
    const r = await fetch(`/v1/games/${encodeURIComponent(game || first)}`); const d = await r.json();
    const body = {infoset: d.example_infoset};
    if (op === "hint") { body.budget = {milliseconds: 200}; }
    return JSON.stringify(body, null, 1);
  }
  if (op === "createMatch") {
    const r = await fetch(`/v1/games/${first}`);
    const d = await r.json(); const seats = ["human"];
    for (let i = 1; i < d.min_players; i++) seats.push("random");
    return JSON.stringify({game: d.name, seats}, null, 1);
  }
  if (op === "playAction") return JSON.stringify({action: {type: "..."}, step: 0}, null, 1);
  return "";
}
function render() {
  document.getElementById("desc").textContent = SPEC.info.title + " " + SPEC.info.version +
    " - OpenAPI " + SPEC.openapi + " at /openapi.json";
  const root = document.getElementById("ops");
  const byTag = {};
  for (const [path, item] of Object.entries(SPEC.paths))
    for (const [method, op] of Object.entries(item))
      (byTag[(op.tags || ["other"])[0]] ||= []).push([path, method.toUpperCase(), op]);
  for (const [tag, ops] of Object.entries(byTag)) {
    root.append($("h2", {text: tag}));
    for (const [path, method, op] of ops) root.append(renderOp(path, method, op));
  }
}
function renderOp(path, method, op) {
  const d = $("details", {class: "op", "data-op": op.operationId || ""});
  d.append($("summary", {}, $("span", {class: "m " + method, text: method}),
    $("span", {class: "path", text: path}), $("span", {class: "sum", text: op.summary || ""})));
  const b = $("div", {class: "body"}); d.append(b);
  const inputs = {};
  if (op.parameters?.length) {
    const t = $("table", {}, $("tr", {}, $("th", {text: "parameter"}), $("th", {text: "in"}), $("th", {text: "value"})));
    for (const p of op.parameters) {
      if (p.in === "header") continue;
      const inp = p.schema?.enum ? $("select", {}, ...p.schema.enum.map(v => $("option", {text: v}))) : $("input", {});
      inputs[p.name] = [p, inp];
      if (p.name === "match_id") MATCH_ID_INPUTS.push(inp);
      t.append($("tr", {}, $("td", {text: p.name + (p.required ? " *" : "")}), $("td", {text: p.in}), $("td", {}, inp)));
    }
    b.append(t);
  }
  let ta = null;
  if (op.requestBody) {
    const ref = op.requestBody.content["application/json"].schema;
    b.append($("p", {text: "Request body schema:"}), $("pre", {text: JSON.stringify(resolve(ref), null, 1)}));
    ta = $("textarea", {}); b.append(ta);
    const game = () => inputs.game ? inputs.game[1].value : null;
    const fill = async () => { ta.value = await example(path, op.operationId, game()); };
    d.addEventListener("toggle", () => { if (d.open && !ta.value) fill(); });
    // A new game means that game's example (until the body is edited by hand).
    let edited = false; ta.addEventListener("input", () => { edited = true; });
    if (inputs.game) inputs.game[1].addEventListener("change", () => { if (!edited) fill(); });
  }
  const out = $("pre", {text: "", class: "answer"}); const st = $("div", {class: "status"});
  const send = $("button", {text: "Send", class: "send"});
  send.onclick = async () => {
    let url = path; const q = new URLSearchParams();
    for (const [name, [p, inp]] of Object.entries(inputs)) {
      if (p.in === "path") url = url.replace(`{${name}}`, encodeURIComponent(inp.value));
      else if (inp.value) q.set(name, inp.value);
    }
    if ([...q].length) url += "?" + q;
    const headers = {"Content-Type": "application/json"};
    const k = document.getElementById("apikey").value, s = document.getElementById("seattoken").value;
    if (k) headers["X-API-Key"] = k; if (s) headers["X-Seat-Token"] = s;
    st.textContent = "sending ..."; out.textContent = "";
    const t0 = performance.now();
    const r = await fetch(url, {method, headers, body: ta ? ta.value : undefined});
    const text = await r.text(); let shown = text;
    try {
      const answer = JSON.parse(text); shown = JSON.stringify(answer, null, 1);
      if (op.operationId === "createMatch" && r.ok) rememberMatch(answer);
    } catch (e) {}
    st.textContent = `${r.status} ${r.statusText} in ${(performance.now() - t0).toFixed(0)} ms`;
    out.textContent = shown;
  };
  b.append(send, st, out);
  const resp = Object.entries(op.responses).map(([c, r]) => `${c}: ${r.description || r.$ref.split("/").pop()}`);
  b.append($("p", {text: "Responses: " + resp.join(" | ")}));
  return d;
}
fetch("/openapi.json").then(r => r.json()).then(s => { SPEC = s; render(); });
</script></body></html>
"""
