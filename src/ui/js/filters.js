// The filter panel: dates, article types with counts, authors and journals with type-ahead, topic and region chips.
import { getJson } from './api.js';
import { combobox } from './combobox.js';
import { isolated, parenthesizedIdentifier } from './results.js';
import { emptyFilters, isBlank } from './state.js';

const ISSN = /\b\d{4}-\d{3}[\dXx]\b/;

/** The check character an ISSN's first seven digits call for (ISO 3297: weights 8 to 2, modulo 11). */
function issnCheckCharacter(issn) {
  const digits = issn.replace('-', '').slice(0, 7);
  const sum = [...digits].reduce((total, digit, i) => total + Number(digit) * (8 - i), 0);
  const check = (11 - (sum % 11)) % 11;
  return check === 10 ? 'X' : String(check);
}
const SUGGESTION_LIMIT = 8;
/**
 * A date typed digit by digit is a valid date at each digit of its year (0002, 0020, 0201, 2015): the
 * dates apply once the fields have been left alone this long, not as a history entry and a search per digit.
 */
const DATE_SETTLE_MS = 600;
/** A date as typing completes one: a four-digit year from 1000 on; 0002 is a year still being typed, not one meant. */
const COMPLETE_DATE = /^[1-9]\d{3}-\d{2}-\d{2}$/;

/**
 * What a date field gives the filters: its date once complete, '' once emptied, else (a day or a year half typed,
 * which Chromium reports as badInput, or a year under 1000) the date applied before, until typing completes it.
 */
function dateOf(field, applied) {
  if (COMPLETE_DATE.test(field.value) || (field.value === '' && !field.validity.badInput)) return field.value;
  return applied;
}

/** Journal ISSN -> name, learnt from suggestions and results, so chips can show names. */
export const journalNames = new Map();

/**
 * Wires the panel. onChange(filters) is called with the new filters after every change;
 * render(filters) shows given filters (from the URL) without calling onChange; settle() takes in
 * dates typed but not applied yet (null when there are none), for a search or Ask started meanwhile.
 * viewSignal() is the signal of the view on screen, aborted once another view replaces it. onNotice(text) says what
 * is no failure.
 */
