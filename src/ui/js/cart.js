// The archive cart: chosen articles, the access token, a project the token may write, and the ZIP download.
import { accessToken, authHeaders, errorOf, getJson, networkError, readJson, serverUrl, tokenProblem } from './api.js';
import { openCartStorage } from './cart-storage.js';
import { keptAcrossReloads } from './tab-storage.js';

/**
 * The characters of a title the cart keeps, enough for its list: nothing bounds a title in a corpus, and one of
 * megabytes stored whole passed sessionStorage's quota, so that the cart stopped following the clicks.
 */
const CART_TITLE_LENGTH = 300;
/** The most articles one archive may hold (the server refuses a definition of more): a larger cart could not be downloaded. */
const MAX_CART_ARTICLES = 10_000;

function titleStart(title) {
  if (title.length <= CART_TITLE_LENGTH) return title;
  // Not between the two halves of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(title[CART_TITLE_LENGTH - 1]) ? CART_TITLE_LENGTH - 1 : CART_TITLE_LENGTH;
  return `${title.slice(0, end)}…`;
}

export function createCart(root, { literatureProject, onTokenChange }) {
  const storage = openCartStorage();
  /** article_id -> title, in the order added; kept for this tab only, like the token. */
  const items = storage.cart ?? new Map();
  /** article_id -> its <li> in the cart's list: a click adds or removes one, as rebuilding thousands had cost a click 300 ms. */
  const listItems = new Map();
  /** article_id -> { title, group: the cards' archive buttons for it }. */
  const buttons = new Map();
  /** True while an archive is made and fetched: one at a time, whatever the cart does meanwhile. */
  let downloading = false;
  const list = root.querySelector('#cart-list');
  const size = root.querySelector('#cart-size');
  const tokenInput = root.querySelector('#token');
  const projectSelect = root.querySelector('#project');
  const download = root.querySelector('#download-archive');
  const message = root.querySelector('#cart-message');

  const say = (text, isError = false) => {
    message.textContent = text;
    message.classList.toggle('error', isError);
  };

  /** What the cart last said of a change it refused; taken back by the next change made, unless something else was said since. */
  let refusal = '';
  const refuse = (text) => {
    refusal = text;
    say(text, true);
  };

  // The label says the state; no aria-pressed besides, which would read "Remove from archive, pressed".
  // Its name adds the title (after the words seen): a list of buttons all called "Add to archive" says not which article.
  const syncButton = (button, id, title) => {
    button.textContent = items.has(id) ? 'Remove from archive' : 'Add to archive';
    button.setAttribute('aria-label', `${button.textContent}: ${title}`);
  };

  /** The cart's list entry for an article. */
  const listItem = (id, title) => {
    const item = document.createElement('li');
    // Its own bidirectional isolate, like the title on its card.
    const name = document.createElement('bdi');
    name.textContent = title;
    item.append(name);
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.textContent = '×';
    remove.setAttribute('aria-label', `Remove ${title} from the archive`);
    remove.addEventListener('click', () => {
      // This button goes: keep keyboard users in the cart, on the button then in its place (or the last one); with
      // the last article gone, on the cart itself ("Archive (0)"), not on the token field below it.
      const focusNext = (item.nextElementSibling ?? item.previousElementSibling)?.querySelector('button') ?? root.querySelector('#archive');
      toggle(id, title);
      if (!item.isConnected) focusNext.focus();
    });
    item.append(remove);
    return item;
  };

  /** What shows the cart's size: its count, and the download button. */
  const showSize = () => {
    size.textContent = `(${items.size})`;
    download.disabled = items.size === 0;
    // Busy, not disabled, while an archive is made: disabling the button a keyboard user had just pressed threw the focus to <body>.
    download.setAttribute('aria-disabled', String(downloading));
  };

  const syncButtons = (id) => {
    const bound = buttons.get(id);
    for (const button of bound?.group ?? []) if (button.isConnected) syncButton(button, id, bound.title);
  };

  /**
   * Adds the article, or removes it. The cart changes only once stored: this tab's storage holds about 5 million
   * characters in Chromium, which thousands of long ids can fill, and a refused write (QuotaExceededError) had been
   * thrown out of the click: the cart had changed in memory, not on the page, and a reload lost the change.
   */
  const toggle = (id, title) => {
    const adding = !items.has(id);
    if (adding && items.size >= MAX_CART_ARTICLES) {
      return refuse(`Not added: an archive holds at most ${MAX_CART_ARTICLES.toLocaleString('en')} articles, and the cart has that many. Download the archive, or remove some articles, to add others.`);
    }
    const kept = adding ? titleStart(title) : undefined;
    try {
      storage.store(items, id, kept);
    } catch (error) {
      const why = error.name === 'QuotaExceededError' ? 'is full' : `refused the change (${error.name})`;
      return refuse(`The cart was left as it was: this tab's storage, which keeps it, ${why}. Download the archive, or remove some articles, before adding others.`);
    }
    if (adding) {
      items.set(id, kept);
      const item = listItem(id, kept);
      listItems.set(id, item);
      list.append(item);
    } else {
      items.delete(id);
      listItems.get(id).remove();
      listItems.delete(id);
    }
    // Said, not only shown: the button's new name had been the one sign a screen reader got of the change (WCAG 4.1.3).
    const count = `${items.size} article${items.size === 1 ? '' : 's'}`;
    say(adding ? `Added to the archive: ${kept} (${count}).` : `Removed from the archive: ${title} (${count}).`);
    refusal = '';
    showSize();
    syncButtons(id);
  };

  /** Ties a card's "Add to archive" button to the cart. */
  const bindButton = (button, meta) => {
    const group = (buttons.get(meta.article_id)?.group ?? []).filter((b) => b.isConnected);
    group.push(button);
    buttons.set(meta.article_id, { title: meta.article_title, group });
    syncButton(button, meta.article_id, meta.article_title);
    button.addEventListener('click', () => toggle(meta.article_id, meta.article_title));
  };

  /** The listing asked for the last token: a token changed again stops it, or its slower answer would replace the newer token's. */
  let projectsRequest = null;
  /**
   * Why no project may be chosen, said when "Download archive" is pressed without one; '' once there are projects.
   * Each case its own sentence: a valid token that may write no project had been told a token was needed.
   */
  let noProjectReason = '';
  const NEEDS_TOKEN = 'Enter an access token first: the archive is made in a project it may write.';

  /** Marks the token field refused (said by the sentence `describedBy` names), or accepted. */
  const markToken = (refused, describedBy = '') => {
    if (refused) tokenInput.setAttribute('aria-invalid', 'true');
    else tokenInput.removeAttribute('aria-invalid');
    if (describedBy) tokenInput.setAttribute('aria-describedby', describedBy);
    else tokenInput.removeAttribute('aria-describedby');
  };

  /**
   * The projects the token may write (archives are made in one), read-only ones left out. A deprecated project
   * takes archives as any other (only its resources and files stop changing), so it is listed, marked as such.
   */
  const loadProjects = async () => {
    projectsRequest?.abort();
    const request = new AbortController();
    projectsRequest = request;
    projectSelect.replaceChildren(new Option('(loading…)', ''));
    noProjectReason = 'The projects this token may write are still being listed: press again in a moment.';
    try {
      const listing = await getJson('/v1/projects', { permission: 'resources/write', size: 1000 }, { signal: request.signal });
      const writable = listing._results.filter((p) => !p._readOnly);
      const optionOf = (p) => {
        const label = `${p._organizationLabel}/${p._label}`;
        return new Option(p._deprecated ? `${label} (deprecated)` : label, label);
      };
      projectSelect.replaceChildren(...(writable.length ? writable.map(optionOf) : [new Option('(no project this token may write)', '')]));
      noProjectReason = writable.length
        ? ''
        : accessToken.get()
          ? 'This access token may write no project, and the archive is made in one: ask for write access (resources/write) to a project.'
          : NEEDS_TOKEN;
      say('');
    } catch (error) {
      if (request.signal.aborted) return;
      if (error.status === 401) {
        // The page says it once, above the results (the token was refused); the cart had said it a second time.
        projectSelect.replaceChildren(new Option('(token not accepted)', ''));
        noProjectReason = 'The access token was not accepted: correct it in the "Access token" field, or clear the field.';
        markToken(true);
        say('');
        return;
      }
      projectSelect.replaceChildren(new Option('(no projects)', ''));
      noProjectReason = `The projects this token may write could not be listed: ${error.message}`;
      say(error.message, true);
    }
  };

  tokenInput.value = accessToken.get();
  tokenInput.addEventListener('change', () => {
    const token = tokenInput.value.trim();
    const problem = tokenProblem(token);
    // A token no request could carry is not kept: the page goes on without one, and says why.
    accessToken.set(problem ? '' : token);
    markToken(Boolean(problem), problem ? 'cart-message' : '');
    if (problem) {
      projectsRequest?.abort();
      projectSelect.replaceChildren(new Option('(enter a token)', ''));
      noProjectReason = problem;
      say(problem, true);
    } else {
      void loadProjects();
    }
    onTokenChange();
  });

  /**
   * An article of the cart that left the corpus since it was added: the cart lists titles, never ids, so the server's
   * "resource … not found" would name nothing the reader can find. Its entry is marked, and the reader decides.
   */
  const markGone = (id) => {
    const item = listItems.get(id);
    // Taken out of the cart while the archive was made: nothing left to mark, and the next download goes without it.
    if (!item) return say('Not downloaded: an article taken out of the cart meanwhile is no longer in the corpus. Download again.', true);
    if (!item.querySelector('.gone')) {
      const note = document.createElement('span');
      note.className = 'gone';
      note.textContent = ' (no longer in the corpus)';
      item.querySelector('bdi').after(note);
    }
    say(`Not downloaded: "${items.get(id)}" is no longer in the corpus (removed after it was added to the cart). Remove it from the cart (it is marked), then download again.`, true);
  };

  download.addEventListener('click', async () => {
    if (downloading) return;
    const project = projectSelect.value;
    if (!project) return say(noProjectReason || NEEDS_TOKEN, true);
    downloading = true;
    showSize();
    say('Preparing the archive…');
    const articleIds = [...items.keys()];
    try {
      const blob = await createAndFetch(project, articleIds, await literatureProject());
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = 'archive.zip';
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      say(`Archive of ${articleIds.length} article${articleIds.length === 1 ? '' : 's'} downloaded.`);
    } catch (error) {
      if (error instanceof ArticleGone) markGone(error.articleId);
      else say(error.message, true);
    } finally {
      downloading = false;
      showSize();
    }
  });

  for (const [id, title] of items) listItems.set(id, listItem(id, title));
  list.replaceChildren(...listItems.values());
  showSize();
  if (storage.cart === null) say('The cart kept in this tab could not be read: it starts empty.', true);
  else if (!keptAcrossReloads) say('This browser keeps no data for this site: the cart and the access token last until the page is reloaded.');
  if (accessToken.get()) void loadProjects();
  return { bindButton };
}

