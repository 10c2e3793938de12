/** The single executable serving on a free port, isolated (isolated.ts), until stop(). */
import { spawnIsolated, type IsolatedOptions } from './isolated.js';
import { freePort } from '../reliability/server-process.js';

export interface IsolatedServer {
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

export async function startIsolatedServer(binary: string, args: string[], options: IsolatedOptions, startMs = 90_000): Promise<IsolatedServer> {
  const port = await freePort();
  const child = spawnIsolated(binary, [...args, '--port', String(port)], options);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + startMs;
  while (!output.includes('Server listening') && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (!output.includes('Server listening')) {
    await stop();
    throw new Error(`the executable did not start serving:\n${output}`);
  }
  return { url: `http://127.0.0.1:${port}`, output: () => output, stop };
}
