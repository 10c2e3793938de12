/**
 * The watchdog of a throw-away cluster (cluster.ts, stopAndRemoveEvenIfKilled): stops the server on DATA
 * and removes DIR once the process that started it is gone, however it went. That process holds the
 * other end of this one's stdin, which the kernel closes when it dies, SIGKILL included; so no pid is
 * polled (nor a reused one taken for it). A process done with its cluster kills its watchdog instead.
 *
 *   node --import tsx test/postgres/cluster-watchdog.ts DATA DIR
 */
import { postgresRunner, stopAndRemove } from './cluster.js';

const [data, dir] = process.argv.slice(2) as [string, string];
process.stdin.once('close', stopAndRemove(postgresRunner(), data, dir));
// Nothing is ever written to it; reading is what lets its end be seen.
process.stdin.resume();
