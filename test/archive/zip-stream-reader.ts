/**
 * Java's ZipInputStream, a reader that goes front to back and never reads the central directory
 * (ZipStreamList.java, compiled once per test file into a temporary directory).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';

export const HAS_JAVA = ['/usr/bin/java', '/usr/bin/javac'].every((tool) => existsSync(tool));
export const NO_JAVA = 'SKIPPED: no java and javac in /usr/bin to run java.util.zip.ZipInputStream';

export interface StreamedEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  bytes: number;
  /** CRC-32 of the bytes read, as Java computes it. */
  crc: number;
}

const SOURCE = fileURLToPath(new URL('./ZipStreamList.java', import.meta.url));
let compiled: Promise<string> | undefined;

/** The entries ZipInputStream reads from the ZIP streamed in; rejects with Java's message when it refuses the ZIP. */
export async function readWithZipInputStream(zip: Readable): Promise<StreamedEntry[]> {
  compiled ??= mkdtemp(path.join(tmpdir(), 'zip-stream-list-')).then((dir) => {
    execFileSync('/usr/bin/javac', ['-d', dir, SOURCE]);
    return dir;
  });
  const java = spawn('/usr/bin/java', ['-cp', await compiled, 'ZipStreamList'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  java.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  java.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<number | null>((resolve) => java.once('close', resolve));
  // Java stops reading when it refuses the ZIP: the pipe breaking then is no failure of ours, its exit says what happened.
  await pipeline(zip, java.stdin).catch(() => {});
  const code = await exited;
  if (code !== 0) throw new Error(`ZipInputStream refused the ZIP: ${stderr.split('\n')[0]}`);
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [name, method, bytes, crc] = line.split('\t');
      return { name: name!, method: Number(method), bytes: Number(bytes), crc: Number(crc) };
    });
}
