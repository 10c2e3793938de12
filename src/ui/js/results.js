// Result cards: one per article, with its best paragraph, query words highlighted, links and the archive button.

const STOPWORDS = new Set(
  'a an and are as at be by do does for from has have how in is it its of on or that the their this to was were what when where which who why with'.split(' '),
);

/**
 * The text folded for matching (lower case, decomposed, marks removed), and for each folded character
 * where its source character starts in `text`. Folding changes lengths (a Hangul syllable decomposes
 * into two or three letters, an accent is removed), so a match in the folded text is placed back
 * through the map; a mark then runs to the start of the next kept character, taking its word's
 * trailing combining marks with it.
 */
function foldWithPositions(text) {
  let folded = '';
  const starts = [];
  let offset = 0;
  for (const char of text) {
    const piece = char.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
    for (let i = 0; i < piece.length; i++) starts.push(offset);
    folded += piece;
    offset += char.length;
  }
  starts.push(text.length);
  return { folded, starts };
}

/** The words of a query worth highlighting, folded as the text they are looked for in. */
export function queryWords(...texts) {
  const words = texts.flatMap((text) => foldWithPositions(text).folded.match(/[\p{L}\p{N}]+/gu) ?? []);
  return [...new Set(words.filter((w) => w.length > 1 && !STOPWORDS.has(w)))];
}

/**
 * The text with every word that starts with a query word (so `cell` marks `cells`) wrapped in <mark>.
 * Built as DOM nodes: the text is never parsed as HTML.
 */
export function highlighted(text, words) {
  const fragment = document.createDocumentFragment();
  if (words.length === 0) {
    fragment.append(text);
    return fragment;
  }
  const { folded, starts } = foldWithPositions(text);
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.map(escapeRegExp).join('|')})[\\p{L}\\p{N}]*`, 'gu');
  let last = 0;
  for (const match of folded.matchAll(pattern)) {
    const start = starts[match.index];
    const end = starts[match.index + match[0].length];
    fragment.append(text.slice(last, start));
    const mark = document.createElement('mark');
    mark.textContent = text.slice(start, end);
    fragment.append(mark);
    last = end;
  }
  fragment.append(text.slice(last));
  return fragment;
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The best paragraph of each article, in rank order (hits are paragraphs, best first). */
export function bestPerArticle(hits) {
  const seen = new Set();
  return hits.filter((hit) => !seen.has(hit.article_id) && seen.add(hit.article_id));
}

/** Paragraphs longer than this (characters, up to 100,000 on a server's default) open on their first lines only. */
const LONG_PARAGRAPH = 1500;

/**
 * One card. `meta` holds the article fields; `paragraph`/`section` the text shown;
 * `number` (citations) prefixes the title; `cart` decides the archive button's state.
 */
export function card(meta, { paragraph, section, words, number, id, cart }) {
  const item = document.createElement('li');
  item.className = 'card';
  item.dataset.testid = 'result';
  item.dataset.articleId = meta.article_id;
  if (id) item.id = id;
  item.tabIndex = -1;

  const title = document.createElement('h3');
  if (number !== undefined) {
    const n = document.createElement('span');
    n.className = 'cite-number';
    n.textContent = `[${number}]`;
    title.append(n);
  }
  title.append(isolated(meta.article_title));

  const shownAuthors = meta.article_authors.slice(0, 4);
  const authors = shownAuthors.flatMap((name, i) => (i === 0 ? [isolated(name)] : [', ', isolated(name)]));
  if (meta.article_authors.length > shownAuthors.length) authors.push(' et al.');
  const details = [
    authors,
    meta.journal_name ? [isolated(meta.journal_name)] : [],
    [meta.date ?? 'undated'],
    meta.article_type ? [isolated(meta.article_type)] : [],
  ].filter((nodes) => nodes.length > 0);
  const info = document.createElement('p');
  info.className = 'meta';
  info.append(...details.flatMap((nodes, i) => (i === 0 ? nodes : [' · ', ...nodes])));

  const body = document.createElement('p');
  body.className = 'paragraph';
  if (section) {
    // Isolated like the other fields: a direction control in a section name must not move the paragraph after it.
    const label = document.createElement('span');
    label.className = 'section';
    label.append(isolated(section), ' ');
    body.append(label);
  }
  const text = document.createElement('bdi');
  text.append(highlighted(paragraph ?? '', words));
  body.append(text);

  const actions = document.createElement('div');
  actions.className = 'actions';
  if (meta.article_doi) actions.append(identifierLink('DOI', meta.article_doi, doiAddress(meta.article_doi)));
  if (meta.pubmed_id) actions.append(identifierLink('PubMed', meta.pubmed_id, isDotSegment(meta.pubmed_id) ? null : `https://pubmed.ncbi.nlm.nih.gov/${encodeURIComponent(meta.pubmed_id)}/`));
  const add = document.createElement('button');
  add.type = 'button';
  add.className = 'add-to-archive';
  cart.bindButton(add, meta);
  actions.append(add);

  item.append(title, info, body);
  if ((paragraph ?? '').length > LONG_PARAGRAPH) item.append(expander(body));
  item.append(actions);
  return item;
}

