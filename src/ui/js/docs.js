// The interactive API reference at /docs: renders the server's OpenAPI document and sends trial requests.
import { accessToken, authHeaders, serverUrl, tokenProblem } from './api.js';

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

/**
 * The items of a list parameter typed in one field: split at each comma, but `\,` is a comma inside an item and `\\` a
 * backslash. A journal's name or a topic holding a comma ("Brain, Behavior, and Immunity") could not be sent.
 */
function listItems(value) {
  const items = [''];
  for (let i = 0; i < value.length; i++) {
    const escaped = value[i] === '\\' && (value[i + 1] === ',' || value[i + 1] === '\\');
    if (escaped) items[items.length - 1] += value[++i];
    else if (value[i] === ',') items.push('');
    else items[items.length - 1] += value[i];
  }
  return items;
}

/** The columns of a field table: each cell also carries its column's name, which a narrow screen shows beside it. */
const FIELD_COLUMNS = ['name', 'in, type', 'meaning', 'value'];

/**
 * A table row for one field to fill in (a parameter, a form part): its name, kind, meaning and input. The table's
 * parts have their roles set: a narrow screen lays the rows out as blocks (the columns had been words wide, broken
 * mid-word, their inputs 53 px), which would otherwise drop the table from what assistive technology sees.
 */
function fieldRow(name, required, kind, description, input) {
  const cells = [[element('code', { textContent: name }), required ? ' *' : ''], [kind], [description ?? ''], [input]];
  return element('tr', { role: 'row' }, ...cells.map((children, i) => {
    const cell = element('td', { role: 'cell' }, ...children);
    cell.dataset.column = FIELD_COLUMNS[i];
    return cell;
  }));
}

function fieldTable(rows) {
  const headers = FIELD_COLUMNS.map((h) => element('th', { textContent: h, role: 'columnheader' }));
  return element('table', { role: 'table' }, element('thead', { role: 'rowgroup' }, element('tr', { role: 'row' }, ...headers)), element('tbody', { role: 'rowgroup' }, ...rows));
}

/**
 * The inputs of a `multipart/form-data` body, one per part: a file picker for a binary part, a text field otherwise.
 * Sent as FormData, so the browser writes the multipart body and its boundary.
 */
function formParts(schema) {
  const required = new Set(schema.required ?? []);
  const parts = new Map();
  const rows = Object.entries(schema.properties ?? {}).map(([name, part]) => {
    const isFile = part.type === 'string' && part.format === 'binary';
    const input = element('input', { type: isFile ? 'file' : 'text', name });
    input.setAttribute('aria-label', `${name} (${isFile ? 'file' : 'form field'})`);
    parts.set(name, input);
    return fieldRow(name, required.has(name), `body, ${isFile ? 'file' : part.type ?? ''}`, part.description, input);
  });
  const formData = () => {
    const form = new FormData();
    for (const [name, input] of parts) {
      if (input.type === 'file') for (const file of input.files) form.append(name, file);
      else if (input.value.trim()) form.append(name, input.value);
    }
    return form;
  };
  return { rows, formData };
}

/**
 * A choice of the media types a GET's success answers declare, when it has several (a resource as JSON-LD or
 * N-Triples, a file's content or its metadata, an archive as ZIP or JSON): sent as Accept, which the page had
 * no way to set, so only the browser's default answer could be tried. Null for an operation with one media type.
 */
function acceptChoice(method, operation) {
  if (method !== 'get') return null;
  const declared = Object.entries(operation.responses ?? {}).filter(([status]) => status.startsWith('2')).flatMap(([, response]) => Object.keys(response.content ?? {}));
  const types = [...new Set(declared)];
  if (types.length < 2) return null;
  const select = element('select', { name: 'accept' }, element('option', { value: '', textContent: "the browser's default" }), ...types.map((type) => element('option', { value: type, textContent: type })));
  select.setAttribute('aria-label', 'Accept (header)');
  return { select, row: fieldRow('Accept', false, 'header, media type', 'The media type asked for, among those this operation answers with.', select) };
}

/** The longest answer shown whole: past it, the page says where it was cut and how long the answer was. */
const LONGEST_SHOWN = 20_000;

