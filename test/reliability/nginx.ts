/**
 * Debian's nginx running a sample configuration of docs/DEPLOY.md in front of local servers, in a prefix
 * directory of its own: the upstream and listen addresses are rewritten, the rest is the sample as shipped.
 * docs/deploy/nginx-replicas.conf (the replica tests and bench:replicas) and docs/deploy/nginx-prefix.conf.
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
export function startBalancer(prefix: string, port: number, upstreamPorts: readonly [number, number]): Promise<Balancer> {
  return startSample('docs/deploy/nginx-replicas.conf', prefix, port, upstreamPorts, '/healthz');
}

/** Starts nginx on `port` serving the server on `upstreamPort` under /lit (docs/deploy/nginx-prefix.conf). */
export function startPrefixProxy(prefix: string, port: number, upstreamPort: number): Promise<Balancer> {
  return startSample('docs/deploy/nginx-prefix.conf', prefix, port, [upstreamPort], '/lit/healthz');
}

/** Runs a sample configuration with its upstream addresses (127.0.0.1:8081, :8082) and its listen address rewritten. */
async function startSample(file: string, prefix: string, port: number, upstreamPorts: readonly number[], probe: string): Promise<Balancer> {
  const sample = await readFile(file, 'utf8');
  let config = sample.replace('listen 8080;', `listen 127.0.0.1:${port};`);
  upstreamPorts.forEach((upstream, i) => (config = config.replace(`127.0.0.1:${8081 + i}`, `127.0.0.1:${upstream}`)));
  if (config.includes('listen 8080;') || upstreamPorts.some((upstream) => !config.includes(`127.0.0.1:${upstream}`))) {
    throw new Error(`${file} no longer has the addresses this helper rewrites`);
  }
  await mkdir(path.join(prefix, 'logs'), { recursive: true });
  await writeFile(path.join(prefix, 'nginx.conf'), config);
  const globals = `pid ${prefix}/nginx.pid; error_log ${prefix}/logs/error.log;`;
  execFileSync(NGINX, ['-t', '-p', prefix, '-c', 'nginx.conf', '-g', globals], { stdio: 'pipe' });
  const nginx = spawn(NGINX, ['-p', prefix, '-c', 'nginx.conf', '-g', `daemon off; ${globals}${process.getuid?.() === 0 ? ' user root;' : ''}`], { stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  await untilAnswering(`${base}${probe}`).catch((error: unknown) => {
    nginx.kill('SIGKILL');
    throw error;
  });
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
