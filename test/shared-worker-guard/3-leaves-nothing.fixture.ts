/** Changes what the guard looks at and puts each back itself: the guard has nothing to say. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { watch } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { afterAll, expect, it } from 'vitest';

const cwd = process.cwd();
const listener = () => {};
afterAll(() => {
  process.off('warning', listener);
  delete process.env.SHARED_WORKER_GUARD_TIDY;
  process.chdir(cwd);
});

it('changes the process and puts it back', async () => {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  await new Promise((closed) => server.close(closed));
  const child = spawn('true', { stdio: 'ignore' });
  await once(child, 'exit');
  watch(tmpdir()).close();
  process.on('warning', listener);
  process.env.SHARED_WORKER_GUARD_TIDY = 'yes';
  process.chdir(tmpdir());
  expect(process.cwd()).toBe(tmpdir());
});