/** A HEAD's answer as text: its status line and headers (it has no body). */
function headersText(response) {
  return [`HTTP ${response.status} ${response.statusText}`, ...[...response.headers].map(([name, value]) => `${name}: ${value}`)].join('\n');
}

/** Shown on a GET's entry when the same path answers HEAD: one entry per path and parameters, not two nearly alike. */
function headView(head) {
  return element(
    'details',
    {},
    element('summary', { textContent: `HEAD: the GET's headers, without its body (${Object.keys(head.responses ?? {}).join(', ')})` }),
    element('ul', {}, ...Object.entries(head.responses ?? {}).map(([status, r]) => element('li', { textContent: `${status} ${r.description ?? ''}` }))),
  );
}

/** One operation's entry; `head`, for a GET, is the HEAD at the same path, tried with the same parameters. */
function operationView(path, method, operation, head) {
  const parameters = operation.parameters ?? [];
  const content = operation.requestBody?.content ?? {};
  const jsonSchema = content['application/json']?.schema;
  const multipartSchema = jsonSchema ? undefined : content['multipart/form-data']?.schema;
  /**
   * A /v1 write asks for its JSON answer: an archive's creation answers a browser's default Accept with a 303 to the
   * ZIP, which fetch follows, so the page showed "HTTP 200" and the ZIP as text, never the new archive's id.
   */
  const answersJsonWrite = path.startsWith('/v1/') && method !== 'get' && Object.entries(operation.responses ?? {}).some(([status, r]) => status.startsWith('2') && r.content?.['application/json']);
  const inputs = new Map();
  const rows = parameters.map((p) => {
    const input = element('input', { type: 'text', name: p.name, required: Boolean(p.required) });
    input.setAttribute('aria-label', `${p.name} (${p.in})`);
    inputs.set(p, input);
    const type = p.schema?.type === 'array' ? `${p.schema.items?.type ?? ''}[] (comma-separated; \\, for a comma)` : p.schema?.type ?? '';
    return fieldRow(p.name, p.required, `${p.in}, ${type}`, p.description, input);
  });
  const accept = acceptChoice(method, operation);
  if (accept) rows.push(accept.row);
  const body = jsonSchema ? element('textarea', { value: JSON.stringify(example(jsonSchema), null, 2) }) : null;
  body?.setAttribute('aria-label', 'Request body (JSON)');
  const form = multipartSchema ? formParts(multipartSchema) : null;
  const output = element('pre', { hidden: true, className: 'docs-answer' });
  // What a screen reader is told of an answer: its status line and length. The answer itself (up to 20,000
  // characters) had been the live region, read out whole after every Send.
  const said = element('p', { className: 'visually-hidden' });
  said.setAttribute('role', 'status');
  const show = (text) => {
    output.hidden = false;
    output.textContent = text;
    const [first] = text.split('\n', 1);
    said.textContent = text.length > first.length ? `${first}; ${text.length.toLocaleString('en')} characters shown below.` : first;
  };
  /** The request on its way: a new one stops it, or its answer, if slower, would replace the newer one's. */
  let sending = null;
  const sendAs = async (sentMethod) => {
    sending?.abort();
    const request = new AbortController();
    sending = request;
    let url = path;
    const query = new URLSearchParams();
    const headers = {};
    const refuse = (why) => show(`Not sent: ${why}`);
    for (const [p, input] of inputs) {
      const value = input.value.trim();
      // Left empty, a path parameter would be sent as the literal "{id}", an id the server then refuses or, worse, takes.
      if (!value && p.in === 'path') return refuse(`the path parameter ${p.name} is required: fill it in.`);
      if (!value) continue;
      // encodeURIComponent keeps `.` and `..`, which the browser resolves: the request, token and method included,
      // would go to another path than the operation's (`/v1/projects/neuro/..` is `/v1/projects/`).
      if (p.in === 'path' && (value === '.' || value === '..')) {
        return refuse(`the path parameter ${p.name} cannot be "${value}", which the browser would resolve into another path.`);
      }
      if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(value));
      else if (p.in === 'query') for (const item of p.schema?.type === 'array' ? listItems(value) : [value]) query.append(p.name, item.trim());
      else if (p.in === 'header') headers[p.name.toLowerCase()] = value;
    }
    const search = query.toString();
    const isHead = sentMethod === 'head';
    const sentBody = isHead ? undefined : body ? body.value : form?.formData();
    show('Sending…');
    try {
      const response = await fetch(serverUrl(url) + (search ? `?${search}` : ''), {
        method: sentMethod.toUpperCase(),
        // No Content-Type for a form: the browser sets multipart/form-data with the boundary it chose.
        headers: authHeaders({
          ...headers,
          ...(body && !isHead && { 'content-type': 'application/json' }),
          ...(answersJsonWrite && { accept: 'application/json' }),
          ...(accept?.select.value && { accept: accept.select.value }),
        }),
        ...(sentBody !== undefined && { body: sentBody }),
        signal: request.signal,
      });
      if (isHead) {
        show(headersText(response));
        return;
      }
      const text = await response.text();
      let shown = text;
      try {
        shown = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        // not JSON (an event stream, a ZIP): shown as text
      }
      const cut = shown.length > LONGEST_SHOWN ? `\n… cut here: the first ${LONGEST_SHOWN.toLocaleString('en')} of ${shown.length.toLocaleString('en')} characters are shown.` : '';
      show(`HTTP ${response.status} ${response.statusText}\n${shown.slice(0, LONGEST_SHOWN)}${cut}`);
    } catch (error) {
      // The browser's words ("Failed to fetch") said nothing of why; the page says it as the search page does.
      if (!request.signal.aborted) show(`The request failed: the server could not be reached (${error.message}). Check that it is running and try again.`);
    }
  };
  const send = element('button', { type: 'button', textContent: 'Send' });
  send.addEventListener('click', () => sendAs(method));
  const sendHead = head ? element('button', { type: 'button', textContent: 'HEAD (headers only)' }) : null;
  sendHead?.addEventListener('click', () => sendAs('head'));
  const responses = Object.entries(operation.responses ?? {}).map(([status, r]) =>
    element('details', {}, element('summary', { textContent: `${status} ${r.description ?? ''}` }), element('pre', { textContent: JSON.stringify(r.content?.['application/json']?.schema ?? r.content ?? {}, null, 2) })),
  );
  const badge = head ? element('span', { className: 'also-head', textContent: 'head', title: 'Also answers HEAD: the headers of GET, without its body' }) : '';
  return element(
    'details',
    { className: 'operation' },
    element('summary', {}, element('span', { className: 'method' }, method, head ? ' ' : '', badge), element('code', { textContent: path }), element('span', { textContent: operation.summary ?? '' })),
    operation.description ? element('p', { textContent: operation.description }) : '',
    rows.length ? fieldTable(rows) : '',
    body || form ? element('p', {}, element('strong', { textContent: 'Body' }), ` (${body ? 'application/json' : 'multipart/form-data'})`) : '',
    body ?? '',
    form ? fieldTable(form.rows) : '',
    element('p', {}, send, sendHead ? ' ' : '', sendHead ?? ''),
    output,
    said,
    element('h3', { textContent: 'Responses' }),
    ...responses,
    head ? headView(head) : '',
  );
}

async function main() {
  const tokenInput = document.querySelector('#docs-token');
  tokenInput.value = accessToken.get();
  const tokenMessage = document.querySelector('#docs-token-message');
  tokenInput.addEventListener('change', () => {
    const token = tokenInput.value.trim();
    const problem = tokenProblem(token);
    // A token no request could carry is not kept: every "Send" would fail in the browser before reaching the server.
    accessToken.set(problem ? '' : token);
    tokenMessage.textContent = problem;
  });
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
        // A HEAD is tried from its GET's entry (same path, same parameters): see operationView.
        byTag.get(tag).push(operationView(path, method, item[method], method === 'get' ? item.head : undefined));
      }
    }
    container.replaceChildren(...[...byTag].flatMap(([tag, views]) => [element('h2', { textContent: tag }), ...views]));
  } catch (error) {
    container.replaceChildren(element('p', { role: 'alert', textContent: `The OpenAPI document could not be loaded (${error.message}).` }));
  }
}

void main();
