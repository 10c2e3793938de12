// A type-ahead text field (ARIA combobox with a listbox popup): arrows move, Enter picks, Escape closes.
import { parenthesizedIdentifier } from './results.js';
import { isBlank } from './state.js';

const DEBOUNCE_MS = 150;

/**
 * fetchOptions(text, signal) -> [{ value, label, identifier?, count }] (an identifier, an ISSN, is shown after the
 * label in parentheses); onPick(option | null, text) is called on Enter
 * (null when no option is active: the typed text as it is) and on a click on an option.
 */
export function combobox({ input, listbox, fetchOptions, onPick }) {
  let options = [];
  let active = -1;
  let timer = 0;
  let controller = null;
  // Says why no suggestion shows when they could not be had; a status, read out once when it changes.
  const note = document.createElement('p');
  note.className = 'combo-note';
  note.id = `${listbox.id}-note`;
  note.setAttribute('role', 'status');
  input.closest('.combo').after(note);
  input.setAttribute('aria-describedby', note.id);
  // A list long enough to scroll is a Tab stop of its own in Chromium: Tab from the field had gone there, and the
  // list, closing on the field's blur, took the focus with it to <body>. The field's arrows move in the list.
  listbox.tabIndex = -1;

  const close = () => {
    listbox.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    active = -1;
  };

  const setActive = (index) => {
    active = index;
    [...listbox.children].forEach((item, i) => item.setAttribute('aria-selected', String(i === index)));
    if (index >= 0) {
      const item = listbox.children[index];
      input.setAttribute('aria-activedescendant', item.id);
      item.scrollIntoView({ block: 'nearest' });
    } else {
      input.removeAttribute('aria-activedescendant');
    }
  };

  const render = () => {
    listbox.replaceChildren(
      ...options.map((option, i) => {
        const item = document.createElement('li');
        item.id = `${listbox.id}-${i}`;
        item.setAttribute('role', 'option');
        item.setAttribute('aria-selected', 'false');
        // An isolate: a right-to-left or direction-controlled name cannot reorder the count after it.
        const label = document.createElement('bdi');
        label.textContent = option.label;
        const count = document.createElement('span');
        count.className = 'option-count';
        count.textContent = `${option.count} article${option.count === 1 ? '' : 's'}`;
        item.append(label);
        // In an isolate of its own: a direction control left open in the name cannot make it read as another.
        if (option.identifier) item.append(' ', parenthesizedIdentifier(option.identifier));
        item.append(count);
        // mousedown, not click: the field must not lose focus (and close the list) first.
        item.addEventListener('mousedown', (event) => {
          event.preventDefault();
          pick(option);
        });
        return item;
      }),
    );
    listbox.hidden = options.length === 0;
    input.setAttribute('aria-expanded', String(options.length > 0));
    active = -1;
  };

  const pick = (option) => {
    const text = input.value.trim();
    // Suggestions still on their way are for the text just picked: they must not reopen the list.
    clearTimeout(timer);
    controller?.abort();
    close();
    options = [];
    input.value = '';
    onPick(option, text);
  };

  const refresh = async () => {
    controller?.abort();
    const text = input.value.trim();
    if (isBlank(text)) {
      options = [];
      note.textContent = '';
      close();
      return;
    }
    const request = new AbortController();
    controller = request;
    try {
      const found = await fetchOptions(text, request.signal);
      if (request.signal.aborted) return;
      note.textContent = '';
      options = found;
      if (document.activeElement === input) render();
    } catch (error) {
      if (error?.name === 'AbortError') return;
      note.textContent = `No suggestions. ${error.message}`;
      options = [];
      close();
    }
  };

  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, DEBOUNCE_MS);
  });
  input.addEventListener('blur', close);
  input.addEventListener('keydown', (event) => {
    const open = !listbox.hidden;
    if (event.key === 'ArrowDown' && options.length > 0) {
      event.preventDefault();
      if (!open) render();
      setActive((active + 1) % options.length);
    } else if (event.key === 'ArrowUp' && open) {
      event.preventDefault();
      setActive(active <= 0 ? options.length - 1 : active - 1);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      close();
    } else if (event.key === 'Enter') {
      event.preventDefault();
      if (open && active >= 0) pick(options[active]);
      else if (!isBlank(input.value)) pick(null);
    }
  });
}
