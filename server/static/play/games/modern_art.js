// Modern Art: the artists' values board (awards per round, cumulative value, cards played this
// round), the auction in progress, every seat's money and paintings, and your hand.
import { act, card, cardClass, facts, h, section, seatLabel, seatRows, table } from "../widgets.js";

const ARTISTS = ["Lite Metal", "Yoko", "Christin P.", "Karl Gitter", "Krypto"];
const TYPES = ["Open", "Once Around", "Sealed", "Fixed", "Double"];
const AWARDS = [30, 20, 10];
const ROUND_END = 5;

// "Karl Gitter Once Around" -> ["Karl Gitter", "Once Around"]
function splitKind(kind) {
  const artist = ARTISTS.find((a) => kind.startsWith(a + " "));
  return artist ? [artist, kind.slice(artist.length + 1)] : [kind, ""];
}

function artCard(artist, type, opts = {}) {
  return h(
    "span",
    { class: `card art ${cardClass(artist)}`, title: `${artist} — ${type}` },
    h("span", { class: "card-name" }, artist),
    h("span", { class: `card-type t-${cardClass(type)}` }, type),
    opts.count > 1 ? h("span", { class: "card-count" }, `×${opts.count}`) : null,
  );
}

function pips(n) {
  return h(
    "span",
    { class: "pips", title: `${n} of ${ROUND_END} played this round` },
    Array.from({ length: ROUND_END }, (_, i) => h("span", { class: i < n ? "pip on" : "pip" })),
  );
}

// The awards each artist won in each scored round, from the public scoring events.
function awardsByRound(events) {
  const out = {};
  for (const e of events) {
    for (const sc of e.scoring || []) {
      sc.ranking.forEach((artist, i) => {
        out[artist] = out[artist] || {};
        out[artist][sc.round] = AWARDS[i];
      });
    }
  }
  return out;
}

function valuesBoard(view, ctx) {
  const artists = ARTISTS.slice(0, ctx.params.artists || ARTISTS.length);
  const rounds = ctx.params.rounds || 4;
  const awards = awardsByRound(ctx.events);
  const head = ["Artist", "This round"];
  for (let r = 1; r <= rounds; r++) head.push(`R${r}`);
  head.push("Value", "You own");
  const rows = artists.map((a) => {
    const cells = [h("span", { class: `swatch ${cardClass(a)}` }, a), pips(view.played_this_round[a] || 0)];
    for (let r = 1; r <= rounds; r++) {
      const v = (awards[a] || {})[r];
      cells.push(v ? h("span", { class: `award a${v}` }, String(v)) : h("span", { class: "empty" }, r < view.round || (r === view.round && view.phase === "over") ? "–" : ""));
    }
    cells.push(h("b", {}, String(view.values[a] || 0)));
    cells.push(String((view.bought[ctx.me] || {})[a] || ""));
    return cells;
  });
  return section("Artists' values", table(head, rows, { class: "board" }));
}

function auctionBox(view, ctx) {
  const a = view.auction;
  if (!a) {
    const seller = view.seller;
    return section("Auction", h("p", {}, seller === null || seller === undefined ? "No auction." : `${act(ctx, seller, "offer")} the next painting.`));
  }
  const lines = [
    h("div", { class: "auction-card" }, artCard(a.artist, a.auction), a.cards > 1 ? h("span", { class: "tag" }, `${a.cards} paintings (Double)`) : null),
    facts([
      ["Auctioneer", seatLabel(ctx, a.auctioneer)],
      ["Offered the Double", a.partner !== undefined ? seatLabel(ctx, a.partner) : null],
      ["High bid", a.high_bid !== undefined ? (a.high_bid ? `${a.high_bid} by ${seatLabel(ctx, a.high_bidder)}` : "none yet") : null],
      ["Passes in a row", a.passes || null],
      ["Fixed price", a.price],
      ["Sealed bids in", a.bid_so_far ? (a.bid_so_far.length ? a.bid_so_far.map((s) => seatLabel(ctx, s)).join(", ") : "none yet") : null],
      ["Your sealed bid", a.my_bid],
    ]),
  ];
  return section(`Auction: ${a.auction}`, ...lines);
}

