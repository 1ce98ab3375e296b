// Small DOM helpers shared by the renderers and the app: element building, cards, counts,
// seat labels, and the generic view table used for games without a renderer of their own.

// h("div", {class: "x", onclick: f}, child, "text", [more children]) -> HTMLElement
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "style" && typeof value === "object") {
      Object.assign(el.style, value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

// A stable CSS class for a card or artist name ("van Gogh forgery" -> "c-van-gogh-forgery").
export function cardClass(name) {
  return "c-" + String(name).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

// One card face; `label` defaults to the name, `count` > 1 adds a "×n" badge.
export function card(name, { label, count, extra, title } = {}) {
  return h(
    "span",
    { class: `card ${cardClass(name)} ${extra || ""}`.trim(), title: title || name },
    h("span", { class: "card-name" }, label || name),
    count > 1 ? h("span", { class: "card-count" }, `×${count}`) : null,
  );
}

// A face-down card (hidden information).
export function cardBack(label = "?", title = "face down") {
  return h("span", { class: "card card-back", title }, label);
}

// {name: count} -> a row of cards (or a dash when empty).
export function cardCounts(counts, opts = {}) {
  const entries = Object.entries(counts || {}).filter(([, n]) => n > 0);
  if (!entries.length) return h("span", { class: "empty" }, opts.empty || "none");
  return h("span", { class: "cards" }, entries.map(([name, n]) => card(name, { count: n })));
}

// A list of card names -> a row of cards.
export function cardList(names, opts = {}) {
  if (!names || !names.length) return h("span", { class: "empty" }, opts.empty || "none");
  return h("span", { class: "cards" }, names.map((name) => card(name)));
}

export function total(counts) {
  return Object.values(counts || {}).reduce((a, b) => a + (Number(b) || 0), 0);
}

// A titled box on the table.
export function section(title, ...children) {
  return h("section", { class: "box" }, h("h3", {}, title), ...children);
}

// A compact table: head = [labels], rows = [[cells]]; cells may be nodes.
export function table(head, rows, attrs = {}) {
  return h(
    "table",
    { class: `grid ${attrs.class || ""}`.trim() },
    head ? h("thead", {}, h("tr", {}, head.map((c) => h("th", {}, c)))) : null,
    h(
      "tbody",
      {},
      rows.map((row) =>
        h(
          "tr",
          row.attrs || {},
          (row.cells || row).map((c) => h("td", {}, c)),
        ),
      ),
    ),
  );
}

// Key facts as "label: value" chips.
export function facts(pairs) {
  return h(
    "div",
    { class: "facts" },
    pairs
      .filter(([, v]) => v !== undefined && v !== null && v !== "")
      .map(([k, v]) => h("span", { class: "fact" }, h("b", {}, k), " ", v)),
  );
}

// Any JSON value as readable nodes: the generic fallback for fields no renderer knows.
export function jsonValue(value) {
  if (value === null || value === undefined) return h("span", { class: "empty" }, "—");
  if (Array.isArray(value)) {
    if (!value.length) return h("span", { class: "empty" }, "[]");
    if (value.every((v) => typeof v !== "object" || v === null)) return value.join(", ");
    return h(
      "ol",
      { class: "json-list", start: 0 },
      value.map((v) => h("li", {}, jsonValue(v))),
    );
  }
  if (typeof value === "object") {
    const entries = Object.entries(value);
    if (!entries.length) return h("span", { class: "empty" }, "{}");
    return h(
      "dl",
      { class: "json-map" },
      entries.map(([k, v]) => [h("dt", {}, k), h("dd", {}, jsonValue(v))]),
    );
  }
  return String(value);
}

// Fields every game's view carries that the app shows elsewhere (turn, moves, result).
export const VIEW_META = new Set(["legal_actions", "terminal", "current_player", "returns"]);

// The generic renderer: every field of the view in a readable two-column table.
export function genericTable(view, skip = new Set()) {
  const rows = Object.entries(view)
    .filter(([k]) => !VIEW_META.has(k) && !skip.has(k))
    .map(([k, v]) => [h("span", { class: "field" }, k.replace(/_/g, " ")), jsonValue(v)]);
  return table(null, rows, { class: "generic" });
}

// A seat as people count: "Seat 1" for the API's seat 0 (the API and the data attributes keep
// 0-based seats; only what a person reads counts from 1, as Detective Eye's cards do).
export function seatName(seat) {
  return `Seat ${Number(seat) + 1}`;
}

// A seat's label: "You" for the player's own seat.
export function seatLabel(ctx, seat) {
  if (seat === null || seat === undefined) return "—";
  if (seat === "bank") return "the bank";
  return seat === ctx.me ? "You" : seatName(seat);
}

// A bot spec in a few words: its name, or "level 4" for the `level` bot's presets.
export function botName(bot) {
  if (!bot) return "?";
  if (bot.name === "level" && bot.options && bot.options.level !== undefined) return `level ${bot.options.level}`;
  return bot.name;
}

// A seat's label with its bot ("Seat 2 (ismcts)", "Seat 1 (level 4)"), for headers and the
// result table.
export function seatLong(ctx, seat) {
  if (seat === ctx.me) return `You (${seatName(seat).toLowerCase()})`;
  const spec = ctx.seats[seat];
  const bot = spec && spec.bot ? botName(spec.bot) : spec ? spec.kind : "?";
  return `${seatName(seat)} (${bot})`;
}

// One row per seat: [label, ...cells(seat)], the player's own row marked.
export function seatRows(ctx, cells) {
  const rows = [];
  for (let s = 0; s < ctx.players; s++) {
    const attrs = { class: [s === ctx.me ? "me" : "", s === ctx.toMove ? "to-move" : ""].join(" ") };
    rows.push({ attrs, cells: [seatLong(ctx, s), ...cells(s)] });
  }
  return rows;
}

// "You pass" / "Seat 2 passes": a seat and a verb in agreement, for the log.
export function act(ctx, seat, verb) {
  return `${seatLabel(ctx, seat)} ${agree(ctx, seat, verb)}`;
}

// The verb alone in agreement with the seat: "take" for you, "takes" for another seat (for a
// second verb of the same subject: "You won and take 3").
export function agree(ctx, seat, verb) {
  if (seatLabel(ctx, seat) === "You") return verb;
  const [head, ...rest] = verb.split(" ");
  const third = /(s|sh|ch|x)$/.test(head) ? head + "es" : head + "s";
  return [third, ...rest].join(" ");
}

// "your" / "Seat 2's", for the log.
export function possessive(ctx, seat) {
  return seat === ctx.me ? "your" : `${seatLabel(ctx, seat)}'s`;
}
