// The service's public API, as the play page uses it. Nothing here knows about the page:
// every function is a plain HTTP call that returns the parsed JSON answer or throws an
// ApiError carrying the service's {code, message, detail}.

const API_KEY_STORAGE = "atelier.apiKey";

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.code = (body && body.code) || "http_error";
    this.detail = body ? body.detail : null;
  }
}

// Only needed when the service runs with `api_keys`; kept for the browser session.
export function apiKey() {
  return sessionStorage.getItem(API_KEY_STORAGE) || "";
}

export function setApiKey(key) {
  if (key) sessionStorage.setItem(API_KEY_STORAGE, key);
  else sessionStorage.removeItem(API_KEY_STORAGE);
}

async function call(method, path, { body, token, query } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["X-Seat-Token"] = token;
  if (apiKey()) headers["X-API-Key"] = apiKey();
  let url = path;
  if (query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
    }
    if ([...q].length) url += "?" + q.toString();
  }
  const response = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// GET /v1/games: every game with its parameter specs.
export const listGames = () => call("GET", "/v1/games").then((d) => d.games);

// GET /v1/bots: every bot with its options, and the default hint bot.
export const listBots = () => call("GET", "/v1/bots");

// POST /v1/matches: {game, seats: ["human" | bot spec], params, budget, seed}.
export const createMatch = (spec) => call("POST", "/v1/matches", { body: spec });

// GET /v1/matches/{id} with the seat token: the seat's information set and legal actions.
export const getMatch = (id, token) => call("GET", `/v1/matches/${id}`, { token });

// POST /v1/matches/{id}/actions: plays an action (a struct or an id); the bots then move.
export const playAction = (id, token, action) =>
  call("POST", `/v1/matches/${id}/actions`, { token, body: { action } });

// GET /v1/matches/{id}/hint: the suggested move, the policy and the value for the seat.
export const getHint = (id, token, { bot, milliseconds } = {}) =>
  call("GET", `/v1/matches/${id}/hint`, { token, query: { bot, milliseconds } });

// GET /v1/games/{game}/bots?params=<json>: which bots can play this game with these parameters,
// [{name, available, reason}]. A service without the endpoint (404) answers null: the caller
// then offers every bot of GET /v1/bots, as before.
export const listGameBots = (game, params) =>
  call("GET", `/v1/games/${game}/bots`, { query: { params: JSON.stringify(params) } })
    .then((d) => (Array.isArray(d) ? d : d.bots))
    .catch((err) => {
      if (err instanceof ApiError && err.status === 404 && err.code !== "unknown_game") return null;
      throw err;
    });

// GET /v1/games/{game}/levels: the `level` bot's levels in this game, each with how it plays,
// its measured rating, `worse_than_random` and `text` (sentences for the form). A service
// without the endpoint, or any failure, answers null: the form then names the levels only.
export const listLevels = (game) =>
  call("GET", `/v1/games/${game}/levels`)
    .then((d) => (d && Array.isArray(d.levels) ? d.levels : null))
    .catch(() => null);

// GET /v1/matches/{id}/review with the seat token: starts the review of the seat's decisions
// once the match is over (409 before) and answers the job, {id, status, progress, review |
// error}; the same review is answered again to the same seat.
export const requestReview = (id, token) => call("GET", `/v1/matches/${id}/review`, { token });

// GET /v1/reviews/{id}: the review job as it stands (same shape), polled until done or failed.
export const getReview = (id, token) => call("GET", `/v1/reviews/${id}`, { token });

// GET /v1/reviews/{id}/decisions/{n}: decision n with the seat's information set before it
// (a review's decisions name their step only, so the review stays linear in the game's length).
export const getReviewDecision = (id, token, n) => call("GET", `/v1/reviews/${id}/decisions/${n}`, { token });

// POST /v1/games/{game}/validate: an information set's view (its table and legal moves), which
// the review draws for a past decision when the decision's infoset carries no view of its own.
export const validateInfoset = (game, infoset) => {
  const { view, ...bare } = infoset; // the service builds the view; sending one is pointless
  return call("POST", `/v1/games/${game}/validate`, { body: { infoset: bare } });
};