/** An article of the cart the server no longer has. */
class ArticleGone extends Error {
  constructor(articleId) {
    super(`article ${articleId} is no longer in the corpus`);
    this.articleId = articleId;
  }
}

/** Creates the archive in `project` (PUT /v1/archives), then downloads its ZIP. */
async function createAndFetch(project, articleIds, literatureProject) {
  try {
    // Each article by its full @id (the literature project's base and the id escaped): a short id is read as an
    // IRI or a CURIE first, so `scifact:4983` named a scheme, `a%2Fb` the article `a/b`, and `x y` nothing.
    const literature = await fetch(serverUrl(`/v1/projects/${literatureProject}`), { headers: authHeaders({ accept: 'application/json' }) });
    if (!literature.ok) throw await errorOf(literature);
    const { base } = await readJson(literature);
    const names = fileNames(articleIds);
    const iris = new Map(articleIds.map((id) => [id, `${base}${encodeURIComponent(id)}`]));
    const definition = {
      resources: articleIds.map((id) => ({ '@type': 'Resource', project: literatureProject, resourceId: iris.get(id), path: `/articles/${names.get(id)}.json` })),
    };
    const id = await storeArchive(project, definition);
    const zip = await fetch(serverUrl(`/v1/archives/${project}/${encodeURIComponent(id)}`), { headers: authHeaders({ accept: 'application/zip' }) });
    if (zip.status === 404) {
      const reason = (await zip.clone().json().catch(() => null))?.reason;
      const gone = typeof reason === 'string' ? articleIds.find((articleId) => reason.includes(`'${iris.get(articleId)}'`)) : undefined;
      if (gone !== undefined) throw new ArticleGone(gone);
    }
    if (!zip.ok) throw await errorOf(zip);
    return await zip.blob();
  } catch (error) {
    throw error.status !== undefined || error instanceof ArticleGone ? error : networkError(error);
  }
}

