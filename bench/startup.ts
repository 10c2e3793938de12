/**
 * Start time and memory of the production start, before and after it ran
 * compiled JavaScript (npm run bench:startup -> bench/results/startup.md).
 *
 * Variants, interleaved round by round on the same prebuilt demo index:
 * - before: the former `npm start` script, `tsx src/main.ts serve`, run on
 *   the sources of the merge base with main (exported with git archive);
 * - after: today's `npm start` script, `node scripts/start.mjs serve`, with dist/ current;
 * - the single executable dist/litserve, warm (cache filled) and first start (empty cache).
 * Both npm scripts run through `sh -c` with node_modules/.bin on PATH, as npm
 * runs them; npm's own process (the same in both) is left out.
 * Start = spawn to the first 200 of /healthz. RSS = the whole process tree
 * (sh, tsx's esbuild helper, node), when ready and after 20 searches.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { machine, summarize, writeResults } from './lib/stats.js';
import { count } from './lib/settings.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const ROUNDS = count('ROUNDS', 5);
const work = mkdtempSync(path.join(tmpdir(), 'litserve-startup-'));

function sh(command: string, cwd = ROOT): string {
  const result = spawnSync('sh', ['-c', command], { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`${command}: ${result.stderr}`);
  return result.stdout.trim();
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Summed VmRSS (MiB) of `pid` and all its descendants. */
function treeRssMiB(pid: number): number {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const tree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, parent] of parents) if (tree.has(parent) && !tree.has(child)) (tree.add(child), (grew = true));
  }
  let kib = 0;
  for (const member of tree) {
    try {
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${member}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return kib / 1024;
}

interface Variant {
  name: string;
  command: (port: number, data: string) => string;
  cwd: string;
  env?: () => Record<string, string>;
}

interface Sample {
  startMs: number;
  readyRss: number;
  busyRss: number;
}

async function measure(variant: Variant, index: string): Promise<Sample> {
  const port = await freePort();
  const data = mkdtempSync(path.join(work, 'data-'));
  const started = performance.now();
  const child: ChildProcess = spawn('sh', ['-c', `exec ${variant.command(port, data)} --index ${index}`], {
    cwd: variant.cwd,
    env: { ...process.env, PATH: `${path.join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}`, ...variant.env?.() },
    stdio: 'ignore',
    detached: true,
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${variant.name} exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const startMs = performance.now() - started;
    const readyRss = treeRssMiB(child.pid!);
    for (let i = 0; i < 20; i++) await fetch(`http://127.0.0.1:${port}/retrieval/?query=grid%20cells%20${i}&retriever_k=50`).then((r) => r.arrayBuffer());
    return { startMs, readyRss, busyRss: treeRssMiB(child.pid!) };
  } finally {
    process.kill(-child.pid!, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    rmSync(data, { recursive: true, force: true });
  }
}

// Prepare: the sources before, dist/ and the executable now, one demo index for all.
const base = sh('git merge-base HEAD main');
const before = path.join(work, 'before');
mkdirSync(before);
sh(`git archive ${base} src package.json tsconfig.json | tar -x -C ${before}`);
symlinkSync(path.join(ROOT, 'node_modules'), path.join(before, 'node_modules'));
sh('node scripts/build-dist.mjs');
const buildStarted = performance.now();
sh('node --import tsx scripts/build-binary.ts');
const binaryBuildSeconds = (performance.now() - buildStarted) / 1000;
const binaryMiB = statSync(path.join(ROOT, 'dist', 'litserve')).size / 2 ** 20;
const index = path.join(work, 'index');
sh(`node dist/main.js ingest --input data/demo/articles.jsonl --index ${index}`);
const warmCache = path.join(work, 'warm-cache');
sh(`XDG_CACHE_HOME=${warmCache} dist/litserve --version`);

const variants: Variant[] = [
  { name: 'before: tsx src/main.ts serve', cwd: before, command: (port, data) => `tsx src/main.ts serve --port ${port} --data ${data}` },
  { name: 'after: node scripts/start.mjs serve', cwd: ROOT, command: (port, data) => `node scripts/start.mjs serve --port ${port} --data ${data}` },
  { name: 'dist/litserve, warm cache', cwd: work, command: (port, data) => `${ROOT}/dist/litserve serve --port ${port} --data ${data}`, env: () => ({ XDG_CACHE_HOME: warmCache }) },
  {
    name: 'dist/litserve, first start (empty cache)',
    cwd: work,
    command: (port, data) => `${ROOT}/dist/litserve serve --port ${port} --data ${data}`,
    env: () => ({ XDG_CACHE_HOME: mkdtempSync(path.join(work, 'cache-')) }),
  },
];

const loadBefore = os.loadavg()[0]!;
const samples = new Map<string, Sample[]>(variants.map((v) => [v.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of variants) samples.get(variant.name)!.push(await measure(variant, index));
  process.stderr.write(`round ${round + 1}/${ROUNDS}\n`);
}
rmSync(work, { recursive: true, force: true });
const load = `load average ${loadBefore.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end`;

const median = (values: number[]) => summarize(values).p50;
const rows = variants.map((v) => {
  const s = samples.get(v.name)!;
  return { name: v.name, startMs: median(s.map((x) => x.startMs)), readyRss: median(s.map((x) => x.readyRss)), busyRss: median(s.map((x) => x.busyRss)) };
});
const [was, now] = rows;
const m = machine();
const markdown = [
  '# Production start (`npm run bench:startup`)',
  '',
  `${new Date().toISOString()}, Node ${m.node}, ${m.cores} cores (${m.cpu}). Demo index (47 articles) prebuilt; default settings (search pool of ${m.cores} threads). ` +
    `${ROUNDS} rounds, the variants interleaved in each; medians. Start: spawn to the first 200 of /healthz. RSS: the whole process tree, when ready and after 20 searches. ` +
    `"before" runs the sources of ${base.slice(0, 7)} (merge base with main) as the former \`npm start\` did; npm's own process, the same for both, is not counted. Machine shared with other work (${load}): compare rows, not absolute times.`,
  '',
  '| variant | start ms | RSS ready MiB | RSS after 20 searches MiB |',
  '| --- | --- | --- | --- |',
  ...rows.map((r) => `| ${r.name} | ${r.startMs.toFixed(0)} | ${r.readyRss.toFixed(0)} | ${r.busyRss.toFixed(0)} |`),
  '',
  `**\`npm start\` after / before: start time ${(now!.startMs / was!.startMs).toFixed(2)}x, RSS when ready ${(now!.readyRss / was!.readyRss).toFixed(2)}x.**`,
  '',
  `dist/litserve: ${binaryMiB.toFixed(0)} MiB, built by \`npm run build:binary\` in ${binaryBuildSeconds.toFixed(0)} s (same machine, same load).`,
  '',
];
await writeResults('startup', { machine: m, rounds: ROUNDS, base, binaryMiB, binaryBuildSeconds, loadBefore, loadAfter: os.loadavg()[0], samples: Object.fromEntries(samples), rows }, markdown.join('\n'));
