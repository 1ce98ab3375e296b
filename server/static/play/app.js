// The play page: choose a game and the bots, then play a hosted match through the public API.
// The page keeps no game logic: it draws the seat's information set (`infoset.view`), offers
// exactly the seat's `legal_actions`, and narrates the public events plus its private ones.
//
// `document.body.dataset.state` tells what the page is doing (setup, busy, your-turn,
// waiting, over, error), which the browser tests wait on.

import * as api from "./api.js";
import { analysisRows, explainOf, flatText, flatValues, intervalText, policyBars, valueWords } from "./hints.js";
import { highlightMove, renderMoves } from "./moves.js";
import { rendererFor } from "./renderers.js";
import { resetReview, reviewOffer } from "./review.js";
import { h, jsonValue, seatLong, seatName } from "./widgets.js";

const MATCH_STORAGE = "atelier.match";
const POLL_MS = 1000;
const MAX_POLLS = 20; // then stop asking and say so

// Short settings for a first game (full rules, fewer turns or cards); the form shows them.
const QUICK = {
  gallery_rush: { players: 2, params: { max_turns: 16 } },
  finger_auction: { players: 2, params: { rounds: 2, cards_per_round: 4 } },
  detective_eye: { players: 2, params: { max_rounds: 2, hand_size: 4 } },
  modern_art: {
    players: 3,
    params: { artists: 3, cards_per_artist: 8, rounds: 2, money: 40, deal: 4, refill: 2 },
  },
};

const state = {
  games: [],
  bots: [],
  defaultBot: null,
  gameBots: null, // [{name, available, reason}] for the chosen game and settings, or null
  levelInfo: {}, // game -> [{level, plays, worse_than_random, text, ...}] or null (not served)
  seatBots: {}, // seat -> the bot chosen for it, kept across player-count changes
  botsRequest: 0, // the latest bots request (older answers are dropped)
  match: null, // {id, token, seat}
  data: null, // the last GET / POST answer
  lastStep: 0, // events before this step were already shown
  pollTimer: null,
  moves: null,
};

const $ = (id) => document.getElementById(id);

// replaceChildren without the absent parts (the DOM would print a null as "null").
function setChildren(el, ...children) {
  el.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false));
}

function setState(name) {
  document.body.dataset.state = name;
}

function showError(err) {
  const box = $("error");
  box.hidden = !err;
  box.textContent = err ? (err.code ? `${err.code}: ${err.message}` : String(err.message || err)) : "";
}

function showWarning(text) {
  const box = $("warning");
  box.hidden = !text;
  box.textContent = text || "";
}

// --- setup ------------------------------------------------------------------------------------

function gameSpec(name) {
  return state.games.find((g) => g.name === name);
}

function paramInput(spec, value, choices) {
  const id = `param-${spec.name}`;
  let input;
  if (spec.enum) {
    // A renderer may explain each choice in words (Modern Art's rulesets); the value sent stays.
    const described = choices && choices[spec.name];
    input = h(
      "select",
      { id, name: spec.name, dataset: { param: spec.name } },
      spec.enum.map((v) => h("option", { value: v, selected: v === value }, described && described[v] ? described[v].label : v)),
    );
    if (described) {
      const note = h("span", { class: "param-note", id: `${id}-note` });
      const refresh = () => (note.textContent = (described[input.value] || {}).text || "");
      input.addEventListener("change", refresh);
      refresh();
      return h("label", { class: "param wide", title: spec.doc }, h("span", {}, spec.name.replace(/_/g, " ")), input, note);
    }
  } else if (spec.type === "integer" || spec.type === "number") {
    input = h("input", {
      id,
      name: spec.name,
      type: "number",
      step: spec.type === "integer" ? 1 : "any",
      min: spec.minimum,
      max: spec.maximum,
      value,
      dataset: { param: spec.name },
    });
  } else if (spec.type === "boolean") {
    input = h("input", { id, name: spec.name, type: "checkbox", checked: !!value, dataset: { param: spec.name } });
  } else {
    input = h("input", { id, name: spec.name, type: "text", value, dataset: { param: spec.name } });
  }
  return h("label", { class: "param", title: spec.doc }, h("span", {}, spec.name.replace(/_/g, " ")), input);
}