/** Time an existing archive must still have to be downloaded again rather than made anew. */
const REUSE_MARGIN_SECONDS = 60;

/**
 * Stores `definition` under an id made from it, and answers that id. The same cart pressed again (a download that
 * failed, a second copy) reuses its archive while it lives, where a fresh id each time had stored one more archive
 * per press, each counted against the caller's live archives. An archive found under that id with another
 * definition (someone made it so on purpose) is not used: the archive is then made under an id the server chooses.
 */
async function storeArchive(project, definition) {
  const body = JSON.stringify(definition);
  const id = `cart-${hashOf(`${project}\n${body}`)}`;
  const url = serverUrl(`/v1/archives/${project}/${encodeURIComponent(id)}`);
  const headers = authHeaders({ 'content-type': 'application/json', accept: 'application/json' });
  const stored = await fetch(url, { method: 'PUT', headers, body });
  if (stored.ok) return id;
  if (stored.status !== 409) throw await errorOf(stored);
  const existing = await fetch(url, { headers: authHeaders({ accept: 'application/json' }) });
  if (!existing.ok) throw await errorOf(existing);
  const archive = await readJson(existing);
  if (archive._expiresInSeconds >= REUSE_MARGIN_SECONDS && sameEntries(archive.resources, definition.resources)) return id;
  const created = await fetch(serverUrl(`/v1/archives/${project}`), { method: 'POST', headers, body });
  if (!created.ok) throw await errorOf(created);
  // The archive's own address on this server (its _self uses --public-url, which may name another host).
  return (await readJson(created))['@id'];
}

