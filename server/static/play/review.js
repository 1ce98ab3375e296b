// The review of a finished game, for the seat that played it: a bot scores each of the seat's
// decisions (api.requestReview starts the job, api.getReview polls it until it is done), and
// the page shows the value lost per move as a timeline, the biggest mistakes
// marked, and, for any move clicked, the position before it (drawn by the game's renderer from
// the decision's information set) with the move played and the bot's suggestion.
//
// `document.body.dataset.review` says where the review is (running, done, failed) and
// `document.body.dataset.position` which decision is drawn; the browser tests wait on them.

import * as api from "./api.js";
import { botName, h } from "./widgets.js";

const POLL_MS = [300, 600, 1000, 1500, 2000]; // then every 2 s
const MAX_WAIT_MS = 15 * 60 * 1000; // then stop asking and say so
const SVG = "http://www.w3.org/2000/svg";

// The job being watched; a new game (or a new request) makes older answers moot.
let generation = 0;
let pollTimer = null;

// While a past position is shown: Left and Right step through the moves, Escape goes back.
function onKey(ev) {
  if (!/^\d+$/.test(document.body.dataset.position || "")) return;
  if (ev.target && ev.target.closest && ev.target.closest("input, select, textarea")) return;
  const id = { ArrowLeft: "review-prev", ArrowRight: "review-next", Escape: "review-back" }[ev.key];
  const button = id && document.getElementById(id);
  if (button && !button.disabled) {
    ev.preventDefault();
    button.click();
  }
}
document.addEventListener("keydown", onKey);

export function resetReview(box) {
  generation += 1;
  clearTimeout(pollTimer);
  delete document.body.dataset.review;
  delete document.body.dataset.position;
  if (box) {
    box.hidden = true;
    box.replaceChildren();
  }
}

// --- numbers in words ---------------------------------------------------------------------------

// A value on the game's scale: three decimals for -1..1 games, fewer for money and points.
export function formatValue(x) {
  if (typeof x !== "number" || !Number.isFinite(x)) return "—";
  const a = Math.abs(x);
  const text = a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : x.toFixed(3);
  return text === "-0.000" ? "0.000" : text;
}

// A loss in one sign convention (a loss is a positive number, docs/api.md "Analysis"): "no loss"
// when the review says the played move is within noise of the best (`no_loss`, or a loss interval
// reaching 0); never negative (a review that reports one, from an older service, reads as 0).
export function lossText(lost, decision) {
  const d = decision || {};
  const interval = Array.isArray(d.interval) ? d.interval : null;
  if (d.no_loss === true || (interval && Number(interval[0]) <= 0 && d.no_loss !== false)) return "no loss";
  return formatValue(typeof lost === "number" ? Math.max(0, lost) : lost);
}

// The summary's accuracy, a percentage (0..100, docs/api.md "Game review").
export function accuracyText(accuracy) {
  if (typeof accuracy !== "number" || !Number.isFinite(accuracy)) return "—";
  return `${Math.round(accuracy * 10) / 10}%`;
}

// The summary's luck split (docs/api.md "Game review", `summary.luck`): its sentence with the
// standard errors of its two terms, which are large (0.1-0.3 of a win, about 1 in Modern Art);
// or why there is none (`luck_skipped`); null for a service older than the split.
export function luckText(summary) {
  const s = summary || {};
  const luck = s.luck;
  if (luck && typeof luck.sentence === "string") {
    const se = luck.stderr || {};
    const num = (x) => (typeof x === "number" && Number.isFinite(x) ? `±${x.toFixed(2)}` : "±?");
    return `${luck.sentence} (standard errors ${num(se.chance)} and ${num(se.decisions)}: the split is an estimate).`;
  }
  if (!("luck" in s)) return null;
  const why = typeof s.luck_skipped === "string" && s.luck_skipped ? s.luck_skipped : "not computed";
  return `No luck split: ${why}.`;
}

function scaleText(scale) {
  if (scale === null || scale === undefined || scale === "") return "";
  if (Array.isArray(scale) && scale.length === 2) return `from ${scale[0]} to ${scale[1]}`;
  if (typeof scale === "object") {
    if ("min" in scale || "max" in scale) return `from ${scale.min ?? "?"} to ${scale.max ?? "?"}`;
    return Object.entries(scale).map(([k, v]) => `${k} ${v}`).join(", ");
  }
  return String(scale);
}

