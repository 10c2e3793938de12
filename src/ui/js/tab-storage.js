// This tab's sessionStorage, where the cart and the access token are kept. A browser blocking the site's data
// refuses it: reading `sessionStorage` throws a SecurityError, which had stopped the page as it loaded. There a
// stand-in in memory keeps them while the page lasts.

function openTabStorage() {
  try {
    const storage = window.sessionStorage;
    storage.getItem('litserve.cart');
    return { storage, kept: true };
  } catch {
    const values = new Map();
    const storage = {
      getItem: (key) => values.get(key) ?? null,
      setItem: (key, value) => void values.set(key, String(value)),
      removeItem: (key) => void values.delete(key),
      get length() {
        return values.size;
      },
      key: (index) => [...values.keys()][index] ?? null,
    };
    return { storage, kept: false };
  }
}

/** getItem, setItem, removeItem, length and key of the tab's storage, or of the stand-in. */
export const { storage: tabStorage, kept: keptAcrossReloads } = openTabStorage();
