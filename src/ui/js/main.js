// The page: state from the URL, search / listing / ask, the filter panel and the archive cart.
import { getJson, whenTokenRefused } from './api.js';
import { isNoAnswer, streamAnswer } from './ask.js';
import { createCart } from './cart.js';
import { createFilters, journalNames } from './filters.js';
import { bestPerArticle, card, isolated, queryWords } from './results.js';
import { filterParams, pageAsked, stateFromUrl, urlOf } from './state.js';

const PAGE_SIZE = 10;
const LISTING_FETCH = 1000;
const RETRIEVER_K = 100;
/**
 * The longest page address a view may have. The server reads at most 16 KiB of request line and
 * headers, and the search request repeats the query in its own address: a longer one (a few thousand
 * characters of Greek or Chinese, 6 to 12 characters each once encoded) would be refused with 431,
 * and so would a reload of the page at that address.
 */
const MAX_ADDRESS_LENGTH = 12_000;
const SPOKEN_QUERY_LENGTH = 100;
/** The longest page number a notice quotes: 30 digits fit a phone's line unbroken; a longer one is no page anyone means. */
const QUOTED_PAGE_DIGITS = 30;

const $ = (selector) => document.querySelector(selector);
const queryInput = $('#query');
const resultList = $('#result-list');
const errorRegion = $('#message-errors');
const noticeRegion = $('#message-notices');
const answerPanel = $('#answer-panel');
const answer = $('#answer');
const citations = $('#citations');
const answerHeading = $('#answer-heading');
const stopButton = $('#stop-button');
const resultsStatus = $('#results-status');
const askAgainHint = $('#ask-again');
const tokenRefused = $('#token-refused');

let state = stateFromUrl(location.href);
/** Aborts the requests of the previous view when a newer one starts (no stale results). */
let viewController = new AbortController();
/** The count's own: an answer started meanwhile stops the view's results, not the count of its filters. */
let countController = new AbortController();
/** The filters (as API parameters) the count on the page is for; null while it is not known. */
let countedFor = null;
let askController = null;
/**
 * Replaced with each view shown (Back, a filter, a search, Ask): what the panel starts for the view on screen (a
 * journal looked up for free text) takes its signal, so an answer arriving after the view changed changes nothing.
 * Not viewController, which an Ask aborts to stop the results while its own view stays.
 */
let viewShown = new AbortController();

// Asked in parallel with the first results; only the archive needs it (its articles' project).
const settings = getJson('/settings').catch(() => ({}));
const cart = createCart(document, {
  literatureProject: async () => (await settings).literatureProject ?? 'literature/articles',
  onTokenChange: () => {
    tokenRefused.hidden = true;
    // The same view, read with another token: its results are said again only if they changed.
    void start({ quiet: true });
  },
});
// Said until the token changes: every literature request goes without it meanwhile (see literatureFetch).
whenTokenRefused(() => {
  tokenRefused.hidden = false;
});
const filters = createFilters(document, {
  onChange: (next) => navigate({ filters: next, page: 1 }),
  onError: (text) => show(text),
  onNotice: (text) => show(text, 'notice'),
  viewSignal: () => viewShown.signal,
});

/** What the message line says: parts in order, each { text, kind } ('error', or 'notice' for what is no failure). */
let shownParts = [];

/** One message (none for ''), in place of what the line said. */
function show(text, kind = 'error') {
  showParts(text ? [{ text, kind }] : []);
}

/**
 * A paragraph per part, styled by its own kind: a refusal and "nothing matches" together read as an error and a
 * notice. Errors go to the alert region, notices to the status region (an assertive "Page 500 is past the end"
 * had cut into whatever the reader was hearing); the errors stand first, as every caller orders them.
 */
function showParts(parts) {
  shownParts = parts;
  const paragraphs = (kind) =>
    parts
      .filter((part) => (part.kind === 'error') === (kind === 'error'))
      .map(({ text, kind: partKind }) => {
        const paragraph = document.createElement('p');
        paragraph.className = partKind;
        paragraph.textContent = text;
        return paragraph;
      });
  errorRegion.replaceChildren(...paragraphs('error'));
  noticeRegion.replaceChildren(...paragraphs('notice'));
}