// A number whose stand-in value means "as the rules say" (Modern Art's deal -1): a "standard"
// box, checked for the stand-in, with the rule in words; unchecked, the number is typed. The
// input keeps `data-param` and sends the stand-in while the box is checked (readParams).
function standardInput(spec, value, special) {
  const label = paramInput(spec, value === special.value ? "" : value);
  const input = label.querySelector("input");
  input.dataset.standard = String(special.value);
  const box = h("input", { type: "checkbox", id: `param-${spec.name}-standard`, checked: value === special.value });
  const note = h("span", { class: "param-note", id: `param-${spec.name}-note` }, special.text);
  const refresh = () => {
    input.disabled = box.checked;
    note.hidden = !box.checked;
    input.placeholder = box.checked ? special.label : "";
    if (box.checked) input.value = "";
  };
  box.addEventListener("change", refresh);
  refresh();
  label.classList.add("wide");
  label.append(h("span", { class: "standard" }, box, ` ${special.label}`), note);
  return label;
}

function renderParams(game, overrides = {}) {
  const box = $("params");
  box.replaceChildren();
  const renderer = rendererFor(game.name);
  const choices = renderer.paramChoices;
  const defaults = renderer.paramDefaults || {};
  for (const spec of game.params) {
    if (spec.name === "players") continue;
    const value = spec.name in overrides ? overrides[spec.name] : spec.default;
    box.appendChild(spec.name in defaults ? standardInput(spec, value, defaults[spec.name]) : paramInput(spec, value, choices));
  }
}

// The bots on offer: those the service says can play this game and setting (when it answers
// the games/{game}/bots endpoint), else every bot. An unavailable bot stays listed, disabled, with
// the reason, so a person sees why it is missing.
function offeredBots() {
  if (!state.gameBots) return state.bots.map((b) => ({ name: b.name, available: true, description: b.description }));
  const described = new Map(state.bots.map((b) => [b.name, b.description]));
  return state.gameBots.map((b) => ({ ...b, description: described.get(b.name) }));
}

function isAvailable(name) {
  return offeredBots().some((b) => b.name === name && b.available);
}

// A bot that can give hints: the preferred one if it can, else the default, else the first that
// can. The `level` presets are opponents of a chosen strength, not advisers: never a hint bot.
function usableBot(preferred) {
  if (preferred && preferred !== LEVEL && isAvailable(preferred)) return preferred;
  if (isAvailable(state.defaultBot)) return state.defaultBot;
  const first = offeredBots().find((b) => b.available && b.name !== LEVEL);
  return first ? first.name : preferred;
}

// --- opponents: levels or bots ---
// A seat's choice is a bot name ("ismcts") or a level ("level:4", the `level` bot's preset);
// levels are offered when the service lists a `level` bot that can play the setting.
const LEVEL = "level";
const DEFAULT_LEVEL = 4;

// The levels on offer, from the `level` option of the `level` bot in the bots' catalog (1-8 if the
// catalog does not say), or [] when the service has no such bot or it cannot play this setting.
function levels() {
  if (!isAvailable(LEVEL)) return [];
  const bot = state.bots.find((b) => b.name === LEVEL);
  const option = ((bot && bot.options) || []).find((o) => o.name === LEVEL) || {};
  const lo = Number.isInteger(option.minimum) ? option.minimum : 1;
  const hi = Number.isInteger(option.maximum) ? option.maximum : 8;
  return Array.from({ length: Math.max(0, hi - lo + 1) }, (_, i) => lo + i);
}

const levelOf = (choice) => (typeof choice === "string" && choice.startsWith(`${LEVEL}:`) ? Number(choice.slice(LEVEL.length + 1)) : null);

// A seat's choice that can play: the preferred one if it can, else level 4 (the middle of the
// ladder), else the hint default and the first bot that can.
function usableSeatChoice(preferred) {
  const ladder = levels();
  const level = levelOf(preferred);
  if (level !== null ? ladder.includes(level) : preferred && preferred !== LEVEL && isAvailable(preferred)) return preferred;
  if (ladder.length) return `${LEVEL}:${ladder.includes(DEFAULT_LEVEL) ? DEFAULT_LEVEL : ladder[Math.floor(ladder.length / 2)]}`;
  return usableBot(preferred);
}

