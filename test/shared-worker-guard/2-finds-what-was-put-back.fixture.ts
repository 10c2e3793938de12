/** Runs after the file that left everything behind: what vitest can put back has been. */
import { expect, it, vi } from 'vitest';

it('finds spies, stubs and fake timers gone', () => {
  expect(vi.isMockFunction(process.uptime)).toBe(false);
  expect(process.uptime()).toBeGreaterThan(0);
  expect('sharedWorkerGuardStub' in globalThis).toBe(false);
  expect(process.env.SHARED_WORKER_GUARD_STUBBED).toBeUndefined();
  expect(vi.isFakeTimers()).toBe(false);
});