/** The path and query of the view on the page, to tell a new view from a move to a fragment. */
let shownUrl = urlOf(state);
// A hand-made address may hold what the page set aside (a date that is no day, a query beside a question):
// it is rewritten to what the page shows, in place, so that a link copied from it shares this view.
if (shownUrl !== location.pathname + location.search) history.replaceState(null, '', shownUrl + location.hash);
/**
 * A change to the view: shown, unless its address would pass the limit (then refused, with a sentence).
 * Resolves as refresh() does: true once the view is shown, false if refused or taken over.
 */
function navigate(patch) {
  // Dates typed a moment ago, not applied yet, belong to this view (or they would replace it when their delay ends).
  const typedDates = filters.settle();
  const next = { ...state, ...(typedDates && { filters: typedDates, page: 1 }), ...patch };
  const url = urlOf(next);
  if (url.length <= MAX_ADDRESS_LENGTH) return showView(next, url);
  // Only the change over the limit is refused. Dates typed meanwhile (their delay was cancelled) would have
  // applied on their own: they do now, as their own view, so the address, the count and the results say them
  // too; unless they alone pass the limit, in which case the fields go back to the view's dates.
  const refusal = { kind: 'error', text: tooLongToSearch(next, url) };
  const withDates = typedDates && { ...state, filters: typedDates, page: 1 };
  if (!withDates || urlOf(withDates).length > MAX_ADDRESS_LENGTH) {
    filters.render(state.filters);
    showParts([refusal]);
    return Promise.resolve(false);
  }
  const shown = showView(withDates, urlOf(withDates));
  showParts([refusal]);
  // What the dates' own view says once loaded (nothing matches, an error) comes after the refusal, not instead of it, in its own style.
  void shown.then((completed) => {
    if (completed && shownParts[0] !== refusal) showParts([refusal, ...shownParts]);
  });
  return Promise.resolve(false);
}

/** The server's longest question (its --max-query-length), once /settings has said it; its default until then. */
let maxQueryLength = 10_000;
void settings.then((values) => {
  if (Number.isSafeInteger(values.maxQueryLength)) maxQueryLength = values.maxQueryLength;
});

/**
 * Why the view of `next`, at `url`, is not searched. Ask is advised only for a query Ask would take: one over the
 * server's question limit is refused there too.
 */
function tooLongToSearch(next, url) {
  const tooLong = `Too long to search: the query and filters would take ${url.length} characters in the page's address, over the ${MAX_ADDRESS_LENGTH} it may hold.`;
  const characters = [...next.q].length;
  if (characters > maxQueryLength) return `${tooLong} Shorten the query: this server takes at most ${maxQueryLength.toLocaleString('en')} characters (it has ${characters.toLocaleString('en')}).`;
  return `${tooLong} Shorten them, or use Ask, which sends the question in the request body.`;
}

/** Makes `next` the view: into the URL (one history entry), then onto the page; resolves as refresh() does. */
function showView(next, url) {
  state = next;
  if (url !== location.pathname + location.search) history.pushState(null, '', url);
  shownUrl = url;
  return refresh();
}

/** The field shows the view's question if it has one (an answer's view), else its query. */
const fieldText = (view) => view.question || view.q;

// A state from the URL (first load, back, forward) brings its question or query into the field.
addEventListener('popstate', () => {
  // Following an in-page link ("Skip to results") changes only the fragment: the view, and an answer in it, stay.
  if (location.pathname + location.search === shownUrl) return;
  shownUrl = location.pathname + location.search;
  state = stateFromUrl(location.href);
  queryInput.value = fieldText(state);
  // Back and Forward replace the results: focus on one of them (a card's button) had fallen to <body> with it.
  // It goes to the results' region, where "Skip to results" leads (WCAG 2.4.3).
  const focusWasInResults = $('#results').contains(document.activeElement);
  void refresh().finally(() => {
    if (focusWasInResults && (document.activeElement === document.body || !document.activeElement?.isConnected)) $('#results').focus();
    // The hint a returned question shows is said too: it had appeared in silence, the status line emptied.
    if (!askAgainHint.hidden) resultsStatus.textContent = askAgainHint.textContent;
  });
});

