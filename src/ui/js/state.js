// What the page shows, as a value that round-trips through the URL (shareable links, back button).
import { serverUrl } from './api.js';

export const LIST_FILTERS = ['article_types', 'authors', 'journals', 'topics', 'regions'];
export const DATE_FILTERS = ['date_from', 'date_to'];
/** The listing API's largest page: a link's larger number asks for that one, past the end like it, instead of an error. */
const LAST_ASKABLE_PAGE = 1_000_000;
/** The page's path as the browser sees it (`/ui/`, or `/base/ui/` behind a proxy serving the server under `/base/`). */
const PAGE_PATH = new URL(serverUrl('/ui/')).pathname;
/**
 * The page number a link asked for, in its own digits, for the states read from links past LAST_ASKABLE_PAGE:
 * such a state asks for that page instead, and a number past 2^53 has no exact value to say it by.
 * Keyed by the state itself, so that a view made from it ({ ...state, page }) is not taken for the link's.
 */
const pagesAskedPastTheLargest = new WeakMap();

/**
 * True for text of white space, invisible and control characters alone (a zero-width space, a soft hyphen, a BOM, NUL): nothing
 * a filter can match, the server says so, and as a chip it would show as nothing.
 */
export function isBlank(text) {
  // As the server reads blank (src/http/blank-text.ts): white space, default-ignorable and control characters alone.
  return /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}]*$/u.test(text);
}

export function emptyFilters() {
  return { date_from: '', date_to: '', article_types: [], authors: [], journals: [], topics: [], regions: [] };
}

/**
 * A date as a date field holds one (a real day, YYYY-MM-DD), else '': a field cannot show another value,
 * so a link's `date_from=2020-13-45` had left an error about a filter nobody could see or correct.
 */
function dayOrEmpty(value) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return '';
  const day = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === value ? value : '';
}

export function stateFromUrl(url) {
  const params = new URL(url).searchParams;
  const filters = emptyFilters();
  for (const key of DATE_FILTERS) filters[key] = dayOrEmpty(params.get(key) ?? '');
  // A hand-made link may repeat a value or leave one empty or blank: a type listed twice could not be unchecked
  // (the other box keeps it), and an empty value, which no request sends, or a blank one would show as a chip
  // of nothing, as the fields take neither.
  for (const key of LIST_FILTERS) filters[key] = [...new Set(params.getAll(key))].filter((value) => !isBlank(value));
  const pageText = params.get('page') ?? '1';
  const page = Number.parseInt(pageText, 10);
  // The last question asked: brought back into the field, never answered by loading the address.
  const question = (params.get('ask') ?? '').trim();
  const state = {
    // The page never writes both; a hand-made link with both would show the question over another query's results.
    q: question ? '' : (params.get('q') ?? ''),
    question,
    // A question is answered in the search view: the page never writes a listing's mode beside it.
    mode: params.get('mode') === 'list' && !question ? 'list' : 'search',
    // Hundreds of digits read as Infinity: past the largest page too.
    page: page >= 1 ? Math.min(page, LAST_ASKABLE_PAGE) : 1,
    sortByDate: params.get('sort') === 'date',
    filters,
  };
  // The digits parseInt read (after any spaces and sign), without leading zeros.
  if (page > LAST_ASKABLE_PAGE) pagesAskedPastTheLargest.set(state, /\d+/.exec(pageText)[0].replace(/^0+/, ''));
  return state;
}

/** The page `state` was asked for, as its digits: a link's own number, even past the one asked for in its place. */
export function pageAsked(state) {
  return pagesAskedPastTheLargest.get(state) ?? String(state.page);
}

/** The page's address (path and query) for `state`: what goes into the history, and what a copied link holds. */
export function urlOf(state) {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  if (state.question) params.set('ask', state.question);
  if (state.mode === 'list') params.set('mode', 'list');
  if (state.mode === 'list' && state.page > 1) params.set('page', String(state.page));
  if (state.mode === 'list' && state.sortByDate) params.set('sort', 'date');
  for (const [key, value] of Object.entries(filterParams(state.filters))) {
    for (const item of [value].flat()) params.append(key, item);
  }
  const text = params.toString();
  return `${PAGE_PATH}${text ? `?${text}` : ''}`;
}

/** The filters as API query parameters (the names are the API's own). */
export function filterParams(filters) {
  const params = {};
  for (const key of DATE_FILTERS) if (filters[key]) params[key] = filters[key];
  for (const key of LIST_FILTERS) if (filters[key].length > 0) params[key] = filters[key];
  return params;
}
