/**
 * Bounds on open connections. Every connection holds a file descriptor from its first byte, and
 * Node's timeouts cut a connection that sends its headers slowly only after a minute: 21,000
 * connections from one address, each sending `GET /hea`, would hold every descriptor of the process
 * (health checks unanswered, the index watch and uploads failing with EMFILE). A total below the
 * open-file limit keeps descriptors for files; a cap per address keeps one client from taking them all
 * (an IPv6 address counts as its /64, see clientKey, so rotating addresses in it gains nothing).
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { clientKey } from './client-address.js';

interface ConnectionLimits {
  /** Connections open at once; null for 80% of the open-file limit (none where it cannot be read). */
  total: number | null;
  /** Connections one address (an IPv6 one: its /64) may hold open; 0 = no limit. */
  perClient: number;
}

/** The share of the open-file limit connections may take by default: the rest is for index files, the store, uploads. */
const CONNECTIONS_SHARE_OF_FILES = 0.8;
/** At most one line a minute says connections are being refused: a flood would otherwise flood the log. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;

/** The bound on connections in force: the one set, else 80% of the open-file limit; null for none. */
export function connectionsInForce(configured: number | null): number | null {
  return configured ?? defaultTotal();
}

export function limitConnections(server: Server, limits: ConnectionLimits, log: FastifyBaseLogger): void {
  const total = connectionsInForce(limits.total);
  if (total !== null) server.maxConnections = total;
  if (limits.perClient <= 0) return;
  const openByAddress = new Map<string, number>();
  let refused = 0;
  let lastReport = -Infinity;
  server.on('connection', (socket) => {
    const address = clientKey(socket.remoteAddress);
    const open = openByAddress.get(address) ?? 0;
    if (open >= limits.perClient) {
      socket.destroy();
      refused++;
      if (Date.now() - lastReport >= REFUSAL_LOG_INTERVAL_MS) {
        lastReport = Date.now();
        log.warn({ address, refused }, `connections refused: ${address} already holds ${open} (--max-connections-per-client)`);
        refused = 0;
      }
      return;
    }
    openByAddress.set(address, open + 1);
    socket.once('close', () => {
      const left = openByAddress.get(address)! - 1;
      if (left === 0) openByAddress.delete(address);
      else openByAddress.set(address, left);
    });
  });
}

/** 80% of the process's soft open-file limit, read from /proc (Linux); null elsewhere. */
function defaultTotal(): number | null {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const soft = /^Max open files\s+(\d+|unlimited)/m.exec(limits)?.[1];
    if (soft === undefined || soft === 'unlimited') return null;
    return Math.max(1, Math.floor(Number(soft) * CONNECTIONS_SHARE_OF_FILES));
  } catch {
    return null;
  }
}