$('#query-form').addEventListener('submit', (event) => {
  event.preventDefault();
  navigate({ q: queryInput.value.trim(), question: '', mode: 'search', page: 1 });
});
// The hint is for the question brought back; an edit makes it another one. A cleared field takes the question out of the address.
queryInput.addEventListener('input', () => {
  askAgainHint.hidden = true;
  if (queryInput.value.trim() || !state.question) return;
  state = { ...state, question: '' };
  shownUrl = urlOf(state);
  history.replaceState(null, '', shownUrl);
});
$('#mode-search').addEventListener('click', () => navigate({ mode: 'search', page: 1 }));
$('#mode-list').addEventListener('click', () => navigate({ mode: 'list', page: 1 }));
$('#sort-by-date').addEventListener('change', (event) => navigate({ sortByDate: event.target.checked, page: 1 }));
$('#prev-page').addEventListener('click', () => void turnPage(state.page - 1));
$('#next-page').addEventListener('click', () => void turnPage(state.page + 1));

/** Another page of the listing; once shown, the focus (and the view) go to its first results, where reading starts again. */
async function turnPage(page) {
  if (!(await navigate({ page }))) return;
  resultList.scrollIntoView({ block: 'start' });
  resultList.focus({ preventScroll: true });
}
$('#ask-button').addEventListener('click', () => void ask());
stopButton.addEventListener('click', () => askController?.abort());

/**
 * The tab's title names the view, each a history entry of its own: it had always been "litserve", so the history
 * list and a screen reader's window title told views apart by nothing (WCAG 2.4.2).
 */
function viewTitle() {
  const shown = (text) => (text.length > 60 ? `${text.slice(0, 60)}…` : text);
  if (state.question) return `Ask: ${shown(state.question)} — litserve`;
  if (state.mode === 'list') return `Articles, page ${state.page} — litserve`;
  return state.q ? `${shown(state.q)} — litserve search` : 'litserve';
}

/**
 * What a refresh writes to the status line, as the nodes of its sentence. A quiet refresh (the same view read again
 * with another token) leaves the line as it is when it would say the same words: rewritten, it was said again,
 * and a screen reader heard the same results announced as new ones. `written` tells whether the refresh said anything.
 */
function statusWriter(quiet) {
  const before = resultsStatus.textContent;
  const write = (...parts) => {
    write.written = true;
    const text = parts.map((part) => (typeof part === 'string' ? part : part.textContent)).join('');
    if (quiet && text === before && resultsStatus.textContent === before) return;
    resultsStatus.replaceChildren(...parts);
  };
  write.written = false;
  return write;
}

/**
 * Shows the current state: controls, count and results; resolves true once shown, false if a newer view or an answer
 * took over. `quiet`: see statusWriter.
 */