function handBox(view) {
  const entries = Object.entries(view.hand || {});
  entries.sort(([x], [y]) => {
    const [ax, tx] = splitKind(x);
    const [ay, ty] = splitKind(y);
    return ARTISTS.indexOf(ax) - ARTISTS.indexOf(ay) || TYPES.indexOf(tx) - TYPES.indexOf(ty);
  });
  const cards = entries.map(([kind, n]) => {
    const [artist, type] = splitKind(kind);
    return artCard(artist, type, { count: n });
  });
  return section("Your hand", cards.length ? h("span", { class: "cards" }, cards) : h("span", { class: "empty" }, "empty"));
}

export function renderTable(view, ctx) {
  return h(
    "div",
    { class: "game modern-art" },
    facts([
      ["Round", `${view.round} / ${ctx.params.rounds || 4}`],
      ["Phase", view.phase.replace(/_/g, " ")],
      ["Seller", view.seller !== null ? seatLabel(ctx, view.seller) : null],
      ["Deck", `${view.deck_size} cards`],
    ]),
    h("div", { class: "row" }, valuesBoard(view, ctx), auctionBox(view, ctx)),
    handBox(view),
    section(
      "Players",
      table(
        ["Seat", "Money", "Cards in hand", "Bought this round"],
        seatRows(ctx, (s) => [
          h("b", {}, String(view.money[s])),
          String(view.hand_sizes[s]),
          h(
            "span",
            { class: "cards" },
            Object.entries(view.bought[s] || {}).map(([artist, n]) => card(artist, { count: n, extra: "small" })),
          ),
        ]),
      ),
    ),
  );
}

function saleText(sale, ctx) {
  const paid = sale.payments.length
    ? sale.payments.map((p) => `${seatLabel(ctx, p.from)} → ${seatLabel(ctx, p.to)} ${p.amount}`).join(", ")
    : "nothing paid";
  const n = sale.cards > 1 ? `${sale.cards} paintings` : "the painting";
  return [h("br"), h("b", {}, `${seatLabel(ctx, sale.buyer)} ${sale.buyer === ctx.me ? "buy" : "buys"} ${n} for ${sale.price}`), ` (${paid}).`];
}

function scoringText(sc, ctx) {
  const ranked = sc.ranking.map((a, i) => `${a} +${AWARDS[i]}`).join(", ");
  const paid = sc.payouts.map((p, s) => `${seatLabel(ctx, s)} ${p}`).join(", ");
  return [h("br"), h("b", {}, `Round ${sc.round} ends`), `: ${ranked || "no artist ranked"}. Payouts: ${paid}.`];
}

export function describe(event, ctx) {
  const s = event.seat;
  let out;
  switch (event.type) {
    case "deal":
      out = [`${seatLabel(ctx, s)} ${s === ctx.me ? "draw" : "draws"} a card.`];
      break;
    case "first_seller":
      out = [`${act(ctx, s, "sell")} first.`];
      break;
    case "offer":
      out = [`${act(ctx, s, "offer")} `, artCard(event.artist, event.auction), "."];
      break;
    case "offer_double":
      out = event.partner
        ? [`${act(ctx, s, "offer")} `, artCard(event.artist, "Double"), " with ", artCard(event.artist, event.partner), "."]
        : [`${act(ctx, s, "offer")} `, artCard(event.artist, "Double"), " alone."];
      break;
    case "add":
      out = [`${act(ctx, s, "add")} `, artCard(event.artist, event.auction), " to the Double."];
      break;
    case "bid":
      out = [`${act(ctx, s, "bid")} `, h("b", {}, String(event.amount)), "."];
      break;
    case "pass":
      out = [`${act(ctx, s, "pass")}.`];
      break;
    case "sealed_bid":
      out = [`${act(ctx, s, "place")} a sealed bid.`];
      if (event.bids) out.push(h("br"), `Sealed bids revealed: ${event.bids.map((b, i) => `${seatLabel(ctx, i)} ${b}`).join(", ")}.`);
      break;
    case "price":
      out = [`${act(ctx, s, "set")} the price at `, h("b", {}, String(event.amount)), "."];
      break;
    case "accept":
      out = [`${act(ctx, s, "accept")}.`];
      break;
    case "decline":
      out = [`${act(ctx, s, "decline")}.`];
      break;
    default:
      return null;
  }
  if (event.sale) out.push(...saleText(event.sale, ctx));
  for (const sc of event.scoring || []) out.push(...scoringText(sc, ctx));
  return out;
}

