/** Messages that list what was expected: `a, b or c`. */
export function alternatives(items: readonly string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : (items[0] ?? '');
}