// The seat spec sent to create the match for a seat's choice.
function seatSpec(choice) {
  const level = levelOf(choice);
  return level !== null ? { name: LEVEL, options: { level } } : choice;
}

function botOption(b, selected) {
  return h(
    "option",
    {
      value: b.name,
      selected: b.name === selected,
      disabled: !b.available,
      title: b.available ? b.description : `not available: ${b.reason || "cannot play this setting"}`,
    },
    b.available ? b.name : `${b.name} (unavailable)`,
  );
}

// The hint bots: every bot but the level presets.
function botOptions(selected) {
  return offeredBots()
    .filter((b) => b.name !== LEVEL)
    .map((b) => botOption(b, selected));
}

// What the service says of a level in this game ({plays, worse_than_random, text, ...}), if
// anything (api.js: listLevels).
function levelInfo(n) {
  const info = state.levelInfo[$("game").value];
  return (info || []).find((x) => x.level === n) || null;
}

// A level's name in the list: "Level 1 (weakest, worse than random)", "Level 5 (random play)".
function levelName(n, ladder) {
  const info = levelInfo(n) || {};
  const tags = [];
  if (n === ladder[0]) tags.push("weakest");
  if (n === ladder[ladder.length - 1]) tags.push("strongest");
  if (info.worse_than_random) tags.push("worse than random");
  if (info.random_play) tags.push("random play");
  return `Level ${n}${tags.length ? ` (${tags.join(", ")})` : ""}`;
}

// An opponent's choices: "Level 1 (weakest)" .. "Level 8 (strongest)", then the bots by name.
function seatOptions(selected) {
  const ladder = levels();
  const bots = botOptions(selected);
  if (!ladder.length) return bots;
  const about = (state.bots.find((b) => b.name === LEVEL) || {}).description || "";
  const title = (n) => (levelInfo(n) || {}).text || `the level bot at level ${n}${about ? `: ${about}` : ""}`;
  return [
    h(
      "optgroup",
      { label: "Levels" },
      ladder.map((n) => h("option", { value: `${LEVEL}:${n}`, selected: `${LEVEL}:${n}` === selected, title: title(n) }, levelName(n, ladder))),
    ),
    h("optgroup", { label: "Bots" }, bots),
  ];
}

// Under a seat's list: the chosen level in words (how it plays, its measured rating), so the
// choice is described where it is made, on a phone too (a title shows only on hover).
function levelNote(select, note) {
  const level = levelOf(select.value);
  const info = level !== null ? levelInfo(level) : null;
  note.hidden = !info;
  note.textContent = info ? info.text : "";
  note.classList.toggle("worse", !!(info && info.worse_than_random));
}

function renderSeats() {
  const n = Number($("players").value);
  if (!Number.isInteger(n) || n < 1) return;
  const mine = Math.min(Number($("my-seat").value || 0), n - 1);
  const seatSelect = $("my-seat");
  seatSelect.replaceChildren(...Array.from({ length: n }, (_, s) => h("option", { value: s, selected: s === mine }, seatName(s).toLowerCase())));
  const box = $("seat-bots");
  box.replaceChildren();
  for (let s = 0; s < n; s++) {
    if (s === mine) {
      box.appendChild(h("div", { class: "seat-line" }, h("span", {}, seatName(s)), h("b", {}, "you")));
      continue;
    }
    const chosen = usableSeatChoice(state.seatBots[s]);
    const select = h("select", { dataset: { seat: String(s) }, "aria-label": `bot of ${seatName(s).toLowerCase()}` }, seatOptions(chosen));
    const note = h("span", { class: "param-note level-note", dataset: { levelNote: String(s) } });
    // A choice is remembered per seat, so changing the player count or your seat keeps it.
    select.addEventListener("change", () => {
      state.seatBots[s] = select.value;
      levelNote(select, note);
    });
    levelNote(select, note);
    box.appendChild(h("label", { class: "seat-line" }, h("span", {}, seatName(s)), select, note));
  }
  renderBotsNote();
}

