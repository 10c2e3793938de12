// Calls to the server's APIs, and their failures turned into sentences a reader can act on.
import { tabStorage } from './tab-storage.js';

const TOKEN_KEY = 'litserve.accessToken';

/**
 * The server's root as this browser reaches it: this file is `<root>ui/js/api.js`, and `<root>` is `/`, or a path
 * a reverse proxy serves the server under (`https://host/base/`), which the server itself never sees.
 */
const SERVER_ROOT = new URL('../../', import.meta.url);

/**
 * The address of one of the server's paths (`/retrieval/`, `/ui/`, an OpenAPI path), under the root the page was
 * loaded from: every request and every address the pages make goes through here, never straight to `/…`.
 */
export function serverUrl(path) {
  // Relative to the root (`./`), or a path would replace the proxy's prefix, and a first segment with `:` read as a scheme.
  return new URL(`./${path.replace(/^\/+/, '')}`, SERVER_ROOT).href;
}

/** The access token lives in this tab's sessionStorage only: never in the URL, never in localStorage. */
export const accessToken = {
  get: () => tabStorage.getItem(TOKEN_KEY) ?? '',
  set: (value) => (value ? tabStorage.setItem(TOKEN_KEY, value) : tabStorage.removeItem(TOKEN_KEY)),
};

/**
 * Why `value` cannot be an access token ('' when it can). The token goes in the Authorization header, which a
 * browser refuses to send with a character beyond Latin-1: a "€" or a zero-width space pasted with it made every
 * request of the page fail, said as "the server could not be reached". Tokens are visible ASCII, and one holding
 * anything else (a space: "Bearer " pasted along) is refused as a whole, with the character named.
 */
