// The play page: choose a game and the bots, then play a hosted match through the public API.
// The page keeps no game logic: it draws the seat's information set (`infoset.view`), offers
// exactly the seat's `legal_actions`, and narrates the public events plus its private ones.
//
// `document.body.dataset.state` tells what the page is doing (setup, busy, your-turn,
// waiting, over, error), which the browser tests wait on.

import * as api from "./api.js";
import { highlightMove, renderMoves } from "./moves.js";
import { rendererFor } from "./renderers.js";
import { h, seatLong } from "./widgets.js";

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
  match: null, // {id, token, seat}
  data: null, // the last GET / POST answer
  lastStep: 0, // events before this step were already shown
  pollTimer: null,
  moves: null,
};

const $ = (id) => document.getElementById(id);

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

function paramInput(spec, value) {
  const id = `param-${spec.name}`;
  let input;
  if (spec.enum) {
    input = h(
      "select",
      { id, name: spec.name, dataset: { param: spec.name } },
      spec.enum.map((v) => h("option", { value: v, selected: v === value }, v)),
    );
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

function renderParams(game, overrides = {}) {
  const box = $("params");
  box.replaceChildren();
  for (const spec of game.params) {
    if (spec.name === "players") continue;
    const value = spec.name in overrides ? overrides[spec.name] : spec.default;
    box.appendChild(paramInput(spec, value));
  }
}

function botOptions(selected) {
  return state.bots.map((b) => h("option", { value: b.name, selected: b.name === selected, title: b.description }, b.name));
}

function renderSeats() {
  const n = Number($("players").value);
  const mine = Math.min(Number($("my-seat").value || 0), n - 1);
  const seatSelect = $("my-seat");
  seatSelect.replaceChildren(...Array.from({ length: n }, (_, s) => h("option", { value: s, selected: s === mine }, `seat ${s}`)));
  const box = $("seat-bots");
  const previous = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  for (let s = 0; s < n; s++) {
    if (s === mine) {
      box.appendChild(h("div", { class: "seat-line" }, h("span", {}, `Seat ${s}`), h("b", {}, "you")));
      continue;
    }
    const chosen = previous.shift() || state.defaultBot;
    box.appendChild(
      h(
        "label",
        { class: "seat-line" },
        h("span", {}, `Seat ${s}`),
        h("select", { dataset: { seat: String(s) }, "aria-label": `bot of seat ${s}` }, botOptions(chosen)),
      ),
    );
  }
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
  $("rules-link").href = game.links.rules;
  $("quick").disabled = !(game.name in QUICK);
}

function readParams() {
  const params = { players: Number($("players").value) };
  for (const el of $("params").querySelectorAll("[data-param]")) {
    const spec = gameSpec($("game").value).params.find((p) => p.name === el.dataset.param);
    if (el.type === "checkbox") params[spec.name] = el.checked;
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
  for (let s = 0; s < params.players; s++) seats.push(s === me ? "human" : bots.shift().value);
  const body = { game, seats, params, budget: { milliseconds: Number($("bot-ms").value) } };
  const seed = $("seed").value.trim();
  if (seed !== "") body.seed = Number(seed);
  setState("busy");
  showError(null);
  try {
    const created = await api.createMatch(body);
    const token = created.tokens.find((t) => t.seat === me).token;
    state.match = { id: created.match_id, token, seat: me };
    sessionStorage.setItem(MATCH_STORAGE, JSON.stringify(state.match));
    state.lastStep = 0;
    showWarning(created.warning);
    await load();
  } catch (err) {
    showError(err);
    setState("setup");
  }
}

function showSetup() {
  clearTimeout(state.pollTimer);
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
  $("match-id").textContent = data.match_id.slice(0, 8);
  $("seats").replaceChildren(
    ...data.seats.map((s) =>
      h("li", { class: s.seat === data.seat ? "me" : "", dataset: { seat: String(s.seat) } }, seatLong(ctx, s.seat)),
    ),
  );
  $("table").replaceChildren(renderer.renderTable(view, ctx));
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
    showResult(data, ctx);
    setState("over");
  } else if (yourTurn) {
    $("turn").textContent = "Your turn.";
    $("hint-bar").hidden = false;
    state.moves = renderMoves(data.legal_actions, play);
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

function showResult(data, ctx) {
  const returns = data.returns || data.infoset.view.returns || [];
  const best = Math.max(...returns);
  const worst = Math.min(...returns);
  const winners = returns.map((r, s) => (r === best && best !== worst ? s : -1)).filter((s) => s >= 0);
  let headline;
  if (best === worst) headline = "A draw.";
  else if (winners.includes(data.seat)) headline = winners.length > 1 ? "You share the win!" : "You win!";
  else headline = `${winners.map((s) => seatLong(ctx, s)).join(" and ")} ${winners.length > 1 ? "win" : "wins"}.`;
  $("result").hidden = false;
  $("result").replaceChildren(
    h("h2", {}, headline),
    h(
      "table",
      { class: "grid" },
      h("thead", {}, h("tr", {}, h("th", {}, "Seat"), h("th", {}, "Return"))),
      h(
        "tbody",
        {},
        returns.map((r, s) =>
          h("tr", { class: [s === data.seat ? "me" : "", winners.includes(s) ? "winner" : ""].join(" ") }, h("td", {}, seatLong(ctx, s)), h("td", {}, String(r))),
        ),
      ),
    ),
  );
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
  const legal = new Map((state.data.legal_actions || []).map((a) => [a.id, a]));
  const policy = [...hint.policy].sort((a, b) => (b.probability || 0) - (a.probability || 0));
  const shown = policy.slice(0, 12);
  const bars = shown.map((p) =>
    h(
      "div",
      { class: ["bar-row", p.id === hint.action.id ? "chosen" : ""].join(" "), dataset: { actionId: String(p.id) } },
      h("span", { class: "bar-label", title: p.string }, p.string),
      h(
        "span",
        { class: "bar" },
        h("span", { class: "bar-fill", style: { width: `${Math.max(0, Math.min(1, p.probability || 0)) * 100}%` } }),
      ),
      h("span", { class: "bar-value" }, `${((p.probability || 0) * 100).toFixed(1)}%`),
      h("span", { class: "bar-extra" }, p.visits !== undefined ? `${p.visits} visits` : ""),
    ),
  );
  const stats = hint.stats || {};
  const action = legal.get(hint.action.id);
  $("hint-result").replaceChildren(
    h(
      "div",
      { class: "hint-head" },
      "Suggested: ",
      h("b", { id: "hint-action" }, hint.action.string),
      action ? h("button", { class: "move primary", type: "button", id: "hint-play", onclick: () => play(action) }, "Play it") : null,
    ),
    h(
      "div",
      { class: "facts" },
      h("span", { class: "fact" }, h("b", {}, "Value estimate"), " ", h("span", { id: "hint-value" }, Number(hint.value).toFixed(3))),
      h("span", { class: "fact" }, h("b", {}, "Bot"), " ", hint.bot ? hint.bot.name : "?"),
      h("span", { class: "fact" }, h("b", {}, "Search"), " ", `${stats.iterations ?? "?"} iterations, ${stats.elapsed_ms !== undefined ? Math.round(stats.elapsed_ms) : "?"} ms`),
    ),
    h("div", { class: "policy", id: "hint-policy" }, bars),
  );
  if (policy.length > shown.length) {
    $("hint-result").appendChild(h("p", { class: "note" }, `…and ${policy.length - shown.length} more actions with less weight.`));
  }
  if (state.moves) highlightMove(state.moves, hint.action);
}

// --- start ------------------------------------------------------------------------------------

async function init() {
  setState("busy");
  $("setup-form").addEventListener("submit", startMatch);
  $("game").addEventListener("change", () => onGameChange());
  $("players").addEventListener("change", renderSeats);
  $("my-seat").addEventListener("change", renderSeats);
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