// "Values are your expected share of first place (from 0 to 1)." from the review's `value`.
export function valueMeaning(value) {
  if (!value || typeof value !== "object") return null;
  if (typeof value.text === "string" && value.text) return value.text;
  const measures = value.measures ? String(value.measures) : "";
  const scale = scaleText(value.scale);
  if (!measures && !scale) return null;
  return `Values are ${measures || "the seat's expected return"}${scale ? ` (${scale})` : ""}.`;
}

function budgetText(budget) {
  if (!budget || typeof budget !== "object") return "";
  const parts = [];
  if (budget.milliseconds) parts.push(`${budget.milliseconds} ms`);
  if (budget.simulations) parts.push(`${budget.simulations} simulations`);
  return parts.length ? `${parts.join(", ")} per decision` : "";
}

// --- the job --------------------------------------------------------------------------------------

// The "Review my game" call to action under the result.
export function reviewOffer(host) {
  return h(
    "div",
    { class: "review-offer" },
    h("button", { type: "button", id: "review-start", class: "primary", onclick: () => startReview(host) }, "Review my game"),
    h("span", { class: "note" }, "a bot replays each of your decisions and scores the move you chose against its own"),
  );
}

// Asks for the review and polls the job until it is done or failed, showing its progress.
export async function startReview(host) {
  const mine = ++generation;
  clearTimeout(pollTimer);
  const box = host.box;
  box.hidden = false;
  document.body.dataset.review = "running";
  const start = document.getElementById("review-start");
  if (start) start.disabled = true;
  showProgress(box, { status: "queued", progress: null });
  const began = Date.now();
  let polls = 0;
  let job;
  try {
    try {
      job = await api.requestReview(host.match.id, host.match.token);
    } catch (err) {
      // The route itself is missing (an older service), not the match: say so in words.
      if (err.status === 404 && err.code === "not_found") {
        throw { code: "no_reviews", message: "this service does not review games (it is older than the review)" };
      }
      throw err;
    }
    while (mine === generation && (job.status === "queued" || job.status === "running")) {
      showProgress(box, job);
      if (Date.now() - began > MAX_WAIT_MS) {
        throw new Error("the review is taking too long; ask again later (the service keeps working on it)");
      }
      await new Promise((resolve) => (pollTimer = setTimeout(resolve, POLL_MS[Math.min(polls, POLL_MS.length - 1)])));
      polls += 1;
      if (mine !== generation) return;
      job = await api.getReview(job.id, host.match.token);
    }
  } catch (err) {
    if (mine === generation) showFailure(host, err.code ? err : { code: "error", message: err.message });
    return;
  }
  if (mine !== generation) return;
  if (job.status === "done" && job.review) {
    host.reviewId = job.id; // its decisions' positions are fetched from the job on demand
    showReview(host, job.review);
    const offer = start && start.closest(".review-offer");
    if (offer) offer.replaceWith(h("p", { class: "note", id: "review-done" }, "Your review is below."));
    document.body.dataset.review = "done";
  } else {
    showFailure(host, job.error || { code: job.status || "error", message: "the review did not finish" });
  }
}

function showProgress(box, job) {
  const p = job.progress || {};
  const total = Number(p.total) || 0;
  const done = Math.min(Number(p.done) || 0, total);
  const words =
    job.status === "queued" || !total
      ? "Waiting for a free worker…"
      : `Scoring your decisions: ${done} of ${total}`;
  box.replaceChildren(
    h("h3", {}, "Review"),
    h("p", { class: "review-status", id: "review-status", "aria-live": "polite" }, words),
    h(
      "div",
      { class: "progress", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": total || 1, "aria-valuenow": done },
      h("span", { class: "progress-fill", style: { width: total ? `${(100 * done) / total}%` : "0%" } }),
    ),
  );
}

function showFailure(host, error) {
  document.body.dataset.review = "failed";
  host.box.replaceChildren(
    h("h3", {}, "Review"),
    h("p", { class: "error", id: "review-error" }, `The review failed: ${error.code}: ${error.message}`),
    h("button", { type: "button", id: "review-retry", onclick: () => startReview(host) }, "Try again"),
  );
  const start = document.getElementById("review-start");
  if (start) start.disabled = false;
}

// --- the review -------------------------------------------------------------------------------------

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children) if (c !== null && c !== undefined) el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  return el;
}

