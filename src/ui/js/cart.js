// The archive cart: chosen articles, the access token, a project the token may write, and the ZIP download.
import { accessToken, authHeaders, errorOf, getJson, networkError, readJson, serverUrl } from './api.js';

const CART_KEY = 'litserve.cart';

export function createCart(root, { literatureProject, onTokenChange }) {
  /** article_id -> title, in the order added; kept for this tab only, like the token. */
  const items = new Map(JSON.parse(sessionStorage.getItem(CART_KEY) ?? '[]'));
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

  const save = () => sessionStorage.setItem(CART_KEY, JSON.stringify([...items]));

  // The label says the state; no aria-pressed besides, which would read "Remove from archive, pressed".
  // Its name adds the title (after the words seen): a list of buttons all called "Add to archive" says not which article.
  const syncButton = (button, id, title) => {
    button.textContent = items.has(id) ? 'Remove from archive' : 'Add to archive';
    button.setAttribute('aria-label', `${button.textContent}: ${title}`);
  };

  const render = () => {
    size.textContent = `(${items.size})`;
    list.replaceChildren(
      ...[...items].map(([id, title]) => {
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
          const position = [...items.keys()].indexOf(id);
          toggle(id, title);
          // This button is gone: keep keyboard users in the cart, on the button now in its place (or the last one).
          const left = list.querySelectorAll('button');
          (left[Math.min(position, left.length - 1)] ?? tokenInput).focus();
        });
        item.append(remove);
        return item;
      }),
    );
    for (const [id, { title, group }] of buttons) for (const button of group) if (button.isConnected) syncButton(button, id, title);
    download.disabled = items.size === 0 || downloading;
  };

  const toggle = (id, title) => {
    if (items.has(id)) items.delete(id);
    else items.set(id, title);
    save();
    render();
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

  /** The projects the token may write (archives are made in one), read-only ones left out. */
  const loadProjects = async () => {
    projectsRequest?.abort();
    const request = new AbortController();
    projectsRequest = request;
    projectSelect.replaceChildren(new Option('(loading…)', ''));
    try {
      const listing = await getJson('/v1/projects', { permission: 'resources/write', deprecated: false, size: 1000 }, { signal: request.signal });
      const writable = listing._results.filter((p) => !p._readOnly).map((p) => `${p._organizationLabel}/${p._label}`);
      projectSelect.replaceChildren(...(writable.length ? writable.map((p) => new Option(p, p)) : [new Option('(no project this token may write)', '')]));
      say('');
    } catch (error) {
      if (request.signal.aborted) return;
      projectSelect.replaceChildren(new Option('(no projects)', ''));
      say(error.message, true);
    }
  };

  tokenInput.value = accessToken.get();
  tokenInput.addEventListener('change', () => {
    accessToken.set(tokenInput.value.trim());
    void loadProjects();
    onTokenChange();
  });

  download.addEventListener('click', async () => {
    const project = projectSelect.value;
    if (!project) return say('Choose a project first (an access token that may write one is needed).', true);
    downloading = true;
    download.disabled = true;
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
      say(error.message, true);
    } finally {
      downloading = false;
      download.disabled = items.size === 0;
    }
  });

  render();
  if (accessToken.get()) void loadProjects();
  return { bindButton };
}

/** Creates the archive in `project` (POST /v1/archives), then downloads its ZIP. */
async function createAndFetch(project, articleIds, literatureProject) {
  try {
    // Each article by its full @id (the literature project's base and the id escaped): a short id is read as an
    // IRI or a CURIE first, so `scifact:4983` named a scheme, `a%2Fb` the article `a/b`, and `x y` nothing.
    const literature = await fetch(serverUrl(`/v1/projects/${literatureProject}`), { headers: authHeaders({ accept: 'application/json' }) });
    if (!literature.ok) throw await errorOf(literature);
    const { base } = await readJson(literature);
    const definition = {
      resources: articleIds.map((id) => ({
        '@type': 'Resource',
        project: literatureProject,
        resourceId: `${base}${encodeURIComponent(id)}`,
        path: `/articles/${id.replace(/[^\w.-]/g, '_')}.json`,
      })),
    };
    const created = await fetch(serverUrl(`/v1/archives/${project}`), {
      method: 'POST',
      headers: authHeaders({ 'content-type': 'application/json', accept: 'application/json' }),
      body: JSON.stringify(definition),
    });
    if (!created.ok) throw await errorOf(created);
    // The archive's own address on this server (its _self uses --public-url, which may name another host).
    const { '@id': id } = await readJson(created);
    const zip = await fetch(serverUrl(`/v1/archives/${project}/${encodeURIComponent(id)}`), { headers: authHeaders({ accept: 'application/zip' }) });
    if (!zip.ok) throw await errorOf(zip);
    return await zip.blob();
  } catch (error) {
    throw error.status !== undefined ? error : networkError(error);
  }
}
