// The page: state from the URL, search / listing / ask, the filter panel and the archive cart.
import { getJson } from './api.js';
import { isNoAnswer, streamAnswer } from './ask.js';
import { createCart } from './cart.js';
import { createFilters, journalNames } from './filters.js';
import { bestPerArticle, card, queryWords } from './results.js';
import { filterParams, stateFromUrl, urlOf } from './state.js';

const PAGE_SIZE = 10;
const LISTING_FETCH = 1000;
const RETRIEVER_K = 100;

const $ = (selector) => document.querySelector(selector);
const queryInput = $('#query');
const resultList = $('#result-list');
const message = $('#message');
const answerPanel = $('#answer-panel');
const answer = $('#answer');
const citations = $('#citations');
const stopButton = $('#stop-button');

let state = stateFromUrl(location.href);
/** Aborts the requests of the previous view when a newer one starts (no stale results). */
let viewController = new AbortController();
let askController = null;

// Asked in parallel with the first results; only the archive needs it (its articles' project).
const settings = getJson('/settings').catch(() => ({}));
const cart = createCart(document, {
  literatureProject: async () => (await settings).literatureProject ?? 'literature/articles',
  onTokenChange: () => void start(),
});
const filters = createFilters(document, {
  onChange: (next) => navigate({ filters: next, page: 1 }),
  onError: (text) => show(text),
});

function show(text, kind = 'error') {
  message.hidden = !text;
  message.textContent = text;
  message.className = kind === 'notice' ? 'notice' : '';
}

/** A new state: into the URL (one history entry), then onto the page. */
function navigate(patch) {
  state = { ...state, ...patch };
  const url = urlOf(state);
  if (url !== location.pathname + location.search) history.pushState(null, '', url);
  void refresh();
}

addEventListener('popstate', () => {
  state = stateFromUrl(location.href);
  void refresh();
});

$('#query-form').addEventListener('submit', (event) => {
  event.preventDefault();
  navigate({ q: queryInput.value.trim(), mode: 'search', page: 1 });
});
$('#mode-search').addEventListener('click', () => navigate({ mode: 'search', page: 1 }));
$('#mode-list').addEventListener('click', () => navigate({ mode: 'list', page: 1 }));
$('#sort-by-date').addEventListener('change', (event) => navigate({ sortByDate: event.target.checked, page: 1 }));
$('#prev-page').addEventListener('click', () => navigate({ page: Math.max(1, state.page - 1) }));
$('#next-page').addEventListener('click', () => navigate({ page: state.page + 1 }));
$('#ask-button').addEventListener('click', () => void ask());
stopButton.addEventListener('click', () => askController?.abort());

/** Shows the current state: controls, count and results. */
async function refresh() {
  viewController.abort();
  viewController = new AbortController();
  const { signal } = viewController;
  queryInput.value = state.q;
  filters.render(state.filters);
  $('#mode-search').setAttribute('aria-pressed', String(state.mode === 'search'));
  $('#mode-list').setAttribute('aria-pressed', String(state.mode === 'list'));
  $('#listing-controls').hidden = state.mode !== 'list';
  $('#sort-by-date').checked = state.sortByDate;
  $('#pager').hidden = true;
  answerPanel.hidden = true;
  show('');
  const params = filterParams(state.filters);
  const words = queryWords(state.q, ...state.filters.topics, ...state.filters.regions);
  try {
    await Promise.all([
      getJson('/retrieval/article_count', params, { signal }).then(({ article_count }) => {
        $('#article-count').textContent = String(article_count);
        $('#count-label').textContent = `article${article_count === 1 ? '' : 's'} match the filters`;
      }),
      state.mode === 'list' ? showListing(params, words, signal) : showSearch(params, words, signal),
    ]);
  } catch (error) {
    if (error.name === 'AbortError') return;
    resultList.replaceChildren();
    show(error.message);
  }
}

async function showSearch(params, words, signal) {
  if (!state.q) {
    resultList.replaceChildren();
    return;
  }
  const hits = await getJson('/retrieval/', { query: state.q, retriever_k: RETRIEVER_K, ...params }, { signal });
  for (const hit of hits) if (hit.journal_issn && hit.journal_name) journalNames.set(hit.journal_issn, hit.journal_name);
  resultList.replaceChildren(...bestPerArticle(hits).map((hit) => card(hit, { paragraph: hit.paragraph, section: hit.section, words, cart })));
}

async function showListing(params, words, signal) {
  const listing = await getJson(
    '/retrieval/article_listing',
    { ...params, page: state.page, size: PAGE_SIZE, number_results: LISTING_FETCH, sort_by_date: state.sortByDate },
    { signal },
  );
  resultList.replaceChildren(...listing.items.map((item) => card(item, { paragraph: item.abstract ?? '', section: 'Abstract', words, cart })));
  const pager = $('#pager');
  pager.hidden = listing.pages <= 1;
  $('#page-label').textContent = `Page ${listing.page} of ${Math.max(listing.pages, 1)}`;
  $('#prev-page').disabled = listing.page <= 1;
  $('#next-page').disabled = listing.page >= listing.pages;
  if (listing.items.length === 0) show(listing.total === 0 ? 'No article matches these filters.' : 'This page is past the end of the listing.', 'notice');
}

/** Streams an answer to the text of the search field, then lists the cited paragraphs as numbered cards. */
async function ask() {
  const question = queryInput.value.trim();
  if (!question) {
    show('Type a question first.', 'notice');
    queryInput.focus();
    return;
  }
  askController?.abort();
  viewController.abort();
  askController = new AbortController();
  const { signal } = askController;
  show('');
  resultList.replaceChildren();
  $('#pager').hidden = true;
  answerPanel.hidden = false;
  answer.textContent = '';
  answer.className = '';
  answer.setAttribute('aria-busy', 'true');
  citations.replaceChildren();
  stopButton.hidden = false;
  try {
    const result = await streamAnswer(question, filterParams(state.filters), { signal, onToken: (text) => answer.append(text) });
    answer.textContent = result.answer;
    if (isNoAnswer(result)) {
      answer.className = 'bbs-error';
      show('The articles found do not answer this question. Rephrase it or change the filters.', 'notice');
    }
    showCitations(result.metadata, queryWords(question));
  } catch (error) {
    if (error.name === 'AbortError') {
      show('Stopped. The answer above is incomplete.', 'notice');
    } else {
      show(error.message);
      if (!answer.textContent) answerPanel.hidden = true;
    }
  } finally {
    answer.setAttribute('aria-busy', 'false');
    stopButton.hidden = true;
    if (document.activeElement === stopButton || document.activeElement === document.body) $('#ask-button').focus();
  }
}

function showCitations(metadata, words) {
  citations.replaceChildren(
    ...metadata.map((meta, i) => {
      const id = `cited-${i + 1}`;
      const item = document.createElement('li');
      const link = document.createElement('a');
      link.href = `#${id}`;
      link.dataset.testid = 'citation';
      link.textContent = `[${i + 1}] ${meta.article_title}`;
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
  target.scrollIntoView({ behavior: 'smooth', block: 'center' });
  target.focus({ preventScroll: true });
}

async function start() {
  const types = getJson('/suggestions/article_types')
    .then((list) => filters.setArticleTypes(list))
    .catch((error) => show(error.message));
  await Promise.all([types, refresh()]);
}

void start();