async function refresh({ quiet = false } = {}) {
  viewShown.abort();
  viewShown = new AbortController();
  viewController.abort();
  viewController = new AbortController();
  // A new view replaces an answer being streamed: stop it, or its citations would later replace these results.
  askController?.abort();
  askController = null;
  stopButton.hidden = true;
  answer.setAttribute('aria-busy', 'false');
  const { signal } = viewController;
  // The field is left alone: a question typed but not yet sent must survive a filter change (filters, then Ask).
  filters.render(state.filters);
  document.title = viewTitle();
  $('#mode-search').setAttribute('aria-pressed', String(state.mode === 'search'));
  $('#mode-list').setAttribute('aria-pressed', String(state.mode === 'list'));
  $('#listing-controls').hidden = state.mode !== 'list';
  $('#sort-by-date').checked = state.sortByDate;
  // Kept while the next page of a listing loads: a hidden button would drop the keyboard focus it has.
  if (state.mode !== 'list') $('#pager').hidden = true;
  answerPanel.hidden = true;
  // A question in the view is not answered by showing it (a reload, a link, Back: seconds of the model each): Ask does.
  // Said while the field holds it (a question typed since, or a refused query, is not "this question").
  askAgainHint.hidden = !state.question || queryInput.value.trim() !== state.question;
  show('');
  const sayResults = statusWriter(quiet);
  if (!quiet) resultsStatus.textContent = '';
  // A listing's line only repeats its pager to the eye: it is for screen readers.
  resultsStatus.classList.add('visually-hidden');
  loadArticleTypes();
  const params = filterParams(state.filters);
  const words = queryWords(state.q, ...state.filters.topics, ...state.filters.regions);
  // Until this view's results arrive, the cards on the page are the last view's: marked so (dimmed, busy for screen readers).
  resultList.setAttribute('aria-busy', 'true');
  try {
    await Promise.all([showCount(params, sayResults), state.mode === 'list' ? showListing(params, words, signal, sayResults) : showSearch(params, words, signal, sayResults)]);
  } catch (error) {
    if (error.name === 'AbortError') return false;
    // An answer that took over (its own view's count failing) keeps its citations; the failure is still said.
    if (!signal.aborted) resultList.replaceChildren();
    show(error.message, error.kind);
  } finally {
    // A newer view (or an answer) that took over has the list now.
    if (!signal.aborted) resultList.setAttribute('aria-busy', 'false');
    // Kept through a quiet refresh in case it said the same; it says nothing of this view if nothing was written.
    if (!signal.aborted && !sayResults.written) resultsStatus.textContent = '';
  }
  return !signal.aborted;
}

/** The number of articles the filters match; until it arrives the count of other filters is not shown, and a failed one shows none (—). */
async function showCount(params, sayResults) {
  countController.abort();
  countController = new AbortController();
  const key = JSON.stringify(params);
  if (key !== countedFor) {
    countedFor = null;
    $('#article-count').textContent = '…';
    $('#count-label').textContent = 'articles match the filters';
  }
  let article_count;
  try {
    ({ article_count } = await getJson('/retrieval/article_count', params, { signal: countController.signal }));
  } catch (error) {
    // Refused (a filter the server cannot use) or failed: no number, not even the one of these same filters before.
    if (error.name !== 'AbortError') {
      countedFor = null;
      $('#article-count').textContent = '—';
      $('#count-label').textContent = 'articles match the filters (the count failed: see the message below)';
    }
    throw error;
  }
  countedFor = key;
  $('#article-count').textContent = String(article_count);
  $('#count-label').textContent = article_count === 1 ? 'article matches the filters' : 'articles match the filters';
  // Without a query, a question or a listing nothing else is said of a filter's change: the count is (a screen reader had heard nothing).
  if (!state.q && !state.question && state.mode !== 'list') sayResults(`${article_count} ${$('#count-label').textContent}.`);
}

async function showSearch(params, words, signal, sayResults) {
  if (!state.q) {
    resultList.replaceChildren();
    return;
  }
  const hits = await getJson('/retrieval/', { query: state.q, retriever_k: RETRIEVER_K, ...params }, { signal });
  for (const hit of hits) if (hit.journal_issn && hit.journal_name) journalNames.set(hit.journal_issn, hit.journal_name);
  const articles = bestPerArticle(hits);
  resultList.replaceChildren(...articles.map((hit) => card(hit, { paragraph: hit.paragraph, section: hit.section, words, cart })));
  sayResults(...searchStatus(articles.length, hits.length < RETRIEVER_K, spoken(state.q)));
  // Seen too: the count above is of the filters alone, and a reader must not take 100 cards for all that match.
  resultsStatus.classList.remove('visually-hidden');
}

/**
 * What the status line says of a search's results, as the nodes of its sentence. The search asks for the best RETRIEVER_K paragraphs: only when
 * fewer came back are these all the articles the query matches; otherwise they are the best ones, out of more.
 */
function searchStatus(articleCount, all, query) {
  const articles = `${articleCount} article${articleCount === 1 ? '' : 's'}`;
  const before = all ? `${articles} found for “` : articleCount === 1 ? 'The best-matching article for “' : `The ${articleCount} best-matching articles for “`;
  // The query in its own isolate: a direction control in it (a link's `?q=`) cannot reorder the sentence around it.
  return [before, isolated(query), '”.'];
}