// Under the seats: which bots cannot play this setting, and why.
function renderBotsNote() {
  const off = offeredBots().filter((b) => !b.available);
  const note = $("bots-note");
  note.hidden = !off.length;
  note.replaceChildren(
    h("div", {}, "Not offered for this setting:"),
    ...off.map((b) => h("div", { dataset: { bot: b.name } }, h("b", {}, b.name), `: ${b.reason || "cannot play this setting"}`)),
  );
}

// Asks the service which bots can play the chosen game and setting; refreshes the dropdowns.
async function refreshBots() {
  const request = ++state.botsRequest;
  document.body.dataset.bots = "loading"; // the browser tests wait for "ready"
  const game = $("game").value;
  let params;
  try {
    params = readParams();
  } catch (err) {
    return;
  }
  if (!(game in state.levelInfo)) state.levelInfo[game] = await api.listLevels(game);
  let list;
  try {
    list = await api.listGameBots(game, params);
  } catch (err) {
    // Settings the service refuses: keep the last list; starting the game names the problem.
    if (request === state.botsRequest) document.body.dataset.bots = "ready";
    return;
  }
  if (request !== state.botsRequest) return; // a newer request is on its way
  state.gameBots = list;
  renderSeats();
  const hintBot = $("hint-bot");
  hintBot.replaceChildren(...botOptions(usableBot(hintBot.value || state.defaultBot)));
  document.body.dataset.bots = "ready";
}

let botsTimer = null;
function refreshBotsSoon() {
  document.body.dataset.bots = "loading";
  clearTimeout(botsTimer);
  botsTimer = setTimeout(refreshBots, 250);
}

function onGameChange(overrides) {
  const game = gameSpec($("game").value);
  const players = $("players");
  const pspec = game.params.find((p) => p.name === "players");
  players.min = game.min_players;
  players.max = game.max_players;
  players.value = overrides && overrides.players ? overrides.players : pspec ? pspec.default : game.min_players;
  renderParams(game, (overrides && overrides.params) || {});
  renderSeats();
  $("rules-link").href = rulesHref(game.name);
  $("quick").disabled = !(game.name in QUICK);
  refreshBots();
}

// The rules as a page (rendered from the same Markdown as the API's rules endpoint).
const rulesHref = (game) => `/play/rules/${encodeURIComponent(game)}`;

function readParams() {
  const params = { players: Number($("players").value) };
  for (const el of $("params").querySelectorAll("[data-param]")) {
    const spec = gameSpec($("game").value).params.find((p) => p.name === el.dataset.param);
    if (el.disabled && el.dataset.standard !== undefined) params[spec.name] = Number(el.dataset.standard);
    else if (el.type === "checkbox") params[spec.name] = el.checked;
    else if (spec.type === "integer") params[spec.name] = parseInt(el.value, 10);
    else if (spec.type === "number") params[spec.name] = Number(el.value);
    else params[spec.name] = el.value;
  }
  return params;
}

async function startMatch(ev) {
  ev.preventDefault();
  const game = $("game").value;
  const params = readParams();
  const me = Number($("my-seat").value);
  const seats = [];
  const bots = [...$("seat-bots").querySelectorAll("select")];
  for (let s = 0; s < params.players; s++) seats.push(s === me ? "human" : seatSpec(bots.shift().value));
  const body = { game, seats, params, budget: { milliseconds: Number($("bot-ms").value) } };
  const seed = $("seed").value.trim();
  // A seed only takes effect with `reproducible` (the service otherwise draws its own, so that
  // no client can choose a deal): then the same seed gives the same deal and bots.
  if (seed !== "") Object.assign(body, { seed: Number(seed), reproducible: true });
  setState("busy");
  showError(null);
  try {
    const created = await api.createMatch(body);
    const token = created.tokens.find((t) => t.seat === me).token;
    state.match = { id: created.match_id, token, seat: me };
    sessionStorage.setItem(MATCH_STORAGE, JSON.stringify(state.match));
    state.lastStep = 0;
    resetReview($("review"));
    showWarning(created.warning);
    await load();
  } catch (err) {
    showError(err);
    setState("setup");
  }
}

function showSetup() {
  clearTimeout(state.pollTimer);
  resetReview($("review"));
  state.match = null;
  state.data = null;
  sessionStorage.removeItem(MATCH_STORAGE);
  $("setup").hidden = false;
  $("play").hidden = true;
  showWarning(null);
  setState("setup");
}

