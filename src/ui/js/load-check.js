/**
 * A classic script, run before the page's modules load: when one of them cannot be fetched (the
 * server restarting during the load, a proxy cutting the connection), the page says so and how
 * to recover, instead of staying at "…" with nothing working. It is a file of its own because the
 * Content-Security-Policy allows no inline script or handler.
 */
addEventListener(
  'error',
  (event) => {
    // A module graph that failed to fetch fires `error` on its script element; those events do not bubble.
    const script = event.target;
    if (!(script instanceof HTMLScriptElement) || script.type !== 'module') return;
    const message = document.getElementById('message-errors');
    if (!message) return;
    // A paragraph of its own, as main.js writes every message (the error style is the paragraph's).
    const paragraph = document.createElement('p');
    paragraph.className = 'error';
    paragraph.textContent = 'Part of this page could not be loaded (the server may be restarting). Reload the page to try again.';
    message.replaceChildren(paragraph);
  },
  true,
);
