/**
 * A writer in its own process for the lock tests: takes the index directory's
 * writer lock, says `held` (or `refused <reason>`), and keeps the lock until
 * its standard input closes.
 */
import { acquireWriteLock } from '../../src/search/write-lock.js';

const dir = process.argv[2]!;
try {
  const { release } = await acquireWriteLock(dir);
  process.stdout.write('held\n');
  process.stdin.resume();
  process.stdin.on('end', () => void release().then(() => process.exit(0)));
} catch (error) {
  process.stdout.write(`refused ${(error as Error).message}\n`);
  process.exit(3);
}