const lostOf = (d) => (typeof d.value_lost === "number" && d.value_lost > 0 ? d.value_lost : 0);
const samePlay = (d) => !d.best || (d.played && d.played.id === d.best.id);

// Rank (1, 2, 3) of each of the summary's biggest mistakes, by decision index.
function mistakeRanks(review) {
  const ranks = new Map();
  ((review.summary && review.summary.biggest_mistakes) || []).forEach((index, i) => ranks.set(index, i + 1));
  return ranks;
}

function moveTitle(d) {
  const played = d.played ? d.played.string : "?";
  if (samePlay(d)) return `Move ${d.n} (step ${d.step}): ${played}, the bot's choice too`;
  return `Move ${d.n} (step ${d.step}): you played ${played}, the bot prefers ${d.best.string}; value lost ${lossText(d.value_lost, d)}`;
}

// One bar per decision, its height the value lost; whiskers for the interval; mistakes in red
// with their rank. Plain SVG scaled to the panel's width.
function timeline(review, ranks, pick) {
  const ds = review.decisions;
  const W = 400;
  const H = 104;
  const top = 24; // room for the scale and the mistakes' ranks above the tallest bar
  const base = H - 14;
  const highest = Math.max(1e-9, ...ds.map((d) => Math.max(lostOf(d), Array.isArray(d.interval) ? Number(d.interval[1]) || 0 : 0)));
  const step = W / Math.max(ds.length, 1);
  const barW = Math.max(1, Math.min(step * 0.7, 28));
  const y = (v) => base - (Math.max(0, Math.min(v, highest)) / highest) * (base - top);
  const bars = ds.map((d, i) => {
    const x = i * step + (step - barW) / 2;
    const rank = ranks.get(d.index);
    const lost = lostOf(d);
    const parts = [
      svg("rect", { class: "tl-hit", x: i * step, y: 0, width: step, height: H }),
      svg("rect", { class: "tl-bar", x, y: Math.min(y(lost), base - 1.5), width: barW, height: Math.max(1.5, base - y(lost)) }),
    ];
    if (Array.isArray(d.interval) && d.interval.length === 2 && !samePlay(d)) {
      const cx = x + barW / 2;
      parts.push(svg("line", { class: "tl-whisker", x1: cx, x2: cx, y1: y(Number(d.interval[0])), y2: y(Number(d.interval[1])) }));
    }
    if (rank) parts.push(svg("text", { class: "tl-rank", x: x + barW / 2, y: y(lost) - 3, "text-anchor": "middle" }, String(rank)));
    const g = svg(
      "g",
      {
        class: ["tl-move", rank ? "mistake" : "", samePlay(d) ? "agreed" : ""].join(" ").trim(),
        "data-index": d.index,
        tabindex: 0,
        role: "button",
        "aria-label": moveTitle(d),
      },
      svg("title", {}, moveTitle(d)),
      ...parts,
    );
    g.addEventListener("click", () => pick(d.index));
    g.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        pick(d.index);
      }
    });
    return g;
  });
  return svg(
    "svg",
    { class: "timeline", id: "review-timeline", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "value lost per move" },
    svg("line", { class: "tl-axis", x1: 0, x2: W, y1: base, y2: base }),
    svg("text", { class: "tl-scale", x: 2, y: 10 }, `${formatValue(highest)} lost`),
    svg("text", { class: "tl-scale", x: 2, y: H - 2 }, "move 1"),
    svg("text", { class: "tl-scale", x: W - 2, y: H - 2, "text-anchor": "end" }, `move ${ds.length}`),
    ...bars,
  );
}