// --- playing ----------------------------------------------------------------------------------

async function load() {
  clearTimeout(state.pollTimer);
  try {
    const data = await api.getMatch(state.match.id, state.match.token);
    show(data);
  } catch (err) {
    showError(err);
    setState("error");
  }
}

async function play(action) {
  if (document.body.dataset.state !== "your-turn") return;
  setState("busy");
  showError(null);
  $("moves").querySelectorAll("button, input").forEach((el) => (el.disabled = true));
  $("turn").textContent = `You play ${action.string}; the bots answer…`;
  try {
    const data = await api.playAction(state.match.id, state.match.token, action.struct);
    showWarning(data.warning);
    show(data);
  } catch (err) {
    showError(err);
    await load(); // the move was refused and nothing changed: show the state as it is
  }
}

// The hint bots for this match's game and setting (the ones that can play it).
async function refreshHintBots(data) {
  state.hintBotsFor = data.match_id;
  let list = null;
  try {
    list = await api.listGameBots(data.game, data.params);
  } catch (err) {
    list = null;
  }
  state.gameBots = list;
  const hintBot = $("hint-bot");
  hintBot.replaceChildren(...botOptions(usableBot(hintBot.value || state.defaultBot)));
}

function context(data) {
  const view = data.infoset.view;
  return {
    me: data.seat,
    players: data.seats.length,
    seats: data.seats,
    params: data.params,
    events: data.infoset.events,
    toMove: view.current_player,
    findAction: (pred) => {
      const found = (view.legal_actions || []).find((a) => pred(a.struct));
      return found || null;
    },
    play,
  };
}

function show(data) {
  state.data = data;
  const game = gameSpec(data.game);
  const renderer = rendererFor(data.game);
  const ctx = context(data);
  const view = data.infoset.view;
  $("setup").hidden = true;
  $("play").hidden = false;
  $("play-title").textContent = game ? game.long_name : data.game;
  $("play-rules").href = rulesHref(data.game);
  $("match-id").textContent = data.match_id.slice(0, 8);
  $("seats").replaceChildren(
    ...data.seats.map((s) =>
      h("li", { class: s.seat === data.seat ? "me" : "", dataset: { seat: String(s.seat) } }, seatLong(ctx, s.seat)),
    ),
  );
  $("table").replaceChildren(renderer.renderTable(view, ctx));
  if (state.hintBotsFor !== data.match_id) refreshHintBots(data);
  renderLog(data, renderer, ctx);
  $("hint-panel").hidden = true;
  $("hint-result").replaceChildren();

  const yourTurn = data.status === "waiting" && data.current_player === data.seat;
  document.body.dataset.game = data.game;
  document.body.dataset.step = String(data.step);
  if (data.status !== "bots_to_move") {
    state.polls = 0;
    if (!data.warning) showWarning(null); // the bots caught up: the old warning is moot
  }
  if (data.terminal) {
    $("turn").textContent = "Game over.";
    $("moves").replaceChildren();
    $("hint").disabled = true;
    $("hint-bar").hidden = true;
    showResult(data, ctx, renderer);
    setState("over");
  } else if (yourTurn) {
    $("turn").textContent = "Your turn.";
    $("hint-bar").hidden = false;
    state.moves = renderMoves(data.infoset.view.legal_actions, play, {
      label: (a) => renderer.moveLabel(a, ctx),
      fieldLabel: (field, value) => renderer.fieldLabel(field, value, ctx),
    });
    $("moves").replaceChildren(state.moves);
    $("hint").disabled = false;
    $("result").hidden = true;
    setState("your-turn");
  } else {
    // The bots could not finish in time (or a restart interrupted them): they resume on the
    // next request, so ask again shortly.
    state.polls = (state.polls || 0) + 1;
    $("turn").textContent =
      state.polls > MAX_POLLS
        ? "The bots still cannot move. Reload to try again, or start a new game."
        : "The bots are still to move…";
    $("moves").replaceChildren();
    $("hint").disabled = true;
    setState("waiting");
    if (state.polls <= MAX_POLLS) state.pollTimer = setTimeout(load, POLL_MS * Math.min(state.polls, 5));
  }
}

