// The legal moves of the seat to play, as controls. Only the seat's `legal_actions` are ever
// offered: a button per action, rows of buttons for two-field actions, and for long runs of
// whole amounts (Modern Art bids and prices) an amount input with quick-pick buttons whose
// Play button is enabled only when the typed amount is one of the legal ones.
import { h } from "./widgets.js";

const AMOUNT_THRESHOLD = 12; // more legal amounts than this: an input instead of buttons
const GRID_THRESHOLD = 8;

const title = (s) => s.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());

function groupByType(actions) {
  const groups = new Map();
  for (const a of actions) {
    const type = a.struct.type || "action";
    if (!groups.has(type)) groups.set(type, []);
    groups.get(type).push(a);
  }
  return groups;
}

function fieldsOf(actions) {
  const keys = new Set();
  for (const a of actions) for (const k of Object.keys(a.struct)) if (k !== "type") keys.add(k);
  return [...keys];
}

const named = (field, value) =>
  typeof value === "number" ? `${field.replace(/_/g, " ")} ${value}` : String(value);

// How actions and their fields read: the renderer's words when it has them (`labels.label`,
// `labels.fieldLabel`), else the service's `string` and "field value".
function labeller(labels = {}) {
  return {
    move: (a) => (labels.label && labels.label(a)) || a.string,
    field: (field, value) => (labels.fieldLabel && labels.fieldLabel(field, value)) || named(field, value),
  };
}

function moveButton(action, onPlay, label, title) {
  return h(
    "button",
    {
      class: "move",
      type: "button",
      dataset: { actionId: String(action.id), type: action.struct.type || "" },
      title: title || label || action.string,
      onclick: () => onPlay(action),
    },
    label || action.string,
  );
}

// The amount widget: input + quick picks + one Play button.
function amountControl(type, field, actions, onPlay) {
  const byAmount = new Map(actions.map((a) => [a.struct[field], a]));
  const amounts = [...byAmount.keys()].sort((x, y) => x - y);
  const lo = amounts[0];
  const hi = amounts[amounts.length - 1];
  const input = h("input", {
    type: "number",
    class: "amount-input",
    min: lo,
    max: hi,
    step: 1,
    value: lo,
    "aria-label": `${title(type)} amount (${lo} to ${hi})`,
    dataset: { type },
  });
  const play = h("button", { class: "move primary", type: "button", dataset: { type, amount: "true" } }, "");
  const status = h("span", { class: "amount-status" });
  const current = () => {
    const text = String(input.value).trim();
    if (!/^-?\d+$/.test(text)) return null;
    return byAmount.get(Number(text)) || null;
  };
  const refresh = () => {
    const action = current();
    play.disabled = !action;
    play.textContent = action ? action.string : `${title(type)} …`;
    play.dataset.actionId = action ? String(action.id) : "";
    status.textContent = action ? "" : `choose a whole amount from ${lo} to ${hi}`;
  };
  input.addEventListener("input", refresh);
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && current()) onPlay(current());
  });
  play.addEventListener("click", () => {
    const action = current();
    if (action) onPlay(action);
  });
  // Quick picks: the extremes and a few amounts in between, all of them legal.
  const picks = new Set([lo, hi]);
  for (const q of [0.1, 0.25, 0.5, 0.75]) picks.add(amounts[Math.round(q * (amounts.length - 1))]);
  const quick = [...picks].sort((x, y) => x - y).map((v) =>
    h(
      "button",
      {
        class: "quick",
        type: "button",
        dataset: { amount: String(v) },
        title: `set the amount to ${v}`,
        onclick: () => {
          input.value = String(v);
          refresh();
        },
      },
      String(v),
    ),
  );
  refresh();
  const box = h(
    "div",
    { class: "amount", dataset: { type } },
    h("div", { class: "amount-row" }, input, play),
    h("div", { class: "quick-row" }, "Quick: ", quick),
    status,
  );
  box.setAmount = (v) => {
    input.value = String(v);
    refresh();
  };
  return box;
}

// Two-field actions (take x block, painter x quantity) as a grid: one row per value of the
// first field, one column per value of the second ("take 2: [block 1] [block 2] ..."). The
// columns share the panel's width (and labels wrap), so a wide grid never sticks out of it.
function gridControl(fields, actions, onPlay, label) {
  const [first, second] = fields;
  const rows = new Map();
  const columns = [];
  for (const a of actions) {
    const key = a.struct[first] === undefined ? "" : a.struct[first];
    if (!rows.has(key)) rows.set(key, new Map());
    const col = a.struct[second];
    if (!columns.includes(col)) columns.push(col);
    rows.get(key).set(col, a);
  }
  const grid = h(
    "div",
    { class: "move-grid", style: { gridTemplateColumns: `max-content repeat(${columns.length}, minmax(0, 1fr))` } },
    [...rows.entries()].map(([key, row]) => [
      h("span", { class: "row-label" }, label.field(first, key)),
      columns.map((col) => {
        const a = row.get(col);
        if (!a) return h("span", { class: "grid-gap" });
        return moveButton(a, onPlay, col === undefined ? label.move(a) : label.field(second, col), label.move(a));
      }),
    ]),
  );
  return grid;
}

// The whole panel for a list of legal actions; `labels` (optional) words them for people.
export function renderMoves(actions, onPlay, labels) {
  const label = labeller(labels);
  const box = h("div", { class: "moves" });
  box.amountControls = {};
  for (const [type, group] of groupByType(actions)) {
    const fields = fieldsOf(group);
    let control;
    const numeric = fields.length === 1 && group.every((a) => Number.isInteger(a.struct[fields[0]]));
    if (numeric && group.length > AMOUNT_THRESHOLD) {
      control = amountControl(type, fields[0], group, onPlay);
      box.amountControls[type] = { control, field: fields[0] };
    } else if (fields.length === 2 && group.length > GRID_THRESHOLD) {
      control = gridControl(fields, group, onPlay, label);
    } else {
      control = h("div", { class: "move-row" }, group.map((a) => moveButton(a, onPlay, label.move(a))));
    }
    box.appendChild(h("div", { class: "move-group" }, h("h4", {}, title(type)), control));
  }
  return box;
}

// Marks the suggested action among the controls (for an amount, fills it in).
export function highlightMove(box, action) {
  for (const el of box.querySelectorAll(".suggested")) el.classList.remove("suggested");
  const amount = box.amountControls && box.amountControls[action.struct.type];
  if (amount) {
    amount.control.setAmount(action.struct[amount.field]);
    amount.control.classList.add("suggested");
    return;
  }
  const button = box.querySelector(`button.move[data-action-id="${action.id}"]`);
  if (button) button.classList.add("suggested");
}