/** A query as the status line reads it out: its start only when long (a pasted page is not read back whole). */
function spoken(query) {
  const characters = [...query];
  return characters.length > SPOKEN_QUERY_LENGTH ? `${characters.slice(0, SPOKEN_QUERY_LENGTH).join('')}…` : query;
}

async function showListing(params, words, signal, sayResults) {
  const fetchPage = () =>
    getJson('/retrieval/article_listing', { ...params, page: state.page, size: PAGE_SIZE, number_results: LISTING_FETCH, sort_by_date: state.sortByDate }, { signal });
  // As the link said it: a larger number than the API's largest page is asked for as that one.
  const askedPage = pageAsked(state);
  let listing = await fetchPage();
  const lastPage = Math.max(listing.pages, 1);
  // A page past the end (a link's page=500 of 5) becomes the last page, in place, as page=abc becomes page 1.
  const pastTheEnd = listing.page > lastPage;
  if (pastTheEnd) {
    // A newer view has the address now.
    if (signal.aborted) return;
    state = { ...state, page: lastPage };
    shownUrl = urlOf(state);
    history.replaceState(null, '', shownUrl + location.hash);
    listing = await fetchPage();
  }
  resultList.replaceChildren(...listing.items.map((item) => card(item, { paragraph: item.abstract ?? '', section: 'Abstract', words, cart })));
  $('#pager').hidden = listing.pages <= 1;
  $('#page-label').textContent = `Page ${listing.page} of ${Math.max(listing.pages, 1)}`;
  if (listing.items.length > 0) sayResults(`Listing, page ${listing.page} of ${listing.pages}: ${listing.items.length} article${listing.items.length === 1 ? '' : 's'}.`);
  $('#prev-page').disabled = listing.page <= 1;
  $('#next-page').disabled = listing.page >= listing.pages;
  if (listing.items.length === 0) return void show('No article matches these filters.', 'notice');
  const notices = [];
  if (pastTheEnd) {
    const named = askedPage.length > QUOTED_PAGE_DIGITS ? 'That page' : `Page ${askedPage}`;
    notices.push(`${named} is past the end of the listing: this is its last page, ${lastPage}.`);
  }
  // The listing fetches at most LISTING_FETCH articles: the count above may be larger, and the pager ends there.
  if (listing.total >= LISTING_FETCH) notices.push(`Only the first ${LISTING_FETCH.toLocaleString('en')} articles are listed; narrow the filters to list the others.`);
  if (notices.length > 0) showParts(notices.map((text) => ({ text, kind: 'notice' })));
}

/** Streams an answer to the text of the search field, then lists the cited paragraphs as numbered cards. */
async function ask() {
  const question = queryInput.value.trim();
  if (!question) {
    show('Type a question first.', 'notice');
    queryInput.focus();
    return;
  }
  keepQuestion(question);
  askController?.abort();
  viewController.abort();
  const controller = new AbortController();
  askController = controller;
  const { signal } = controller;
  show('');
  resultList.replaceChildren();
  resultList.setAttribute('aria-busy', 'false');
  resultsStatus.textContent = '';
  $('#pager').hidden = true;
  answerPanel.hidden = false;
  askAgainHint.hidden = true;
  answer.textContent = '';
  answer.className = '';
  answerHeading.textContent = 'Answer';
  answer.setAttribute('aria-busy', 'true');
  citations.replaceChildren();
  citations.hidden = true;
  stopButton.hidden = false;
  // Once another ask or a new view has taken over, this one must not touch the page.
  const superseded = () => askController !== controller;
  try {
    const result = await streamAnswer(question, filterParams(state.filters), { signal, onToken: (text) => answer.append(text) });
    if (superseded()) return;
    answer.textContent = result.answer;
    if (isNoAnswer(result)) {
      // The model's text is then why the articles do not answer, not an answer: headed so, or the page showed an
      // answer under a notice saying there was none.
      answer.className = 'bbs-error';
      answerHeading.textContent = 'Why there is no answer';
      show('The articles found do not answer this question. Rephrase it or change the filters.', 'notice');
    }
    showCitations(result.metadata, queryWords(question));
  } catch (error) {
    if (superseded()) return;
    if (error.name === 'AbortError') {
      const started = answer.textContent !== '';
      answerPanel.hidden = !started;
      show(started ? 'Stopped. The answer above is incomplete.' : 'Stopped before any answer arrived.', 'notice');
    } else {
      show(error.message, error.kind);
      if (!answer.textContent) answerPanel.hidden = true;
    }
  } finally {
    if (!superseded()) {
      askController = null;
      answer.setAttribute('aria-busy', 'false');
      stopButton.hidden = true;
      if (document.activeElement === stopButton || document.activeElement === document.body) $('#ask-button').focus();
    }
  }
}