// The log: one line per public event, the seat's private entries under the event they belong
// to. A run of events the renderer calls collapsible (Modern Art's card-by-card deal) is one
// line, with the seat's private parts of the run on one line under it.
function renderLog(data, renderer, ctx) {
  const privateAt = new Map();
  for (const entry of data.infoset.private) {
    if (!privateAt.has(entry.at)) privateAt.set(entry.at, []);
    privateAt.get(entry.at).push(entry);
  }
  const events = data.infoset.events;
  const items = [];
  let step = 0;
  while (step < events.length) {
    const event = events[step];
    let last = step;
    if (renderer.collapsible.has(event.type)) {
      while (last + 1 < events.length && events[last + 1].type === event.type) last += 1;
    }
    const fresh = last >= state.lastStep;
    const mine = step === last && event.seat === data.seat;
    const group = events.slice(step, last + 1);
    items.push(
      h(
        "li",
        {
          class: ["event", fresh ? "new" : "", mine ? "mine" : ""].join(" "),
          dataset: { step: String(step), last: String(last), type: event.type },
        },
        h("span", { class: "step" }, step === last ? String(step) : `${step}–${last}`),
        h("span", { class: "text" }, step === last ? renderer.describe(event, ctx) : renderer.describeRun(group, ctx)),
      ),
    );
    const secrets = [];
    for (let s = step; s <= last; s++) secrets.push(...(privateAt.get(s) || []));
    const lines = step === last ? secrets.map((e) => [e]) : secrets.length ? [secrets] : [];
    for (const line of lines) {
      items.push(
        h(
          "li",
          { class: ["private", fresh ? "new" : ""].join(" ") },
          h("span", { class: "step", title: "only you saw this" }, "you"),
          h("span", { class: "text" }, line.length === 1 ? renderer.describePrivate(line[0], ctx) : renderer.describePrivateRun(line, ctx)),
        ),
      );
    }
    step = last + 1;
  }
  const log = $("log");
  log.replaceChildren(...items);
  log.scrollTop = log.scrollHeight;
  state.lastStep = events.length;
}

// A return as a short figure: at most three decimals, no trailing zeros (-0.333, 1, 4.5).
function roundedReturn(r) {
  return String(Math.round(Number(r) * 1000) / 1000);
}

// The end screen: the game's own result (its renderer's columns: money and points, points per
// painter, collections, hands and forgeries), the winners from the view (else the best
// return), and OpenSpiel's return only as a last, rounded column.
function showResult(data, ctx, renderer) {
  const view = data.infoset.view;
  const returns = data.returns || view.returns || [];
  const best = Math.max(...returns);
  const worst = Math.min(...returns);
  const winners = Array.isArray(view.winners)
    ? view.winners
    : returns.map((r, s) => (r === best && best !== worst ? s : -1)).filter((s) => s >= 0);
  let headline;
  if (best === worst || winners.length === returns.length) headline = "A draw.";
  else if (winners.includes(data.seat)) headline = winners.length > 1 ? "You share the win!" : "You win!";
  else headline = `${winners.map((s) => seatLong(ctx, s)).join(" and ")} ${winners.length > 1 ? "win" : "wins"}.`;
  const columns = renderer.resultColumns(view, ctx) || { head: [], cells: () => [] };
  $("result").hidden = false;
  setChildren(
    $("result"),
    h("h2", {}, headline),
    columns.summary ? h("p", { class: "result-summary" }, columns.summary) : null,
    h(
      "table",
      { class: "grid result-table" },
      h(
        "thead",
        {},
        h("tr", {}, h("th", {}, "Seat"), columns.head.map((c) => h("th", {}, c)), h("th", { class: "return", title: "the OpenSpiel return of the seat" }, "return")),
      ),
      h(
        "tbody",
        {},
        returns.map((r, s) =>
          h(
            "tr",
            { class: [s === data.seat ? "me" : "", winners.includes(s) ? "winner" : ""].join(" "), dataset: { seat: String(s) } },
            h("td", {}, seatLong(ctx, s)),
            columns.cells(s).map((c) => h("td", {}, c)),
            h("td", { class: "return", dataset: { return: String(r) } }, roundedReturn(r)),
          ),
        ),
      ),
    ),
    reviewOffer(reviewHost(data, ctx, renderer)),
  );
}

