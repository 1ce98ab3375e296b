// Gallery Rush: the deck's composition, the Keep, the discard pile and every Collection.
import {
  act,
  card,
  cardCounts,
  cardList,
  facts,
  h,
  section,
  seatLabel,
  seatRows,
  table,
  total,
} from "../widgets.js";

const GOALS =
  "Goals: 7 cards in a Collection, or 4 of one painter (the Mona Lisa counts as any one). " +
  "The game ends when the round in which someone qualifies is over.";

export function renderTable(view, ctx) {
  const maxTurns = ctx.params.max_turns;
  const qualified = new Set(view.qualified || []);
  const winners = new Set(view.winners || []);
  const mover = view.current_player;
  return h(
    "div",
    { class: "game gallery-rush" },
    facts([
      ["Phase", view.phase],
      ["Turns played", maxTurns ? `${view.turns_played} / ${maxTurns}` : view.turns_played],
      ["Start player", seatLabel(ctx, view.start_player)],
    ]),
    h(
      "div",
      { class: "row" },
      section(`Deck: ${view.deck_size} cards face down`, cardCounts(view.deck, { empty: "empty" })),
      section(
        mover === null ? "Keep" : mover === ctx.me ? "Your Keep" : `Keep of ${seatLabel(ctx, mover)}`,
        cardList(view.keep, { empty: "empty" }),
      ),
    ),
    section("Discard pile (face up)", cardCounts(view.discard, { empty: "empty" })),
    section(
      "Collections",
      table(
        ["Seat", "Collection", "Cards", ""],
        seatRows(ctx, (s) => [
          cardCounts(view.collections[s], { empty: "empty" }),
          String(total(view.collections[s])),
          [
            qualified.has(s) ? h("span", { class: "tag good" }, "qualified") : null,
            winners.has(s) ? h("span", { class: "tag win" }, "winner") : null,
          ],
        ]),
      ),
      h("p", { class: "note" }, GOALS),
    ),
  );
}

// What a step led to (the event's `outcomes`), in the order it happened, as short phrases.
function outcomeText(o, event, ctx) {
  const who = seatLabel(ctx, event.seat);
  const cards = (names) => (names && names.length ? h("span", { class: "cards" }, names.map((n) => card(n))) : "nothing");
  switch (o.type) {
    case "keep":
      return ["it goes into the Keep"];
    case "bust":
      return [h("b", {}, "bust"), ": discarded ", cards(o.discarded)];
    case "forgery_penalty":
      return [
        h("b", {}, "forgery"),
        `: ${o.lost} ${o.painter} painting${o.lost === 1 ? "" : "s"} lost from the Collection`,
        o.discarded && o.discarded.length ? [", the Keep discarded: ", cards(o.discarded)] : "",
      ];
    case "mona_lisa":
      return [h("b", {}, "the Mona Lisa"), " joins the Collection", o.banked && o.banked.length ? [" with the Keep: ", cards(o.banked)] : ""];
    case "correct":
      if (o.call === "Mona Lisa") return [h("b", {}, "correct"), " — the Mona Lisa declared wins the game"];
      if (o.call === "forgery") {
        return [
          h("b", {}, "correct"),
          o.steal_from && o.steal_from.length
            ? ` — steals a card from ${o.steal_from.map((v) => seatLabel(ctx, v)).join(", then ")}`
            : " — nobody has a card to steal",
        ];
      }
      return [h("b", {}, "correct"), ` — into the Collection, ${o.bonus_draws ? `${o.bonus_draws} bonus draws` : "no card left for bonus draws"}`];
    case "bonus":
      return [
        o.kept ? "bonus draw: into the Collection" : "bonus draw: a forgery, discarded without penalty",
        o.left ? ` (${o.left} more)` : "",
      ];
    case "discard":
      return ["wrong: discarded"];
    case "bank":
      return ["banked: ", cards(o.cards)];
    case "reshuffle":
      return [h("b", {}, "reshuffle"), `: the discard (${o.cards} card${o.cards === 1 ? "" : "s"}) goes back into the deck`];
    case "qualify":
      return [h("b", {}, `${seatLabel(ctx, o.seat)} ${o.seat === ctx.me ? "qualify" : "qualifies"}`)];
    case "game_over":
      return [h("b", {}, "game over"), ` (${END_TEXT[o.reason] ? END_TEXT[o.reason].split(":")[0].replace(/\.$/, "").toLowerCase() : o.reason})`];
    default:
      return [o.type.replace(/_/g, " ")];
  }
}

function withOutcomes(line, event, ctx) {
  const outcomes = event.outcomes || [];
  const out = [...line];
  outcomes.forEach((o, i) => out.push(i ? "; " : " — ", ...outcomeText(o, event, ctx)));
  out.push(".");
  return out;
}

export function describe(event, ctx) {
  const line = describeStep(event, ctx);
  return line && withOutcomes(line, event, ctx);
}

function describeStep(event, ctx) {
  const s = event.seat;
  switch (event.type) {
    case "start_player":
      return [`${act(ctx, s, "start")} the game`];
    case "explore":
      return [`${act(ctx, s, "explore")}`];
    case "declare":
      return [`${act(ctx, s, "declare")} `, h("b", {}, event.call)];
    case "flip":
      return [`${act(ctx, s, "flip")} `, card(event.card)];
    case "continue":
      return [`${act(ctx, s, "continue")} exploring`];
    case "confirm":
      return [`${act(ctx, s, "confirm")} the Keep into the Collection`];
    case "pass":
      return [`${act(ctx, s, "pass")}: no card is left to flip`];
    case "steal":
      return [`${act(ctx, s, "steal")} `, card(event.card), ` from ${seatLabel(ctx, event.from)}`];
    default:
      return null;
  }
}

const END_TEXT = {
  mona_lisa: "A Mona Lisa declared correctly ended the game.",
  round_over: "The round in which a player qualified is over: the qualified players are ranked by Collection size.",
  turn_cap: "The turn cap was reached: every player is ranked by Collection size.",
};

// The end screen: every Collection, its size, and who qualified.
export function resultColumns(view, ctx) {
  const qualified = new Set(view.qualified || []);
  const last = [...ctx.events].reverse().find((e) => e.outcomes && e.outcomes.some((o) => o.type === "game_over"));
  const over = last ? last.outcomes.find((o) => o.type === "game_over") : null;
  return {
    head: ["Collection", "Cards", "Qualified"],
    cells: (s) => [
      cardCounts(view.collections[s], { empty: "empty" }),
      h("b", {}, String(total(view.collections[s]))),
      qualified.has(s) ? "yes" : "no",
    ],
    summary: over ? END_TEXT[over.reason] || null : null,
  };
}
