// Finger Auction: the cards on the table, what is left in the deck, every collection and
// score, and the auction in progress (who has bid, the no-repeat rule, your own sealed bid).
import { act, agree, card, cardCounts, facts, h, section, seatLabel, seatRows, table } from "../widgets.js";

function bidText(bid) {
  if (!bid) return "";
  if (bid.take !== undefined) return `take ${bid.take}, block ${bid.block}`;
  return `${bid.bid} finger${bid.bid === 1 ? "" : "s"}`;
}

export function renderTable(view, ctx) {
  const inRound = new Set(view.in_round || []);
  const haveBid = new Set(view.have_bid || []);
  const winners = new Set(view.winners || []);
  const noRepeat = view.no_repeat || {};
  const monaAs = view.mona_lisa_as || {};
  const status = (s) => {
    if (view.phase === "over") return winners.has(s) ? h("span", { class: "tag win" }, "winner") : "";
    if (view.picker === s) return h("span", { class: "tag good" }, `won: picks ${view.picks_left} more`);
    if (!inRound.has(s)) return h("span", { class: "tag" }, "out of this round");
    const tags = [];
    if (view.phase === "bid") tags.push(h("span", { class: "tag" }, haveBid.has(s) ? "has bid" : "to bid"));
    if (noRepeat[String(s)]) tags.push(h("span", { class: "tag warn" }, `may not take ${noRepeat[String(s)]}`));
    return tags;
  };
  return h(
    "div",
    { class: "game finger-auction" },
    facts([
      ["Round", `${view.round} / ${view.rounds}`],
      ["Phase", view.phase],
      ["Auction", view.auction ? view.auction.replace("_", " ") : null],
      ["Void auctions in a row", view.voids_in_a_row || null],
      ["Your sealed bid", view.your_bid ? bidText(view.your_bid) : null],
    ]),
    h(
      "div",
      { class: "row" },
      section("On the table", cardCounts(view.table, { empty: "empty" })),
      section("Left in the deck", cardCounts(view.deck_left, { empty: "empty" })),
    ),
    section(
      "Players",
      table(
        ["Seat", "Collection", "Score", "Status"],
        seatRows(ctx, (s) => [
          [
            cardCounts(view.collections[s], { empty: "empty" }),
            monaAs[String(s)] ? h("span", { class: "note" }, ` Mona Lisa as ${monaAs[String(s)]}`) : null,
          ],
          String(view.scores[s]),
          status(s),
        ]),
      ),
    ),
  );
}

export function describe(event, ctx) {
  const s = event.seat;
  switch (event.type) {
    case "reveal":
      return [`Round ${event.round}, card ${event.slot} revealed: `, card(event.card), "."];
    case "bid": {
      const out = [`${act(ctx, s, "bid")} (sealed).`];
      if (event.revealed) {
        const shown = event.revealed.map((b) => `${seatLabel(ctx, b.seat)}: ${bidText(b)}`).join("; ");
        out.push(h("br"), `Bids revealed: ${shown}. `);
        if (event.outcome === "won") {
          out.push(h("b", {}, `${seatLabel(ctx, event.winner)} won`), ` and ${agree(ctx, event.winner, "take")} ${event.takes}.`);
        } else if (event.outcome === "tie_break") {
          out.push(h("b", {}, "Void again"), `: a draw decides among ${event.tied.map((t) => seatLabel(ctx, t)).join(" and ")}.`);
        } else {
          out.push(h("b", {}, event.outcome === "void" ? "Void auction" : event.outcome), ": everyone bids again.");
        }
      }
      return [...out, ...takings(event, ctx, event.winner)];
    }
    case "tie_break":
      return [
        h("b", {}, `Tie-break: ${seatLabel(ctx, event.winner)} won`),
        ` and ${agree(ctx, event.winner, "take")} ${event.takes}.`,
        ...takings(event, ctx, event.winner),
      ];
    case "pick":
      return [`${act(ctx, s, "pick")} `, card(event.card), ".", ...takings(event, ctx, s)];
    default:
      return null;
  }
}

// The cards a step handed out without a pick: the rest of a take, and the leftover.
function takings(event, ctx, taker) {
  const out = [];
  if (event.auto_picked) {
    out.push(h("br"), `${seatLabel(ctx, taker)} ${taker === ctx.me ? "take" : "takes"} `, cardCounts(event.auto_picked), " (no choice left).");
  }
  if (event.leftover) {
    const s = event.leftover.seat;
    out.push(h("br"), `${seatLabel(ctx, s)}, last in the round, ${s === ctx.me ? "take" : "takes"} the rest: `, cardCounts(event.leftover.cards), ".");
  }
  return out;
}

// The seat's own sealed bid (a private entry).
export function describePrivate(entry) {
  if (entry.take !== undefined || entry.bid !== undefined) return `Your sealed bid: ${bidText(entry)}.`;
  return null;
}

const PAINTERS = ["Monet", "van Gogh", "Vermeer"];

// The end screen: each painter's points, the score, the cards held (the tie-break).
export function resultColumns(view) {
  const byPainter = view.points_by_painter || [];
  const monaAs = view.mona_lisa_as || {};
  return {
    head: [...PAINTERS, "Score", "Cards held"],
    cells: (s) => [
      ...PAINTERS.map((p) => {
        const pts = String((byPainter[s] || {})[p] ?? "");
        return monaAs[String(s)] === p ? [pts, h("span", { class: "note" }, " (with the Mona Lisa)")] : pts;
      }),
      h("b", {}, String(view.scores[s])),
      String(Object.values(view.collections[s] || {}).reduce((a, b) => a + b, 0)),
    ],
    summary: "Highest score wins; a tie goes to the player holding fewer cards.",
  };
}