// What the review (review.js) needs of the page: the match, where to draw a past position and
// how, and the log to mark the move under review in.
function reviewHost(data, ctx, renderer) {
  return {
    match: state.match,
    game: data.game,
    box: $("review"),
    table: $("table"),
    renderer,
    positionRequest: 0,
    // A past position is only looked at: nothing on its table is clickable.
    context: (infoset, view) => ({ ...ctx, events: infoset.events, toMove: view.current_player, findAction: () => null, play: () => {} }),
    drawFinal: () => $("table").replaceChildren(renderer.renderTable(data.infoset.view, ctx)),
    markStep: markLogStep,
  };
}

// Marks the log line of step `step` (null: none) and scrolls the log to it.
function markLogStep(step) {
  const log = $("log");
  let target = null;
  for (const li of log.querySelectorAll("li.event")) {
    const hit = step !== null && Number(li.dataset.step) <= step && step <= Number(li.dataset.last);
    li.classList.toggle("reviewed", hit);
    if (hit) target = li;
  }
  if (target) log.scrollTop = Math.max(0, target.offsetTop - log.clientHeight / 2);
}

// --- hints ------------------------------------------------------------------------------------

async function askHint() {
  if (document.body.dataset.state !== "your-turn") return;
  const button = $("hint");
  button.disabled = true;
  $("hint-panel").hidden = false;
  $("hint-result").replaceChildren(h("p", { class: "note" }, "Thinking…"));
  document.body.dataset.hint = "busy";
  try {
    const hint = await api.getHint(state.match.id, state.match.token, {
      bot: $("hint-bot").value,
      milliseconds: $("hint-ms").value,
    });
    showHint(hint);
    document.body.dataset.hint = "ready";
  } catch (err) {
    $("hint-result").replaceChildren(h("p", { class: "error" }, `${err.code || "error"}: ${err.message}`));
    document.body.dataset.hint = "error";
  } finally {
    button.disabled = document.body.dataset.state !== "your-turn";
  }
}

