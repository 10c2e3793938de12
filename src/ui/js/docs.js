// The interactive API reference at /docs: renders the server's OpenAPI document and sends trial requests.
import { accessToken, authHeaders, serverUrl } from './api.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function element(tag, properties = {}, ...children) {
  const node = Object.assign(document.createElement(tag), properties);
  node.append(...children);
  return node;
}

/** The node with every `$ref` to a shared schema (components) replaced by that schema, so each operation shows whole schemas. */
function inlineRefs(node, components, seen = new Set()) {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, components, seen));
  if (!node || typeof node !== 'object') return node;
  const name = typeof node.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(node.$ref)?.[1] : undefined;
  if (name !== undefined && components[name] && !seen.has(name)) return inlineRefs(components[name], components, new Set([...seen, name]));
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inlineRefs(value, components, seen)]));
}

/** A JSON example of a schema, from its defaults and types (enough to start editing a request body). */
function example(schema, depth = 0) {
  if (!schema || depth > 4) return null;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum) return schema.enum[0];
  if (schema.type === 'object' || schema.properties) {
    const required = new Set(schema.required ?? []);
    return Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([key]) => required.has(key)).map(([key, s]) => [key, example(s, depth + 1)]));
  }
  if (schema.type === 'array') return [];
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 0;
  if (schema.type === 'boolean') return false;
  return '';
}

function operationView(path, method, operation) {
  const parameters = operation.parameters ?? [];
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  const inputs = new Map();
  const rows = parameters.map((p) => {
    const input = element('input', { type: 'text', name: p.name });
    input.setAttribute('aria-label', `${p.name} (${p.in})`);
    inputs.set(p, input);
    const type = p.schema?.type === 'array' ? `${p.schema.items?.type ?? ''}[] (comma-separated)` : p.schema?.type ?? '';
    return element('tr', {}, element('td', {}, element('code', { textContent: p.name }), p.required ? ' *' : ''), element('td', { textContent: `${p.in}, ${type}` }), element('td', { textContent: p.description ?? '' }), element('td', {}, input));
  });
  const body = bodySchema ? element('textarea', { value: JSON.stringify(example(bodySchema), null, 2) }) : null;
  body?.setAttribute('aria-label', 'Request body (JSON)');
  const output = element('pre', { hidden: true });
  output.setAttribute('aria-live', 'polite');
  const send = element('button', { type: 'button', textContent: 'Send' });
  /** The request on its way: Send again stops it, or its answer, if slower, would replace the newer one's. */
  let sending = null;
  send.addEventListener('click', async () => {
    sending?.abort();
    const request = new AbortController();
    sending = request;
    let url = path;
    const query = new URLSearchParams();
    for (const [p, input] of inputs) {
      const value = input.value.trim();
      if (!value) continue;
      if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(value));
      else if (p.in === 'query') for (const item of p.schema?.type === 'array' ? value.split(',') : [value]) query.append(p.name, item.trim());
    }
    const search = query.toString();
    output.hidden = false;
    output.textContent = 'Sending…';
    try {
      const response = await fetch(serverUrl(url) + (search ? `?${search}` : ''), {
        method: method.toUpperCase(),
        headers: authHeaders(body ? { 'content-type': 'application/json' } : {}),
        ...(body && { body: body.value }),
        signal: request.signal,
      });
      const text = await response.text();
      let shown = text;
      try {
        shown = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        // not JSON (an event stream, a ZIP): shown as text
      }
      output.textContent = `HTTP ${response.status} ${response.statusText}\n${shown.slice(0, 20_000)}`;
    } catch (error) {
      if (!request.signal.aborted) output.textContent = `The request failed: ${error.message}`;
    }
  });
  const responses = Object.entries(operation.responses ?? {}).map(([status, r]) =>
    element('details', {}, element('summary', { textContent: `${status} ${r.description ?? ''}` }), element('pre', { textContent: JSON.stringify(r.content?.['application/json']?.schema ?? r.content ?? {}, null, 2) })),
  );
  return element(
    'details',
    { className: 'operation' },
    element('summary', {}, element('span', { className: 'method', textContent: method }), element('code', { textContent: path }), element('span', { textContent: operation.summary ?? '' })),
    operation.description ? element('p', { textContent: operation.description }) : '',
    rows.length ? element('table', {}, element('thead', {}, element('tr', {}, ...['name', 'in, type', 'meaning', 'value'].map((h) => element('th', { textContent: h })))), element('tbody', {}, ...rows)) : '',
    body ? element('p', {}, element('strong', { textContent: 'Body' })) : '',
    body ?? '',
    element('p', {}, send),
    output,
    element('h4', { textContent: 'Responses' }),
    ...responses,
  );
}

async function main() {
  const tokenInput = document.querySelector('#docs-token');
  tokenInput.value = accessToken.get();
  tokenInput.addEventListener('change', () => accessToken.set(tokenInput.value.trim()));
  const container = document.querySelector('#operations');
  try {
    const response = await fetch(serverUrl('/openapi.json'));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const spec = await response.json();
    document.querySelector('#title').textContent = `${spec.info?.title ?? 'API'} ${spec.info?.version ?? ''} — API reference`;
    document.querySelector('#description').textContent = spec.info?.description ?? '';
    const byTag = new Map();
    const paths = inlineRefs(spec.paths ?? {}, spec.components?.schemas ?? {});
    for (const [path, item] of Object.entries(paths)) {
      for (const method of METHODS) {
        if (!item[method]) continue;
        const tag = item[method].tags?.[0] ?? (path.startsWith('/v1') ? 'platform (/v1)' : 'other');
        if (!byTag.has(tag)) byTag.set(tag, []);
        byTag.get(tag).push(operationView(path, method, item[method]));
      }
    }
    container.replaceChildren(...[...byTag].flatMap(([tag, views]) => [element('h2', { textContent: tag }), ...views]));
  } catch (error) {
    container.replaceChildren(element('p', { role: 'alert', textContent: `The OpenAPI document could not be loaded (${error.message}).` }));
  }
}

void main();