function moveRow(d, ranks, pick) {
  const rank = ranks.get(d.index);
  return h(
    "li",
    {},
    h(
      "button",
      {
        type: "button",
        class: ["review-move", rank ? "mistake" : "", samePlay(d) ? "agreed" : ""].join(" ").trim(),
        dataset: { index: String(d.index) },
        title: moveTitle(d),
        onclick: () => pick(d.index),
      },
      h("span", { class: "rm-n" }, String(d.n)),
      h("span", { class: "rm-played" }, d.played ? d.played.string : "?"),
      h("span", { class: "rm-best" }, samePlay(d) ? "✓ the bot's move" : `bot: ${d.best.string}`),
      h("span", { class: "rm-lost" }, samePlay(d) ? "" : `−${formatValue(lostOf(d))}`),
      rank ? h("span", { class: "tag warn rm-rank" }, `mistake ${rank}`) : null,
    ),
  );
}

function showReview(host, given) {
  // Moves are numbered 1, 2, ... in the order of the review's decisions, whatever their index.
  const review = { ...given, decisions: (given.decisions || []).map((d, i) => ({ ...d, n: i + 1 })) };
  const ranks = mistakeRanks(review);
  const s = review.summary || {};
  const byIndex = new Map(review.decisions.map((d) => [d.index, d]));
  const pick = (index) => selectDecision(host, review, byIndex.get(index));
  const meaning = valueMeaning(review.value);
  const bot = typeof review.bot === "string" ? review.bot : review.bot ? botName(review.bot) : "";
  const by = [bot, budgetText(review.budget)].filter(Boolean).join(", ");
  const mistakes = [...ranks.keys()].map((i) => byIndex.get(i)).filter(Boolean);
  const luck = luckText(s);
  host.box.replaceChildren(
    h("h3", {}, "Review of your game"),
    h(
      "div",
      { class: "facts review-summary", id: "review-summary" },
      h("span", { class: "fact" }, h("b", {}, "Accuracy"), " ", h("span", { id: "review-accuracy" }, accuracyText(s.accuracy))),
      h("span", { class: "fact" }, h("b", {}, "Value lost"), " ", h("span", { id: "review-total" }, formatValue(Math.max(0, s.total_lost))), ` in total, ${formatValue(Math.max(0, s.mean_lost))} a move`),
      h("span", { class: "fact" }, h("b", {}, "Decisions"), " ", String(s.decisions ?? review.decisions.length)),
    ),
    h(
      "p",
      { class: "note review-meaning", id: "review-meaning" },
      meaning ? `${meaning} ` : "",
      `Scored by ${by || "the bot"}; the value lost is how much better the bot's move scored than yours, from the same sampled worlds.`,
    ),
    ...(luck ? [h("p", { class: "note review-luck", id: "review-luck" }, h("b", {}, "Luck: "), luck)] : []),
    review.decisions.length
      ? timeline(review, ranks, pick)
      : h("p", { class: "note" }, "You made no decision in this game: there is nothing to review."),
    mistakes.length
      ? h(
          "div",
          { class: "review-mistakes", id: "review-mistakes" },
          h("h4", {}, mistakes.length > 1 ? `The ${mistakes.length} biggest mistakes` : "The biggest mistake"),
          h(
            "ol",
            {},
            mistakes.map((d) =>
              h(
                "li",
                {},
                h(
                  "button",
                  { type: "button", class: "link-button", dataset: { index: String(d.index) }, onclick: () => pick(d.index) },
                  `Move ${d.n}: ${d.played.string} instead of ${d.best.string}`,
                ),
                ` (lost ${formatValue(lostOf(d))})`,
              ),
            ),
          ),
        )
      : review.decisions.length
        ? h("p", { class: "note", id: "review-mistakes" }, "No mistakes: every move you made scored as well as the bot's.")
        : null,
    h("h4", {}, "Every move (click one to see the position)"),
    h("ol", { class: "review-moves", id: "review-moves" }, review.decisions.map((d) => moveRow(d, ranks, pick))),
  );
}

// --- one decision's position ---------------------------------------------------------------------

const views = new Map(); // (match, seat, step) of a decision -> its view: one validation each

async function viewOf(host, infoset) {
  if (infoset.view) return infoset.view;
  const key = JSON.stringify([infoset.events.length, infoset.seat, host.match.id]);
  if (!views.has(key)) views.set(key, api.validateInfoset(host.game, infoset).then((out) => out.view));
  try {
    return await views.get(key);
  } catch (err) {
    views.delete(key); // try again on the next click
    throw err;
  }
}

