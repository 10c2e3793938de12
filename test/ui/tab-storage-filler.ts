/** Fills a page's tab storage (sessionStorage), the way a cart of thousands of long ids would: for the cart's full-storage tests. */
import type { Page } from 'playwright-core';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const sessionStorage: any;

/** Everything the storage takes but a few characters, in pieces that shrink as it fills: no article fits in what is left. */
export function fillTabStorage(page: Page): Promise<void> {
  return page.evaluate(() => {
    let pieces = 0;
    for (let piece = 1_000_000; piece >= 1; piece /= 10) {
      try {
        for (;;) sessionStorage.setItem(`filler-${pieces++}`, 'x'.repeat(piece));
      } catch {
        // Full for pieces this large: smaller ones may still fit.
      }
    }
  });
}
