/** Leaves behind each thing the guard looks for (and each it puts back), and passes its one test. */
import { spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { expect, it, vi } from 'vitest';

it('changes the process and leaves it so', async () => {
  await new Promise<void>((listening) => createServer().listen(0, '127.0.0.1', listening));
  spawn('sleep', ['10'], { stdio: 'ignore' });
  watch(tmpdir());
  process.on('warning', () => {});
  process.env.SHARED_WORKER_GUARD_LEFT = 'yes';
  process.chdir(tmpdir());
  process.exitCode = 0;
  vi.spyOn(process, 'uptime').mockReturnValue(-1);
  vi.stubGlobal('sharedWorkerGuardStub', 'stubbed');
  vi.stubEnv('SHARED_WORKER_GUARD_STUBBED', 'stubbed');
  vi.useFakeTimers();
  expect(process.uptime()).toBe(-1);
});
