/**
 * Preloaded into a command (`node --import`) by tests that want its progress lines off a terminal: each reading of
 * Date.now is a minute after the one before, so every step counts as long (progress.ts prints lines only for steps
 * over 10 s) however short the test's input makes it. Plain JavaScript: the compiled command preloads it without tsx.
 */
const realNow = Date.now;
let minutesAhead = 0;
Date.now = () => realNow() + 60_000 * minutesAhead++;