function showHint(hint) {
  const legal = new Map((state.data.infoset?.view?.legal_actions || []).map((a) => [a.id, a]));
  const bars = policyBars(hint);
  const shown = bars.rows.slice(0, 12);
  const renderer = rendererFor(state.data.game);
  const ctx = context(state.data);
  const label = (a) => renderer.moveLabel(a, ctx) || a.string;
  const barRows = shown.map(({ entry: p, share }) =>
    h(
      "div",
      {
        class: ["bar-row", p.id === hint.action.id ? "chosen" : ""].join(" "),
        dataset: { actionId: String(p.id), share: String(share) },
        title: bars.kind === "visits" ? `the bot's policy: ${((p.probability || 0) * 100).toFixed(1)}%` : null,
      },
      h("span", { class: "bar-label", title: p.string }, label(p)),
      h("span", { class: "bar" }, h("span", { class: "bar-fill", style: { width: `${Math.max(0, Math.min(1, share)) * 100}%` } })),
      h("span", { class: "bar-value" }, `${(share * 100).toFixed(1)}%`),
      h("span", { class: "bar-extra" }, bars.kind === "visits" ? `${p.visits} visits` : ""),
    ),
  );
  const stats = hint.stats || {};
  const action = legal.get(hint.action.id);
  const hasValue = hint.value !== null && hint.value !== undefined;
  const searched = Number(stats.iterations) > 0;
  const flat = flatValues(hint);
  const explain = explainOf(hint);
  const words = hasValue ? valueWords(explain) : null;
  const table = analysisRows(hint);
  const tableRows = table
    ? table.rows.map((r) =>
        h(
          "tr",
          { class: r.id === hint.action.id ? "chosen" : "", dataset: { actionId: String(r.id) } },
          // The renderer's label reads the move's struct: the legal action's (the table lists ids
          // and strings only); its string otherwise.
          h("td", { title: r.string }, legal.has(r.id) ? label(legal.get(r.id)) : r.string),
          h("td", { class: "num" }, intervalText(r)),
          h("td", { class: "num" }, String(r.visits)),
          h("td", {}, r.id === hint.action.id ? "suggested" : r.noise ? "within noise" : "worse"),
        ),
      )
    : null;
  setChildren(
    $("hint-result"),
    h(
      "div",
      { class: "hint-head" },
      "Suggested: ",
      h("b", { id: "hint-action" }, label(hint.action)),
      action ? h("button", { class: "move primary", type: "button", id: "hint-play", onclick: () => play(action) }, "Play it") : null,
    ),
    words ? h("p", { class: "value-words", id: "hint-value-text" }, words) : null,
    explain && explain.text.length
      ? h("ul", { class: "explain", id: "hint-explain" }, explain.text.map((line) => h("li", {}, line)))
      : null,
    h(
      "div",
      { class: "facts" },
      hasValue
        ? h("span", { class: "fact" }, h("b", {}, "Value estimate"), " ", h("span", { id: "hint-value" }, Number(hint.value).toFixed(3)))
        : h("span", { class: "fact", id: "hint-no-value" }, h("b", {}, "Value estimate"), " none: this bot does not estimate one"),
      h("span", { class: "fact" }, h("b", {}, "Bot"), " ", hint.bot ? hint.bot.name : "?"),
      searched
        ? h("span", { class: "fact", id: "hint-search" }, h("b", {}, "Search"), " ", `${stats.iterations} iterations, ${stats.elapsed_ms !== undefined ? Math.round(stats.elapsed_ms) : "?"} ms`)
        : h("span", { class: "fact", id: "hint-search" }, h("b", {}, "Search"), stats.stopped_by === "single_action" ? " none: only one legal move" : " none: the move comes straight from the bot's policy"),
    ),
    flat ? h("p", { class: "note flat", id: "hint-flat" }, flatText(flat, renderer, ctx)) : null,
    table
      ? h(
          "table",
          { class: "analysis", id: "hint-analysis" },
          h("caption", {}, "Each candidate's value with its 95% interval, from the same search"),
          h("tr", {}, h("th", {}, "Move"), h("th", {}, "Value (interval)"), h("th", {}, "Visits"), h("th", {}, "")),
          tableRows,
        )
      : null,
    h("p", { class: "note", id: "hint-bars-caption" }, bars.caption),
    h("div", { class: "policy", id: "hint-policy", dataset: { kind: bars.kind } }, barRows),
    bars.rows.length > shown.length ? h("p", { class: "note" }, `…and ${bars.rows.length - shown.length} more actions with less weight.`) : null,
    explain && explain.figures && Object.keys(explain.figures).length
      ? h("details", { class: "figures", id: "hint-figures" }, h("summary", {}, "The figures behind it"), jsonValue(explain.figures))
      : null,
  );
  if (state.moves) highlightMove(state.moves, hint.action);
}

// --- start ------------------------------------------------------------------------------------

async function init() {
  setState("busy");
  $("setup-form").addEventListener("submit", startMatch);
  $("game").addEventListener("change", () => onGameChange());
  $("players").addEventListener("change", () => {
    renderSeats();
    refreshBotsSoon();
  });
  $("my-seat").addEventListener("change", renderSeats);
  $("params").addEventListener("change", refreshBotsSoon);
  $("quick").addEventListener("click", () => onGameChange(QUICK[$("game").value]));
  $("new-game").addEventListener("click", showSetup);
  $("hint").addEventListener("click", askHint);
  $("api-key").value = api.apiKey();
  $("api-key").addEventListener("change", (ev) => api.setApiKey(ev.target.value.trim()));
  try {
    const [gamesList, bots] = await Promise.all([api.listGames(), api.listBots()]);
    state.games = gamesList;
    state.bots = bots.bots;
    state.defaultBot = bots.default;
  } catch (err) {
    showError(err);
    setState("error");
    return;
  }
  $("game").replaceChildren(...state.games.map((g) => h("option", { value: g.name }, g.long_name)));
  $("hint-bot").replaceChildren(...botOptions(state.defaultBot));
  onGameChange();
  const saved = sessionStorage.getItem(MATCH_STORAGE);
  if (saved) {
    state.match = JSON.parse(saved);
    await load();
    if (document.body.dataset.state === "error") showSetup();
  } else {
    showSetup();
  }
}

init();