/**
 * The asked question becomes the view, with the filters on screen (dates typed a moment ago included): in the
 * address, in place of the query, so a reload, a link or Back brings it back into the field, unanswered. A question
 * too long for the address (Ask takes those, in the request body) is asked all the same, and left out of it.
 */
function keepQuestion(question) {
  const typedDates = filters.settle();
  // An answer is a view of its own, whichever view it was asked from: not a listing's page with its controls.
  const asked = { ...state, ...(typedDates && { filters: typedDates }), q: '', question, mode: 'search', page: 1 };
  const next = urlOf(asked).length <= MAX_ADDRESS_LENGTH ? asked : { ...asked, question: '' };
  void showView(next, urlOf(next));
}

function showCitations(metadata, words) {
  // An empty list is no list: it had been read out as "Citations, list, 0 items" under an answer citing nothing.
  citations.hidden = metadata.length === 0;
  citations.replaceChildren(
    ...metadata.map((meta, i) => {
      const id = `cited-${i + 1}`;
      const item = document.createElement('li');
      const link = document.createElement('a');
      link.href = `#${id}`;
      link.dataset.testid = 'citation';
      link.append(`[${i + 1}] `, isolated(meta.article_title));
      link.addEventListener('click', (event) => {
        event.preventDefault();
        highlightCard(document.getElementById(id));
      });
      item.append(link);
      return item;
    }),
  );
  resultList.replaceChildren(...metadata.map((meta, i) => card(meta, { paragraph: meta.paragraph, section: meta.section, words, number: i + 1, id: `cited-${i + 1}`, cart })));
}

function highlightCard(target) {
  for (const other of resultList.querySelectorAll('.highlight')) other.classList.remove('highlight');
  target.classList.add('highlight');
  // No smooth scroll for those who asked for less motion (WCAG 2.3.3).
  target.scrollIntoView({ behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth', block: 'center' });
  target.focus({ preventScroll: true });
}

/** The request for the article types and their counts; null: ask again with the next view (the last one failed, a 429 say). */
let articleTypesRequest = null;
/** Aborts the article types asked with the token before: their list, or its refusal, is not the new token's. */
let articleTypesController = new AbortController();

function loadArticleTypes() {
  const { signal } = articleTypesController;
  articleTypesRequest ??= getJson('/suggestions/article_types', {}, { signal }).then(
    (list) => filters.setArticleTypes(list),
    (error) => {
      // Asked with a token since replaced: the request of the new token is the one to keep or to ask again.
      if (signal.aborted) return;
      articleTypesRequest = null;
      show(error.message);
    },
  );
}

/** The first view, and the view again when the token changes (it may open what was closed: then `quiet`, see refresh). */
async function start({ quiet = false } = {}) {
  articleTypesController.abort();
  articleTypesController = new AbortController();
  articleTypesRequest = null;
  // Read with the token before: a new token (or none) may not read them, and then they are not shown.
  filters.setArticleTypes(null);
  await refresh({ quiet });
}

queryInput.value = fieldText(state);
if (urlOf(state).length > MAX_ADDRESS_LENGTH) {
  // A link holding such a query: it stays in the field, but is not sent, as it would not be once typed.
  const refused = tooLongToSearch(state, urlOf(state));
  state = { ...state, q: '', question: '' };
  shownUrl = urlOf(state);
  history.replaceState(null, '', shownUrl + location.hash);
  void start().then(() => show(refused));
} else {
  void start();
}
