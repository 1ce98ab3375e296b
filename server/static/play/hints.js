// What a hint means, beyond its numbers: whether the search found any difference between the
// moves at all. Kept apart from app.js so it can be checked on its own.

// A search whose every move scored the same: {value} (the common estimate), else null. Then the
// policy only spreads visits evenly and the value says nothing about which move is better.
export function flatValues(hint) {
  const valued = (hint.policy || []).filter((p) => typeof p.value === "number" && (p.visits === undefined || p.visits > 0));
  if (valued.length < 2 || valued.length < (hint.policy || []).length) return null;
  const values = valued.map((p) => p.value);
  const spread = Math.max(...values) - Math.min(...values);
  return spread <= 1e-9 ? { value: values[0] } : null;
}

export function flatText(flat, renderer, ctx) {
  const why = renderer.flatHint ? renderer.flatHint(ctx) : null;
  return (
    `Every move scores the same for the bot here (${Number(flat.value).toFixed(3)} whichever you play), ` +
    "so neither the value nor the bars say which move is better" +
    (why ? `: ${why}` : ".")
  );
}


// The hint's `explain` (figures a player reasons with, sentences about them, and what the value
// measures) in a shape the panel can trust, or null when the service sends none (an older one).
export function explainOf(hint) {
  const e = hint && hint.explain;
  if (!e || typeof e !== "object") return null;
  return {
    text: Array.isArray(e.text) ? e.text.filter((t) => typeof t === "string" && t.trim()) : [],
    value: e.value && typeof e.value === "object" ? e.value : null,
    figures: e.figures && typeof e.figures === "object" ? e.figures : null,
  };
}

// The value estimate in words: the service's sentence, else what it measures and its scale.
export function valueWords(explain) {
  const value = explain && explain.value;
  if (!value) return null;
  if (typeof value.text === "string" && value.text.trim()) return value.text;
  if (!value.measures) return null;
  return `The value is ${value.measures}${value.scale ? ` (${typeof value.scale === "string" ? value.scale : JSON.stringify(value.scale)})` : ""}.`;
}

// The bars of a hint: for a search, each move's share of the search's visits (the root's visits
// of the move over all of them, those the answer leaves out in `policy_omitted` included), which
// is what docs/play.md promises; for a bot without visits (heuristic, CFR, a level's random or
// heuristic move), its policy. The bot's `probability` can differ from the visit share (ISMCTS's
// `final_policy: significant` drops the visits of clearly worse moves), so it stays in the
// row's title. -> {kind: "visits" | "policy", caption, rows: [{entry, share}]} sorted by share.
export function policyBars(hint) {
  const policy = hint.policy || [];
  const visited = policy.length > 0 && policy.every((p) => Number.isFinite(p.visits));
  const total = visited ? policy.reduce((a, p) => a + p.visits, 0) + ((hint.policy_omitted || {}).visits || 0) : 0;
  const kind = visited && total > 0 ? "visits" : "policy";
  const rows = policy.map((entry) => ({ entry, share: kind === "visits" ? entry.visits / total : entry.probability || 0 }));
  rows.sort((a, b) => b.share - a.share);
  const caption =
    kind === "visits"
      ? `Share of the search: each move's visits out of ${total}.`
      : "The bot's policy: how likely it is to play each move.";
  return { kind, total, caption, rows };
}

// The hint's per-move table (`analysis`, docs/api.md "Analysis"): each candidate's value with its
// 95% interval, the suggested move first, or null when the service sends none (a bot without
// per-move values, an older service). -> {rows: [{id, string, value, low, high, visits, noise}]}
export function analysisRows(hint) {
  const a = hint && hint.analysis;
  if (!a || !Array.isArray(a.moves) || !a.moves.length) return null;
  const rows = a.moves
    .filter((m) => Number.isFinite(m.value) && Array.isArray(m.interval) && m.interval.length === 2)
    .map((m) => ({ id: m.id, string: m.string, value: m.value, low: m.interval[0], high: m.interval[1], visits: m.visits, noise: m.within_noise === true }));
  return rows.length ? { rows } : null;
}

// One candidate's value and interval as the panel prints it: "0.412 (0.371 to 0.455)".
export function intervalText(row) {
  return `${row.value.toFixed(3)} (${row.low.toFixed(3)} to ${row.high.toFixed(3)})`;
}
