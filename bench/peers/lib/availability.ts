/**
 * Whether each peer can run on this machine, checked before any work: a peer
 * that bench/peers/install.sh could not install here is skipped with one clear
 * line, instead of failing in every phase of a run that may last an hour.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { PeerName } from './config.js';

/** What the checks ask of the machine; tests give one with things missing. */
export interface Probe {
  /** The command starts and exits with status 0. */
  runs(command: string, args: readonly string[]): boolean;
  exists(file: string): boolean;
  /** File names in /usr/share/java (Debian's jars). */
  javaLibraries(): string[];
}

/** Debian's jars the Lucene peer needs, by name prefix (liblucene8-java names them 8.7.0). */
export const LUCENE_JARS = ['lucene-core-8', 'lucene-analyzers-common-8', 'lucene-queries-8'] as const;

export const luceneJar = (prefix: string, names: readonly string[]) => names.find((name) => name.startsWith(prefix) && /\d\.jar$/.test(name));

const HOW_TO_INSTALL = 'run bench/peers/install.sh';

/** Why `peer` cannot run here, or null when it can. */
export function missingPrerequisite(peer: PeerName, probe: Probe): string | null {
  switch (peer) {
    case 'engine':
    case 'engine-http':
      return null; // this checkout
    case 'lucene': {
      if (!probe.runs('java', ['-version'])) return `'java -version' fails: no Java on PATH (Debian default-jdk-headless): ${HOW_TO_INSTALL}`;
      const names = probe.javaLibraries();
      const missing = LUCENE_JARS.filter((prefix) => !luceneJar(prefix, names));
      return missing.length ? `${missing.map((prefix) => `${prefix}*.jar`).join(', ')} not in /usr/share/java (Debian liblucene8-java): ${HOW_TO_INSTALL}` : null;
    }
    case 'xapian':
      return probe.runs('/usr/bin/python3', ['-c', 'import xapian'])
        ? null
        : `/usr/bin/python3 cannot import xapian (Debian python3-xapian): ${HOW_TO_INSTALL}`;
    case 'sqlite-fts5':
      return probe.runs('/usr/bin/python3', ['-c', "import sqlite3; sqlite3.connect(':memory:').execute('create virtual table t using fts5(x)')"])
        ? null
        : `/usr/bin/python3 has no SQLite with FTS5 (Debian python3, libsqlite3-0): ${HOW_TO_INSTALL}`;
    case 'minisearch':
    case 'orama': {
      const name = peer === 'minisearch' ? 'minisearch' : '@orama/orama';
      return probe.exists(path.resolve('bench', 'peers', 'node_modules', name, 'package.json'))
        ? null
        : `${name} is not in bench/peers/node_modules: ${HOW_TO_INSTALL}`;
    }
  }
}

export const machineProbe: Probe = {
  runs: (command, args) => spawnSync(command, args, { stdio: 'ignore', timeout: 60_000 }).status === 0,
  exists: existsSync,
  javaLibraries: () => (existsSync('/usr/share/java') ? readdirSync('/usr/share/java') : []),
};
