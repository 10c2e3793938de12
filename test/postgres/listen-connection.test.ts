/**
 * The LISTEN connection's first connection failing is its caller's to decide (the store's start is refused): it
 * is not taken for a lost connection, logged and tried again behind the caller's back, on a store nobody can close.
 */
import { createServer } from 'node:net';
import { expect, test } from 'vitest';
import { ListenConnection } from '../../src/platform/store/postgres-listen.js';

test('a first connection refused rejects, and nothing is logged or tried again afterwards', async () => {
  // A port that refuses: one just freed.
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));

  const lines: string[] = [];
  const logger = { info: (message: string) => lines.push(message), warn: (message: string) => lines.push(message) };
  const listening = new ListenConnection(`postgresql://nobody@127.0.0.1:${port}/none`, { channels: () => [], notify: async () => {} }, logger);
  await expect(listening.connect()).rejects.toThrow(/ECONNREFUSED/);
  // The first reconnection would come after a second.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(lines).toEqual([]);
  await listening.close();
});
