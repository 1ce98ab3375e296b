// Detective Eye: your hand, every row of face-down cards (yours face up to you, flipped ones
// face up to all), forgeries and misses, the standing bid and the discard pile.
import {
  act,
  card,
  cardBack,
  cardCounts,
  facts,
  h,
  possessive,
  section,
  seatLabel,
  seatName,
  seatRows,
  table,
} from "../widgets.js";

const END_TEXT = {
  supply_empty: "the forgery supply ran out",
  round_cap: "the round cap was reached",
  one_card: "a player got down to one card or fewer",
};

// One seat's row: hidden cards as backs; a card you may flip now is a button.
function rowCards(view, ctx, seat) {
  const row = view.rows[seat] || [];
  if (!row.length) return h("span", { class: "empty" }, "no cards placed");
  return h(
    "span",
    { class: "cards" },
    row.map((name, position) => {
      const flip = ctx.findAction((a) => a.type === "flip" && a.owner === seat && a.position === position);
      let face;
      if (name === null) face = cardBack(String(position + 1), `${seatName(seat).toLowerCase()}, card ${position + 1}: face down`);
      else if (seat === ctx.me) face = card(name, { extra: "own-face-down", title: `your card ${position + 1}: ${name}` });
      else face = card(name, { title: `${seatName(seat).toLowerCase()}, card ${position + 1}: flipped` });
      if (!flip) return face;
      return h(
        "button",
        {
          class: "card-button",
          type: "button",
          title: `flip ${possessive(ctx, seat)} card ${position + 1}`,
          dataset: { actionId: String(flip.id) },
          onclick: () => ctx.play(flip),
        },
        face,
      );
    }),
  );
}

export function renderTable(view, ctx) {
  const winners = new Set(view.winners || []);
  const passedBidding = new Set(view.passed_bidding || []);
  const bid = view.bid;
  return h(
    "div",
    { class: "game detective-eye" },
    facts([
      ["Round", view.round],
      ["Phase", view.phase.replace(/_/g, " ")],
      ["Start player", seatLabel(ctx, view.start_player)],
      ["Face-down cards", view.face_down],
      ["Forgeries in the supply", view.forgery_supply],
      ["Found so far", view.found],
      ["Discards left", view.discards_left],
      ["Game over", view.end ? END_TEXT[view.end] || view.end : null],
    ]),
    bid
      ? h(
          "div",
          { class: "bid-banner" },
          `Standing bid: ${seatLabel(ctx, bid.seat)} — `,
          h("b", {}, `${bid.quantity} × ${bid.painter}`),
          passedBidding.size ? `  (passed: ${[...passedBidding].map((s) => seatLabel(ctx, s)).join(", ")})` : "",
        )
      : null,
    h(
      "div",
      { class: "row" },
      section("Your hand", cardCounts(view.hand, { empty: "empty" })),
      view.passed || view.received
        ? section(
            "Draft",
            h("div", {}, "You passed: ", cardCounts(view.passed)),
            h("div", {}, "You received: ", cardCounts(view.received, { empty: "not yet" })),
          )
        : null,
    ),
    section(
      "Rows on the table",
      table(
        ["Seat", "Row (face down)", "Hand", "Forgeries", "Misses", ""],
        seatRows(ctx, (s) => [
          rowCards(view, ctx, s),
          String(view.hand_sizes[s]),
          String(view.forgeries_held[s]),
          String(view.misses[s]),
          winners.has(s) ? h("span", { class: "tag win" }, "winner") : "",
        ]),
      ),
    ),
    section("Discard pile", cardCounts(view.discard, { empty: "empty" })),
  );
}

export function describe(event, ctx) {
  const s = event.seat;
  switch (event.type) {
    case "deal":
      return [`${seatLabel(ctx, s)} ${s === ctx.me ? "are" : "is"} dealt ${event.cards} cards.`];
    case "pass_cards":
      return [`${act(ctx, s, "pass")} ${event.cards} card${event.cards === 1 ? "" : "s"} to ${seatLabel(ctx, (s + 1) % ctx.players)}.`];
    case "start_player":
      return [`${act(ctx, s, "start")} the round.`];
    case "place":
      return [`${act(ctx, s, "place")} a card face down (card ${event.position + 1} of the row).`];
    case "declare":
      return [`${act(ctx, s, "declare")} `, h("b", {}, `${event.quantity} × ${event.painter}`), "."];
    case "raise":
      return [`${act(ctx, s, "raise")} to `, h("b", {}, `${event.quantity} × ${event.painter}`), "."];
    case "pass":
      return [`${act(ctx, s, "pass")}.`];
    case "flip":
      return [
        `${act(ctx, s, "flip")} ${rowOwner(ctx, s, event.owner)} card ${event.position + 1}: `,
        card(event.card),
        event.outcome ? [" — ", h("b", {}, event.outcome === "success" ? "challenge succeeds" : "challenge fails")] : "",
        ".",
      ];
    case "discard":
      return [`${act(ctx, s, "discard")} `, card(event.card), "."];
    default:
      return null;
  }
}

// Whose card, seen from the flipper: "your own", "their own", "your", "Seat 2's".
function rowOwner(ctx, flipper, owner) {
  if (owner === flipper) return flipper === ctx.me ? "your own" : "their own";
  return possessive(ctx, owner);
}

// Cards are numbered from 1 for people, everywhere (the API's `position` counts from 0): the
// move buttons, the hint, the log and the table's card faces all say "card 1" for position 0.
export function moveLabel(action, ctx) {
  const a = action.struct;
  if (a.type !== "flip") return null;
  return `flip ${a.owner === ctx.me ? "your own" : `${seatName(a.owner)}'s`} card ${a.position + 1}`;
}

export function fieldLabel(field, value, ctx) {
  if (field === "position") return `card ${value + 1}`;
  if (field === "owner") return value === ctx.me ? "your row" : `${seatName(value)}'s row`;
  return null;
}

// The end screen: hands, forgeries held (the first tie-break), misses; and how it ended.
export function resultColumns(view) {
  return {
    head: ["Cards in hand", "Forgeries held", "Misses"],
    cells: (s) => [h("b", {}, String(view.hand_sizes[s])), String(view.forgeries_held[s]), String(view.misses[s])],
    summary:
      view.end === "one_card"
        ? "A player got down to one card or fewer and won at once."
        : `The game ended (${END_TEXT[view.end] || view.end}): among the players holding the fewest forgeries, those with the fewest cards win.`,
  };
}

export function describePrivate(entry) {
  if (entry.cards) return ["You were dealt ", cardCounts(entry.cards), "."];
  if (entry.passed) return ["You passed ", cardCounts(entry.passed), "."];
  if (entry.received) return ["You received ", cardCounts(entry.received), "."];
  if (entry.card) return ["(your card: ", card(entry.card), ")"];
  return null;
}
