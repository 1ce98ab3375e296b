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