export function createFilters(root, { onChange, onError, onNotice, viewSignal }) {
  let current = emptyFilters();
  const dateFrom = root.querySelector('#date-from');
  const dateTo = root.querySelector('#date-to');
  let dateTimer = 0;

  /** The dates in the fields while their delay runs (it is cancelled: the caller applies them now), else null. */
  const typedDates = () => {
    if (!dateTimer) return null;
    clearTimeout(dateTimer);
    dateTimer = 0;
    return { date_from: dateOf(dateFrom, current.date_from), date_to: dateOf(dateTo, current.date_to) };
  };

  // Any change takes typed dates along: their delay ending later would otherwise replace this change's view.
  const change = (patch) => {
    current = { ...current, ...typedDates(), ...patch };
    render(current);
    onChange(current);
  };

  const changeDates = () => {
    clearTimeout(dateTimer);
    // Both fields: a change of one within the delay of the other's must not drop the other's.
    dateTimer = setTimeout(() => {
      const dates = typedDates();
      // A date still incomplete when typing paused changes nothing, so it makes no view of its own.
      if (dates.date_from !== current.date_from || dates.date_to !== current.date_to) change(dates);
    }, DATE_SETTLE_MS);
  };
  dateFrom.addEventListener('change', changeDates);
  dateTo.addEventListener('change', changeDates);

  const typeList = root.querySelector('#type-list');
  typeList.addEventListener('change', () => {
    change({ article_types: [...typeList.querySelectorAll('input:checked')].map((box) => box.value) });
  });

  const addTo = (key, value) => {
    if (!isBlank(value) && !current[key].includes(value)) change({ [key]: [...current[key], value] });
  };

  /**
   * Free text typed into a type-ahead field and entered: the option `choose` takes among the server's suggestions for
   * it, for the view it was typed in, or a sentence saying none matches (a partial name or a typo matches no article,
   * and as a chip would only make the count 0). Once another view has replaced that one (Back, another filter, a
   * search), the answer is not added to it, nor its failure said over it.
   */
  const addSuggested = async (key, fetchOptions, text, choose, nothing) => {
    const signal = viewSignal();
    try {
      const chosen = choose(await fetchOptions(text, signal));
      if (signal.aborted) return;
      if (chosen) addTo(key, chosen.value);
      else onError(nothing);
    } catch (error) {
      if (!signal.aborted) onError(error.message);
    }
  };

  const authorOptions = async (text, signal) =>
    (await getJson('/suggestions/author', { name: text, limit: SUGGESTION_LIMIT }, { signal, fieldNames: { name: 'Authors' } })).map((s) => ({
      value: s.name,
      label: s.name,
      count: s.docs_in_db,
    }));
  combobox({
    input: root.querySelector('#author-input'),
    listbox: root.querySelector('#author-options'),
    fetchOptions: authorOptions,
    onPick: (option, text) => {
      if (option) return addTo('authors', option.value);
      // The name as typed when an author has it (letter case aside), else the best match.
      const typed = text.toLocaleLowerCase();
      void addSuggested('authors', authorOptions, text, (options) => options.find((o) => o.value.toLocaleLowerCase() === typed) ?? options[0], `No author's name holds "${text}".`);
    },
  });

  const journalOptions = async (text, signal) =>
    (await getJson('/suggestions/journal', { keywords: text, limit: SUGGESTION_LIMIT }, { signal, fieldNames: { keywords: 'Journals' } })).map((s) => {
      journalNames.set(s.journal_issn, s.journal_name);
      return { value: s.journal_issn, label: s.journal_name, identifier: s.journal_issn, count: s.docs_in_db };
    });
  combobox({
    input: root.querySelector('#journal-input'),
    listbox: root.querySelector('#journal-options'),
    fetchOptions: journalOptions,
    onPick: (option, text) => {
      if (option) return addTo('journals', option.value);
      const issn = ISSN.exec(text)?.[0]?.toUpperCase();
      if (issn && issn.endsWith(issnCheckCharacter(issn))) return addTo('journals', issn);
      // An ISSN whose check character is wrong is kept only as a journal of this index has it (stored metadata may
      // carry such an ISSN, and the filter matches it): otherwise it is a typo, which would match nothing.
      if (issn) {
        const nothing = `${issn} is no valid ISSN (its last character would be ${issnCheckCharacter(issn)}), and no journal here has it.`;
        return void addSuggested('journals', journalOptions, issn, (options) => options.find((o) => o.value === issn), nothing);
      }
      void addSuggested('journals', journalOptions, text, (options) => options[0], `No journal matches "${text}".`);
    },
  });

  for (const key of ['topics', 'regions']) {
    const input = root.querySelector(`[data-filter="${key}"] input`);
    input.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      event.preventDefault();
      const value = input.value.trim();
      input.value = '';
      addTo(key, value);
    });
  }

  /** True when no filter is set and neither date field holds anything, typed or half typed. */
  const nothingToClear = () =>
    !dateTimer &&
    JSON.stringify(current) === JSON.stringify(emptyFilters()) &&
    [dateFrom, dateTo].every((field) => field.value === '' && !field.validity.badInput);

  root.querySelector('#clear-filters').addEventListener('click', () => {
    // The view stays, and the press is answered: the same view made anew had announced its same results as news.
    if (nothingToClear()) return onNotice('No filter is set: there is nothing to clear.');
    change(emptyFilters());
  });

  function render(filters) {
    current = filters;
    dateFrom.value = filters.date_from;
    dateTo.value = filters.date_to;
    const listed = new Set([...typeList.querySelectorAll('input')].map((box) => box.value));
    if (filters.article_types.some((type) => !listed.has(type))) renderTypes();
    for (const box of typeList.querySelectorAll('input')) box.checked = filters.article_types.includes(box.value);
    for (const key of ['authors', 'journals', 'topics', 'regions']) {
      const chips = root.querySelector(`[data-filter="${key}"] .chips`);
      chips.replaceChildren(...filters[key].map((value) => chip(key, value, () => {
        change({ [key]: current[key].filter((v) => v !== value) });
        // The button is gone: keep keyboard users in the same filter.
        root.querySelector(`[data-filter="${key}"] input`).focus();
      })));
    }
  }

  /** Article types with their counts in the whole index (from /suggestions/article_types); null until they arrive. */
  let indexTypes = null;

  function setArticleTypes(types) {
    indexTypes = types;
    renderTypes();
  }

  /** The index's types, then any chosen type it lacks (a link made on another server): shown with 0, so it can be seen and unchecked. */
  function renderTypes() {
    if (!indexTypes) return void typeList.replaceChildren();
    const listed = new Set(indexTypes.map((type) => type.article_type));
    const unknown = current.article_types.filter((type) => !listed.has(type)).map((type) => ({ article_type: type, docs_in_db: 0 }));
    typeList.replaceChildren(
      ...[...indexTypes, ...unknown].map(({ article_type: type, docs_in_db: count }) => {
        const label = document.createElement('label');
        const box = document.createElement('input');
        box.type = 'checkbox';
        box.value = type;
        box.checked = current.article_types.includes(type);
        const name = document.createElement('bdi');
        name.textContent = type;
        // The number is seen; "31 articles" is what is read (an aria-label on a plain span is not), once.
        const counter = document.createElement('span');
        counter.className = 'count';
        counter.textContent = String(count);
        counter.setAttribute('aria-hidden', 'true');
        const spoken = document.createElement('span');
        spoken.className = 'visually-hidden';
        spoken.textContent = ` ${count} article${count === 1 ? '' : 's'}`;
        label.append(box, name, counter, spoken);
        return label;
      }),
    );
  }

  function settle() {
    const dates = typedDates();
    if (!dates || (dates.date_from === current.date_from && dates.date_to === current.date_to)) return null;
    current = { ...current, ...dates };
    return current;
  }

  return { render, setArticleTypes, settle };
}

const SINGULAR = { authors: 'author', journals: 'journal', topics: 'topic', regions: 'region' };

function chip(key, value, onRemove) {
  const item = document.createElement('li');
  const named = key === 'journals' && journalNames.has(value);
  const text = named ? `${journalNames.get(value)} (${value})` : value;
  const label = document.createElement('bdi');
  // A journal's name and its ISSN each in an isolate: a direction control in the name cannot reverse the ISSN.
  if (named) label.append(isolated(journalNames.get(value)), ' ', parenthesizedIdentifier(value));
  else label.textContent = text;
  const remove = document.createElement('button');
  remove.type = 'button';
  remove.textContent = '×';
  remove.setAttribute('aria-label', `Remove ${SINGULAR[key]} ${text}`);
  remove.addEventListener('click', onRemove);
  item.append(label, remove);
  return item;
}