function labelIn(view, action, label) {
  if (!action) return "?";
  const legal = (view && view.legal_actions) || [];
  const found = legal.find((a) => a.id === action.id);
  return (found && label(found)) || action.string;
}

function positionBanner(host, review, d, view, ctx) {
  const label = (a) => host.renderer.moveLabel(a, ctx) || a.string;
  const i = review.decisions.indexOf(d);
  const prev = review.decisions[i - 1];
  const next = review.decisions[i + 1];
  const pick = (x) => selectDecision(host, review, x);
  const interval = Array.isArray(d.interval) && d.interval.length === 2 ? d.interval : null;
  return h(
    "div",
    { class: "position-banner", id: "review-position", dataset: { index: String(d.index) } },
    h(
      "div",
      { class: "position-head" },
      h("b", {}, `Before your move ${d.n} of ${review.decisions.length}`),
      h("span", { class: "muted" }, ` (step ${d.step} of the game)`),
      h(
        "span",
        { class: "position-nav" },
        h("button", { type: "button", id: "review-prev", disabled: !prev, onclick: () => prev && pick(prev) }, "◀ previous"),
        h("button", { type: "button", id: "review-next", disabled: !next, onclick: () => next && pick(next) }, "next ▶"),
        h("button", { type: "button", id: "review-back", onclick: () => backToEnd(host) }, "back to the end"),
        // On a phone the review is far below the table: a way back to the list of moves.
        h("button", { type: "button", id: "review-to-list", class: "narrow-only", onclick: () => host.box.scrollIntoView({ block: "start" }) }, "the moves ▼"),
      ),
    ),
    h(
      "div",
      { class: "position-moves" },
      h("span", { class: "played" }, "You played ", h("b", { id: "review-played" }, labelIn(view, d.played, label)), ` (value ${formatValue(d.value_played)})`),
      samePlay(d)
        ? h("span", { class: "best same", id: "review-best" }, "the bot's choice too")
        : h("span", { class: "best" }, "The bot suggests ", h("b", { id: "review-best" }, labelIn(view, d.best, label)), ` (value ${formatValue(d.value_best)})`),
    ),
    samePlay(d)
      ? null
      : h(
          "div",
          { class: "position-lost", id: "review-lost" },
          `Value lost ${lossText(d.value_lost, d)}`,
          typeof d.stderr === "number" ? ` ± ${formatValue(d.stderr)} (standard error)` : "",
          interval ? `; interval ${formatValue(Number(interval[0]))} to ${formatValue(Number(interval[1]))}` : "",
        ),
  );
}

// Draws decision `d`'s position in the table area and marks it in the timeline and the lists.
async function selectDecision(host, review, d) {
  if (!d) return;
  for (const el of host.box.querySelectorAll("[data-index]")) {
    el.classList.toggle("selected", Number(el.dataset.index) === d.index);
  }
  const mine = ++host.positionRequest;
  document.body.dataset.position = "loading";
  host.table.replaceChildren(h("p", { class: "note" }, `Loading the position before move ${d.n}…`));
  let view;
  try {
    if (!d.infoset) d.infoset = (await api.getReviewDecision(host.reviewId, host.match.token, d.index)).infoset;
    view = await viewOf(host, d.infoset);
  } catch (err) {
    if (mine !== host.positionRequest) return;
    host.table.replaceChildren(
      h("p", { class: "error", id: "review-position-error" }, `Cannot draw this position: ${err.code || "error"}: ${err.message}`),
      h("button", { type: "button", onclick: () => backToEnd(host) }, "back to the end"),
    );
    document.body.dataset.position = "error";
    return;
  }
  if (mine !== host.positionRequest) return;
  const ctx = host.context(d.infoset, view);
  host.table.replaceChildren(positionBanner(host, review, d, view, ctx), host.renderer.renderTable(view, ctx));
  host.markStep(d.step);
  document.body.dataset.position = String(d.index);
  // On a phone the table is above the review: bring the position into sight.
  if (window.matchMedia("(max-width: 900px)").matches) host.table.scrollIntoView({ block: "start" });
}

function backToEnd(host) {
  host.positionRequest += 1;
  for (const el of host.box.querySelectorAll(".selected")) el.classList.remove("selected");
  host.drawFinal();
  host.markStep(null);
  delete document.body.dataset.position;
}