// The deal, card by card, is one line in the log: "Cards dealt: 9 to each seat".
export const collapsible = new Set(["deal"]);

export function describeRun(events, ctx) {
  const per = new Map();
  for (const e of events) per.set(e.seat, (per.get(e.seat) || 0) + 1);
  const counts = new Set(per.values());
  if (counts.size === 1 && per.size === ctx.players) {
    const n = [...counts][0];
    return [`Cards dealt: ${n} to each seat.`];
  }
  return [`Cards dealt: ${[...per].map(([s, n]) => `${seatLabel(ctx, s)} ${n}`).join(", ")}.`];
}

export function describePrivateRun(entries) {
  const cards = entries.filter((e) => e.artist).map((e) => artCard(e.artist, e.auction));
  // No full stop after the row of cards: it wraps, and a lone "." would start the next line.
  return [`You draw ${cards.length} ${cards.length === 1 ? "card" : "cards"}: `, h("span", { class: "cards" }, cards)];
}

export function describePrivate(entry) {
  if (entry.artist) return ["You draw ", artCard(entry.artist, entry.auction), "."];
  if (entry.amount !== undefined) return [`Your sealed bid: ${entry.amount}.`];
  return null;
}

// Words for the setup form: the two rulesets and the two payoffs (the values sent stay).
export const paramChoices = {
  ruleset: {
    seed: {
      label: "Source rule text",
      text:
        "The rules as the source text gives them: 3 players are dealt 11 cards; a painting " +
        "nobody bids on costs its auctioneer 1; a Double's price is split between the two " +
        "auctioneers; tied sealed bids go to the seat nearest after the auctioneer.",
    },
    classic: {
      label: "Published game",
      text:
        "The published game's rules: 3 players are dealt 10 cards; a painting nobody bids on " +
        "goes to its auctioneer for free; a Double's whole price goes to the player who added " +
        "the second card; a tied sealed bid goes to the auctioneer if tied, else the nearest after.",
    },
  },
  payoff: {
    points: {
      label: "Points for places",
      text: "The result is the points table by final money (3 players: 3 to the richest); ties share the places' points.",
    },
    money: { label: "Final money", text: "The result is each player's final money." },
  },
};

// The end screen: final money, and the points (points payoff) with each seat's place.
export function resultColumns(view, ctx) {
  const money = view.money || [];
  const place = (s) => 1 + money.filter((m) => m > money[s]).length;
  const points = ctx.params.payoff !== "money";
  return {
    head: points ? ["Money", "Place", "Points"] : ["Money", "Place"],
    cells: (s) => {
      const cells = [h("b", {}, String(money[s])), String(place(s))];
      if (points) cells.push(String(Math.round(view.returns[s] * 1000) / 1000));
      return cells;
    },
    summary: points
      ? "Ranked by final money; the points table pays the places (tied players share)."
      : "Ranked by final money.",
  };
}

export function flatHint(ctx) {
  if (ctx.params.payoff === "money") return null;
  return "in a points game only the final place counts, and as the bot sees it no move changes yours any more (the money itself earns nothing)";
}

// Parameters whose default is a stand-in value (the API's -1 or 0 for "as the rules say"): the
// form shows a "standard" box with these words instead of the raw number, which it still sends.
export const paramDefaults = {
  deal: { value: -1, label: "standard deal", text: "11 / 9 / 8 cards each for 3 / 4 / 5 players (10 for 3 in the published game)" },
  refill: { value: -1, label: "standard refill", text: "6 / 4 / 3 cards each before rounds 2 and 3 for 3 / 4 / 5 players" },
  cards_per_artist: { value: 0, label: "real deck", text: "12 to 16 cards per artist, 70 in all, with the real auction types" },
};
