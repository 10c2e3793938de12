/**
 * Debian's nginx running the sample configuration of docs/DEPLOY.md
 * (docs/deploy/nginx-replicas.conf) in front of local replicas, in a prefix
 * directory of its own: the upstream and listen addresses are rewritten, the
 * rest is the sample as shipped. Used by the replica tests and bench:replicas.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const NGINX = '/usr/sbin/nginx';

export const nginxMissing = (): string | null => (existsSync(NGINX) ? null : 'nginx is not installed (apt-get install nginx)');

export interface Balancer {
  base: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts nginx on `port` in front of the servers on `upstreamPorts` (the sample names two; both lines are rewritten). */
export async function startBalancer(prefix: string, port: number, upstreamPorts: readonly [number, number]): Promise<Balancer> {
  const sample = await readFile('docs/deploy/nginx-replicas.conf', 'utf8');
  const config = sample
    .replace('127.0.0.1:8081', `127.0.0.1:${upstreamPorts[0]}`)
    .replace('127.0.0.1:8082', `127.0.0.1:${upstreamPorts[1]}`)
    .replace('listen 8080;', `listen 127.0.0.1:${port};`);
  if (config === sample) throw new Error('docs/deploy/nginx-replicas.conf no longer has the addresses this helper rewrites');
  await mkdir(path.join(prefix, 'logs'), { recursive: true });
  await writeFile(path.join(prefix, 'nginx.conf'), config);
  const globals = `pid ${prefix}/nginx.pid; error_log ${prefix}/logs/error.log;`;
  execFileSync(NGINX, ['-t', '-p', prefix, '-c', 'nginx.conf', '-g', globals], { stdio: 'pipe' });
  const nginx = spawn(NGINX, ['-p', prefix, '-c', 'nginx.conf', '-g', `daemon off; ${globals}${process.getuid?.() === 0 ? ' user root;' : ''}`], { stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  await untilAnswering(`${base}/healthz`);
  return {
    base,
    pid: nginx.pid!,
    stop: async () => {
      if (nginx.exitCode !== null || nginx.signalCode !== null) return;
      nginx.kill('SIGTERM');
      await new Promise((resolve) => nginx.once('exit', resolve));
    },
  };
}

async function untilAnswering(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} never answered`);
}
