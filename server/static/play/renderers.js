// Which renderer draws which game. A game without an entry here still plays: the generic
// renderer shows every field of its view as a table and every event as "who type field=value".
import * as detectiveEye from "./games/detective_eye.js";
import * as fingerAuction from "./games/finger_auction.js";
import * as galleryRush from "./games/gallery_rush.js";
import * as modernArt from "./games/modern_art.js";
import { genericTable, h, jsonValue, seatLabel } from "./widgets.js";

const RENDERERS = {
  detective_eye: detectiveEye,
  finger_auction: fingerAuction,
  gallery_rush: galleryRush,
  modern_art: modernArt,
};

const generic = {
  renderTable: (view) => h("div", { class: "game generic" }, genericTable(view)),
  describe: (event, ctx) => {
    const rest = Object.entries(event)
      .filter(([k]) => k !== "type" && k !== "seat")
      .map(([k, v]) => [` ${k.replace(/_/g, " ")}: `, typeof v === "object" ? JSON.stringify(v) : String(v)]);
    const who = event.seat !== undefined ? `${seatLabel(ctx, event.seat)} — ` : "";
    return [who, h("b", { class: "generic-type" }, event.type.replace(/_/g, " ")), ...rest];
  },
  describePrivate: (entry) => {
    const { at, ...rest } = entry;
    return ["(private) ", jsonValue(rest)];
  },
};

// A game without result columns: every per-seat list of numbers in its final view.
function genericResult(view) {
  const n = (view.returns || []).length;
  const fields = Object.entries(view).filter(
    ([k, v]) => k !== "returns" && Array.isArray(v) && v.length === n && v.every((x) => typeof x === "number"),
  );
  return {
    head: fields.map(([k]) => k.replace(/_/g, " ")),
    cells: (s) => fields.map(([, v]) => String(v[s])),
  };
}

export function rendererFor(game) {
  const own = RENDERERS[game] || {};
  return {
    custom: game in RENDERERS,
    // Event types whose consecutive runs the log shows as one line.
    collapsible: own.collapsible || new Set(),
    describeRun: (events, ctx) => own.describeRun(events, ctx),
    describePrivateRun: (entries, ctx) =>
      own.describePrivateRun
        ? own.describePrivateRun(entries, ctx)
        : entries.map((e) => [(own.describePrivate && own.describePrivate(e, ctx)) || generic.describePrivate(e, ctx), " "]),
    renderTable: (view, ctx) => {
      try {
        return (own.renderTable || generic.renderTable)(view, ctx);
      } catch (err) {
        // A view this renderer does not understand (a newer game version): show it plainly.
        console.error(err);
        return generic.renderTable(view, ctx);
      }
    },
    describe: (event, ctx) => (own.describe && own.describe(event, ctx)) || generic.describe(event, ctx),
    // How a legal action or one field of it reads on a button (null: the service's string).
    moveLabel: (action, ctx) => (own.moveLabel && own.moveLabel(action, ctx)) || null,
    fieldLabel: (field, value, ctx) => (own.fieldLabel && own.fieldLabel(field, value, ctx)) || null,
    // The end screen's columns in the game's own units: {head: [...], cells: (seat) => [...]}.
    resultColumns: (view, ctx) => (own.resultColumns ? own.resultColumns(view, ctx) : genericResult(view)),
    // Words for the choices of enumerated parameters: {param: {value: {label, text}}}.
    paramChoices: own.paramChoices || null,
    // Parameters whose stand-in value means "as the rules say": {param: {value, label, text}}.
    paramDefaults: own.paramDefaults || null,
    // Why a hint can be flat in this game (shown when every move scores the same), or null.
    flatHint: (ctx) => (own.flatHint ? own.flatHint(ctx) : null),
    describePrivate: (entry, ctx) =>
      (own.describePrivate && own.describePrivate(entry, ctx)) || generic.describePrivate(entry, ctx),
  };
}
