// The archive cart in this tab's storage: the whole cart as it was at some point, and a log of the changes since.
// Rewriting the whole cart on each click had cost a second with 6,000 long ids; a click now writes one change, and
// the whole cart is rewritten only after as many changes as it holds articles (at least 100, at most 1,000), which
// spreads that cost.
// Opening the page reads the whole cart, then at most 1,000 changes logged since.
import { tabStorage } from './tab-storage.js';

/** The whole cart: [article_id, title] pairs in the order added (the cart's only key before the log; still read so). */
const WHOLE_CART_KEY = 'litserve.cart';
/** How many changes are logged after the whole cart (absent: none). */
const CHANGE_COUNT_KEY = 'litserve.cart.changes';
/** What every change's key starts with. */
const CHANGE_KEY_PREFIX = 'litserve.cart.change.';
/** The n-th change: [article_id, title] added, or [article_id] removed. */
const changeKey = (n) => `${CHANGE_KEY_PREFIX}${n}`;
/** The fewest changes logged before the whole cart is rewritten: a small cart is cheap to rewrite, but not at each click. */
const MIN_CHANGES_BETWEEN_REWRITES = 100;
/**
 * The most: a log of 10,000 changes (a full cart's count) had made opening the page about 0.5 s slower than the whole
 * cart alone, most of it the browser loading 10,000 keys; rewriting 10,000 articles (about 0.7 s) once in 1,000 clicks
 * costs a click about 1 ms on average.
 */
const MAX_CHANGES_BETWEEN_REWRITES = 1_000;

const changesBetweenRewrites = (cart) => Math.min(MAX_CHANGES_BETWEEN_REWRITES, Math.max(MIN_CHANGES_BETWEEN_REWRITES, cart.size));

/** Makes one change to `cart` and returns it: `title` adds the article, none removes it. */
function applyChange(cart, [id, title]) {
  if (title === undefined) cart.delete(id);
  else cart.set(id, title);
  return cart;
}

/** A copy of the cart with one change made. */
const cartWith = (cart, change) => applyChange(new Map(cart), change);

/** Whether `value` is an array of strings of one of `lengths`: a stored [article_id, title] pair, or a logged change. */
const isStrings = (value, ...lengths) => Array.isArray(value) && lengths.includes(value.length) && value.every((part) => typeof part === 'string');

/**
 * The stored cart and its logged changes, or null when what is stored is no such thing (written by hand, or by
 * another version of the page): that had stopped the page as it loaded.
 */
function readStoredCart() {
  try {
    const pairs = JSON.parse(tabStorage.getItem(WHOLE_CART_KEY) ?? '[]');
    if (!Array.isArray(pairs) || !pairs.every((pair) => isStrings(pair, 2))) return null;
    const changes = Number(tabStorage.getItem(CHANGE_COUNT_KEY) ?? 0);
    if (!Number.isSafeInteger(changes) || changes < 0) return null;
    // One cart takes every change: a copy per change had taken 7 s to open 10,000 articles and their longest log.
    const cart = new Map(pairs);
    for (let n = 0; n < changes; n++) {
      const change = JSON.parse(tabStorage.getItem(changeKey(n)));
      if (!isStrings(change, 1, 2)) return null;
      applyChange(cart, change);
    }
    return { cart, changes };
  } catch {
    return null;
  }
}

/** Removes every key of the stored cart, each change found included: the count of them may be what could not be read. */
function removeStoredCart() {
  const cartKeys = [];
  for (let i = 0; i < tabStorage.length; i++) {
    const key = tabStorage.key(i);
    if (key === WHOLE_CART_KEY || key === CHANGE_COUNT_KEY || key.startsWith(CHANGE_KEY_PREFIX)) cartKeys.push(key);
  }
  for (const key of cartKeys) tabStorage.removeItem(key);
}

/**
 * Opens the cart kept in this tab. `cart` is article_id -> title in the order added, or null when the stored cart
 * could not be read (it is dropped: the cart starts empty). `store(cart, id, title)` keeps `cart` with the article
 * added (`title` given) or removed; it throws what the storage threw (a full one: QuotaExceededError), the stored
 * cart left as it was.
 */
export function openCartStorage() {
  const stored = readStoredCart();
  // Changes logged after it would be read onto it again, and those left would be read onto the new cart's.
  if (!stored) removeStoredCart();
  let changes = stored?.changes ?? 0;
  /** The change count at which the whole cart is rewritten next. */
  let nextRewrite = changesBetweenRewrites(stored?.cart ?? new Map());

  const clearLog = () => {
    tabStorage.removeItem(CHANGE_COUNT_KEY);
    for (let n = 0; n < changes; n++) tabStorage.removeItem(changeKey(n));
    changes = 0;
  };

  const writeWhole = (cart) => {
    tabStorage.setItem(WHOLE_CART_KEY, JSON.stringify([...cart]));
    clearLog();
    nextRewrite = changesBetweenRewrites(cart);
  };

  const logChange = (change) => {
    tabStorage.setItem(changeKey(changes), JSON.stringify(change));
    try {
      tabStorage.setItem(CHANGE_COUNT_KEY, String(changes + 1));
    } catch (error) {
      tabStorage.removeItem(changeKey(changes));
      throw error;
    }
    changes += 1;
  };

  /**
   * Keeps `cart` with `change` made, written in place of its log, for a storage with no room for another change or for
   * the rewritten cart beside the log: without the log the whole cart fits where the log was, so a removal can still
   * be kept. Throws `error` when the change cannot be kept, the stored cart's articles as they were.
   */
  const rewriteInPlace = (cart, change, error) => {
    const hadLog = changes > 0;
    clearLog();
    try {
      writeWhole(cartWith(cart, change));
    } catch {
      if (hadLog) writeWhole(cart);
      throw error;
    }
  };

  const store = (cart, id, title) => {
    const change = title === undefined ? [id] : [id, title];
    try {
      // The rewritten cart beside the log, then the log dropped: the stored cart can be read at every step.
      return changes >= nextRewrite ? writeWhole(cartWith(cart, change)) : logChange(change);
    } catch (error) {
      // A full storage, or no room for the rewritten cart beside the log: logging on would take the log past its bound.
      return rewriteInPlace(cart, change, error);
    }
  };

  return { cart: stored?.cart ?? null, store };
}
