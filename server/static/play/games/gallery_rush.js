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

export function describe(event, ctx) {
  const s = event.seat;
  switch (event.type) {
    case "start_player":
      return [`${act(ctx, s, "start")} the game.`];
    case "explore":
      return [`${act(ctx, s, "explore")}.`];
    case "declare":
      return [`${act(ctx, s, "declare")} `, h("b", {}, event.call), "."];
    case "flip":
      return [`${act(ctx, s, "flip")} `, card(event.card), "."];
    case "continue":
      return [`${act(ctx, s, "continue")} exploring.`];
    case "confirm":
      return [`${act(ctx, s, "confirm")} the Keep into the Collection.`];
    case "steal":
      return [`${act(ctx, s, "steal")} `, card(event.card), ` from ${seatLabel(ctx, event.from)}.`];
    default:
      return null;
  }
}