/** Clamps a long paragraph to its first lines, with the button that shows it whole (the text stays in the page, so find-in-page sees it). */
function expander(body) {
  body.classList.add('clamped');
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'expand';
  const show = (whole) => {
    body.classList.toggle('clamped', !whole);
    button.setAttribute('aria-expanded', String(whole));
    button.textContent = whole ? 'Show less' : 'Show the whole paragraph';
  };
  show(false);
  button.addEventListener('click', () => show(body.classList.contains('clamped')));
  return button;
}

/**
 * Text from an article in its own bidirectional isolate: right-to-left names read the right way, and
 * direction controls inside one field (an unclosed U+202E) cannot reorder the fields after it.
 */
export function isolated(text) {
  const element = document.createElement('bdi');
  element.textContent = text;
  return element;
}

/** Direction controls (marks, embeddings, overrides, isolates): in an identifier they only make it read as another. */
const DIRECTION_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/**
 * An identifier (a DOI, a PubMed id, an ISSN) in its own left-to-right isolate, each direction control in it shown
 * as its code point (`[U+202E]`): it reads as the characters it holds, whatever the text before it or inside it.
 */
export function isolatedIdentifier(identifier) {
  const element = document.createElement('bdi');
  element.dir = 'ltr';
  element.textContent = identifier.replace(DIRECTION_CONTROLS, (control) => `[U+${control.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}]`);
  return element;
}

/**
 * An identifier after a name (a journal's ISSN), in parentheses inside its isolate: an accessible name then reads
 * "Neuron (0896-6273)", where parentheses outside it read "Neuron ( 0896-6273 )".
 */
export function parenthesizedIdentifier(identifier) {
  const element = isolatedIdentifier(identifier);
  element.prepend('(');
  element.append(')');
  return element;
}

/** `.` and `..` are kept as they are by encodeURIComponent, and a browser resolves them (`10.1/../10.9/x` is 10.9/x). */
const isDotSegment = (part) => part === '.' || part === '..';

/** A DOI's address at doi.org; null when the browser would make it another DOI's (a `.` or `..` part). */
function doiAddress(doi) {
  const parts = doi.split('/');
  // A DOI may hold `#`, `?` or `%` (which would end or garble the URL's path): each part between slashes is encoded.
  return parts.some(isDotSegment) ? null : `https://doi.org/${parts.map(encodeURIComponent).join('/')}`;
}

/**
 * An identifier from the corpus (a DOI, a PubMed id) as a link whose text says exactly what the link holds
 * (isolatedIdentifier: an override would make `10.1000/` + U+202E + `gpj.live` read as DOI 10.1000/evil.jpg).
 * Without an address (one the browser would rewrite), it is shown, not linked.
 */
function identifierLink(label, identifier, href) {
  const element = document.createElement(href ? 'a' : 'span');
  element.append(`${label} `, isolatedIdentifier(identifier));
  if (href) {
    element.href = href;
    element.target = '_blank';
    element.rel = 'noopener noreferrer';
  }
  return element;
}