export function tokenProblem(value) {
  const odd = [...value].find((character) => character < '!' || character > '~');
  if (odd === undefined) return '';
  const named = /\s/u.test(odd) ? 'a space' : `the character U+${odd.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  return `This access token holds ${named}, which no token has, so it is not used: paste the token alone (without "Bearer "), as it was given.`;
}

export class ApiError extends Error {
  /** kind: 'notice' for what is no failure (nothing matches), said as a status rather than an alert. */
  constructor(status, message, kind = 'error') {
    super(message);
    this.status = status;
    this.kind = kind;
  }
}

export function authHeaders(extra = {}) {
  const token = accessToken.get();
  return token ? { ...extra, authorization: `Bearer ${token}` } : extra;
}

/** Query string with repeated keys for lists; empty values are left out. */
export function queryString(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null && item !== '') search.append(key, String(item));
    }
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Called when the server refuses the access token on a literature request that then succeeds without it; set by the page. */
let onTokenRefused = () => {};

export function whenTokenRefused(listener) {
  onTokenRefused = listener;
}

/**
 * A request to a literature route (search, count, listing, suggestions, Ask): with the access token, as a server
 * closed to anonymous needs it. A token the server does not know (401) is no reason to show nothing where anonymous
 * may read: the request is made again without it, and the page is told (it says the token was refused and how to
 * clear it). Where anonymous may not read either, the failure says the token is needed and was refused.
 * Requests under /v1 (the archive's) never go without the token: they say it was not accepted.
 */
export async function literatureFetch(url, init) {
  const headers = init.headers ?? {};
  const response = await fetch(url, { ...init, headers: authHeaders(headers) });
  if (response.status !== 401 || !accessToken.get()) return response;
  const anonymous = await fetch(url, { ...init, headers });
  if (anonymous.status === 401 || anonymous.status === 403) {
    throw new ApiError(401, 'The access token was not accepted, and this server needs one to read: correct it in the "Access token" field of the Archive panel.');
  }
  onTokenRefused();
  return anonymous;
}

/**
 * `fieldNames` maps the API's parameters to the names of the page's fields that send them: a failure names the
 * field the reader typed in (`Journals`), not a parameter they never saw (`keywords`).
 */
export async function getJson(path, params = {}, { signal, fieldNames } = {}) {
  const url = serverUrl(path) + queryString(params);
  const init = { headers: { accept: 'application/json' }, signal };
  let response;
  try {
    response = await (path.startsWith('/v1/') ? fetch(url, { ...init, headers: authHeaders(init.headers) }) : literatureFetch(url, init));
  } catch (error) {
    throw error instanceof ApiError ? error : networkError(error);
  }
  if (!response.ok) throw await errorOf(response, fieldNames);
  return readJson(response);
}

/** The JSON body of a successful response; one cut short (or not JSON) is a sentence, not "Unexpected end of JSON input". */
export async function readJson(response) {
  try {
    return await response.json();
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    throw new ApiError(response.status, "The server's answer could not be read (it was cut short or is not JSON). Try again.");
  }
}

export function networkError(error) {
  if (error?.name === 'AbortError') return error;
  return new ApiError(0, 'The server could not be reached: check that it is running and try again.');
}

const retryHint = (response) => {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? ` Try again in ${seconds} second${seconds === 1 ? '' : 's'}.` : ' Try again shortly.';
};

/**
 * A readable ApiError for a failed response, in either API's error vocabulary; never raw JSON. `asking`: the
 * request was Ask's, whose text the reader knows as a question, not a query.
 */
export async function errorOf(response, fieldNames = {}, { asking = false } = {}) {
  let body = null;
  try {
    body = JSON.parse(await response.text());
  } catch (error) {
    // Aborted while the reason was read (a newer view, Stop): no failure to say, and the caller drops it as an abort.
    if (error?.name === 'AbortError') throw error;
    // not JSON: the status alone tells the story
  }
  const nothingFound = response.status === 404 && body?.detail?.code === 1;
  return new ApiError(response.status, describeFailure(response, body, fieldNames, asking ? 'question' : 'query'), nothingFound ? 'notice' : 'error');
}

/** A setting named after a reason, `(--max-query-length)`: the operator's to change, nothing a reader of the page can. */
const SETTING_NAMED = /\s*\(--[a-z-]+\)$/;

function describeFailure(response, body, fieldNames, subject) {
  const { status } = response;
  const detail = body?.detail && typeof body.detail === 'object' ? body.detail : null;
  const parameter = typeof detail?.parameter === 'string' ? detail.parameter : undefined;
  const field = Object.hasOwn(fieldNames, parameter ?? '') ? fieldNames[parameter] : undefined;
  let text = String(detail?.detail ?? body?.reason ?? '').replace(SETTING_NAMED, '');
  // The reason starts with the parameter's name ("keywords is blank"): the field's, like the parenthesis before it.
  if (field && text.startsWith(`${parameter} `)) text = `${field}${text.slice(parameter.length)}`;
  const code = detail?.code;
  // The rate limit's message ends with when to retry, which the hint says from Retry-After: said once.
  if (status === 429) return `Too many requests right now (${text.replace(/;\s*retry in .*$/, '') || 'too many requests'}).${retryHint(response)}`;
  if (status === 503 && code === 3) return `Answers are unavailable: ${text}`;
  if (status === 503) return `The server is overloaded or restarting.${retryHint(response)}`;
  if (status === 401) return 'The access token was not accepted. Check it in the Archive panel.';
  if (status === 403 && !accessToken.get()) return 'This server needs an access token: enter yours in the "Access token" field of the Archive panel.';
  if (status === 403) return `This access token is not allowed to do that${text ? `: ${text}` : '.'}`;
  // The server says why when it knows (a query of stopwords only): more use than "nothing matches".
  if (status === 404 && code === 1 && typeof detail.reason === 'string') return `No article can be found: ${detail.reason.replace(/^the query\b/, `the ${subject}`)}.`;
  if (status === 404 && code === 1) return `No article matches this ${subject} and these filters. Change the ${subject} or loosen the filters.`;
  // The address and headers of a request are over what the server (or a proxy before it) reads.
  if (status === 414 || status === 431) return 'Too long: the request is larger than the server accepts. Shorten the query or remove some filters.';
  if (status === 413) return `Too long: ${text || 'the request is larger than the server accepts.'}`;
  if (status === 422 || status === 400) return `Invalid input${parameter ? ` (${field ?? parameter})` : ''}: ${text || 'the server refused the request.'}`;
  if (text) return `${text} (HTTP ${status})`;
  return `The server answered HTTP ${status}${response.statusText ? ` ${response.statusText}` : ''}.`;
}