const entryKey = (entry) => JSON.stringify([entry['@type'], entry.project, entry.resourceId, entry.path]);

function sameEntries(stored, wanted) {
  return Array.isArray(stored) && stored.length === wanted.length && stored.every((entry, position) => entryKey(entry) === entryKey(wanted[position]));
}

/** The longest part of an id kept in a file name: the archive takes names of up to 99 characters. */
const NAME_PART_LENGTH = 80;
/** Names Windows keeps for devices: `con.json` cannot be extracted there, and the archive refuses it. */
const DEVICE_NAME = /^(con|prn|aux|nul|com\d|lpt\d)$/i;

/**
 * Each article's file name in the archive (without `.json`): its id where the id can be one as it is, else the id
 * with every character but ASCII letters, digits, `_`, `.` and `-` made `_`, cut to 80, and a hash of the whole id
 * after it. Two ids must never share a name, or the archive refuses the cart whole: `文章1` and `论文1` both read
 * `__1`, `a/b` reads `a_b` like the id `a_b`, and `Case` and `case` are one file where names ignore case
 * (Windows, macOS); ids that meet so all take the hash.
 */
function fileNames(ids) {
  const readable = (id) => id.replace(/[^\w.-]/g, '_').slice(0, NAME_PART_LENGTH);
  const sharing = new Map();
  for (const id of ids) {
    const key = readable(id).toLowerCase();
    sharing.set(key, (sharing.get(key) ?? 0) + 1);
  }
  const asItIs = (id) => readable(id) === id && !DEVICE_NAME.test(id) && sharing.get(id.toLowerCase()) === 1;
  return new Map(ids.map((id) => [id, asItIs(id) ? id : `${readable(id)}-${hashOf(id)}`]));
}

/**
 * A 53-bit hash of a string (cyrb53), in base 36: a name part that tells ids apart. Not crypto.subtle, which a page
 * served over plain HTTP to another machine does not have.
 */
function hashOf(text) {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
