// The archive cart in this tab's storage: the whole cart as it was at some point, and a log of the changes since.
// Rewriting the whole cart on each click had cost a second with 6,000 long ids; a click now writes one change, and
// the whole cart is rewritten only after as many changes as it holds articles (or 100), which spreads that cost.
import { tabStorage } from './tab-storage.js';

/** The whole cart: [article_id, title] pairs in the order added (the cart's only key before the log; still read so). */
const WHOLE_CART_KEY = 'litserve.cart';
/** How many changes are logged after the whole cart (absent: none). */
const CHANGE_COUNT_KEY = 'litserve.cart.changes';
/** The n-th change: [article_id, title] added, or [article_id] removed. */
const changeKey = (n) => `litserve.cart.change.${n}`;
/** The fewest changes logged before the whole cart is rewritten: a small cart is cheap to rewrite, but not at each click. */
const MIN_CHANGES_BETWEEN_REWRITES = 100;

const changesBetweenRewrites = (cart) => Math.max(MIN_CHANGES_BETWEEN_REWRITES, cart.size);

/** The cart with one change made: `title` adds the article, none removes it. */
function cartWith(cart, [id, title]) {
  const changed = new Map(cart);
  if (title === undefined) changed.delete(id);
  else changed.set(id, title);
  return changed;
}

/**
 * The stored cart and its logged changes, or null when what is stored is no such thing (written by hand, or by
 * another version of the page): that had stopped the page as it loaded.
 */
function readStoredCart() {
  try {
    const pairs = JSON.parse(tabStorage.getItem(WHOLE_CART_KEY) ?? '[]');
    const isPair = (pair) => Array.isArray(pair) && pair.length === 2 && pair.every((part) => typeof part === 'string');
    if (!Array.isArray(pairs) || !pairs.every(isPair)) return null;
    const changes = Number(tabStorage.getItem(CHANGE_COUNT_KEY) ?? 0);
    if (!Number.isSafeInteger(changes) || changes < 0) return null;
    let cart = new Map(pairs);
    for (let n = 0; n < changes; n++) {
      const change = JSON.parse(tabStorage.getItem(changeKey(n)));
      const isChange = Array.isArray(change) && (change.length === 1 || change.length === 2) && change.every((part) => typeof part === 'string');
      if (!isChange) return null;
      cart = cartWith(cart, change);
    }
    return { cart, changes };
  } catch {
    return null;
  }
}

/**
 * Opens the cart kept in this tab. `cart` is article_id -> title in the order added, or null when the stored cart
 * could not be read (it is dropped: the cart starts empty). `store(cart, id, title)` keeps `cart` with the article
 * added (`title` given) or removed; it throws what the storage threw (a full one: QuotaExceededError), the stored
 * cart left as it was.
 */
export function openCartStorage() {
  const stored = readStoredCart();
  if (!stored) {
    // Changes logged after it would be read onto it again.
    tabStorage.removeItem(WHOLE_CART_KEY);
    tabStorage.removeItem(CHANGE_COUNT_KEY);
  }
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

  const store = (cart, id, title) => {
    const change = title === undefined ? [id] : [id, title];
    if (changes >= nextRewrite) {
      try {
        return writeWhole(cartWith(cart, change));
      } catch {
        // No room for a second copy of the cart beside the log: the log goes on, and the rewrite is tried later.
        nextRewrite = changes + changesBetweenRewrites(cart);
      }
    }
    try {
      return logChange(change);
    } catch (error) {
      // A full storage. Without the log the whole cart fits where the log was, so a removal can still be kept.
      const hadLog = changes > 0;
      clearLog();
      try {
        writeWhole(cartWith(cart, change));
      } catch {
        if (hadLog) writeWhole(cart);
        throw error;
      }
    }
  };

  return { cart: stored?.cart ?? null, store };
}
