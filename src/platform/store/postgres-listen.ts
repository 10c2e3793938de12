/**
 * The PostgreSQL store's LISTEN connection, one per server: it hands the notices other servers' writes
 * send on commit to this server's listeners, checks itself with a heartbeat, and after a loss connects
 * again, backing off, then tells every listener `*` (notices may have been lost meanwhile).
 */
import pg from 'pg';
import { CONNECT_TIMEOUT_MS, connectionConfig } from './connection-config.js';
import type { AnnounceListener, StoreLogger } from './store.js';

/** The LISTEN connection's first reconnection delay, doubled after each failure up to the maximum. */
const RECONNECT_MS = 1000;
const MAX_RECONNECT_MS = 30_000;
/**
 * How often the LISTEN connection is asked a `SELECT 1`. It only ever receives, so without this a
 * connection cut silently (a firewall or NAT forgetting an idle connection, a host gone without a
 * reset) would go unnoticed, and with it every later notice; a heartbeat still unanswered at the next
 * one counts as a lost connection. The traffic also keeps such middleboxes from forgetting it.
 */
const HEARTBEAT_MS = 30_000;

/** The PostgreSQL channel of a store channel: what a write NOTIFYs and the connection LISTENs to. */
export const channelName = (channel: string) => `litserve_${channel}`;

/** This server's listeners: the channels they listen to, and a call of every listener of a channel. */
interface LocalListeners {
  channels(): Iterable<string>;
  notify(channel: string, key: string): Promise<unknown>;
}

/** One connection of the LISTEN connection's life, and its heartbeat once it listens. */
interface Connection {
  client: pg.Client;
  heartbeat?: NodeJS.Timeout;
}

export class ListenConnection {
  /** The connection listening, or null between a loss and the next connection. */
  private current: Connection | null = null;
  private closed = false;
  /** Reconnections failed in a row: a database that stays down is retried ever less often, and logged once. */
  private failedReconnections = 0;

  constructor(
    private readonly url: string,
    private readonly listeners: LocalListeners,
    private readonly logger: StoreLogger,
    private readonly heartbeatMs = HEARTBEAT_MS,
  ) {}

  /**
   * Connects and listens to every channel listened to; rejects when the database cannot be reached, leaving
   * what follows to the caller (a refused start, or the next attempt after the back-off).
   */
  async connect(): Promise<void> {
    if (this.closed) return;
    const connection: Connection = { client: new pg.Client({ ...connectionConfig(this.url), connectionTimeoutMillis: CONNECT_TIMEOUT_MS }) };
    const { client } = connection;
    client.on('notification', (notice) => {
      const channel = notice.channel.replace(/^litserve_/, '');
      void this.listeners.notify(channel, notice.payload ?? '*').catch((error: Error) => this.logger.warn(`platform store: reloading after a notice failed: ${error.message}`));
    });
    // A loss once connected (reconnect ignores a connection that is not the current one).
    client.on('error', (error) => this.reconnect(connection, error.message));
    client.on('end', () => this.reconnect(connection, 'closed'));
    try {
      await client.connect();
    } catch (error) {
      void client.end().catch(() => undefined);
      throw error;
    }
    // Closed while connecting: the store is gone, and this connection would keep the process alive.
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.current = connection;
    try {
      for (const channel of this.listeners.channels()) await client.query(`LISTEN ${channelName(channel)}`);
    } catch (error) {
      // A hot standby refuses LISTEN (during recovery) on a connection it accepted: asked again after the
      // back-off, until it is promoted, as a database that is away.
      return this.reconnect(connection, (error as Error).message);
    }
    connection.heartbeat = this.heartbeat(connection);
    if (this.failedReconnections > 0) this.logger.info('platform store: LISTEN connection restored');
    this.failedReconnections = 0;
    // Whatever changed while no connection listened. A listener failing leaves the others to reload.
    for (const channel of this.listeners.channels()) {
      await this.listeners
        .notify(channel, '*')
        .catch((error: Error) => this.logger.warn(`platform store: reloading ${channel} after the LISTEN connection was restored failed: ${error.message}`));
    }
  }

  /**
   * Listens to `channel` too, then calls `listener` with `*`: a change committed before LISTEN took effect
   * would otherwise be missed. Refused (a hot standby) or lost: the reconnection listens to every channel,
   * this one too.
   */
  listenTo(channel: string, listener: AnnounceListener): void {
    const connection = this.current;
    if (!connection) return;
    void connection.client
      .query(`LISTEN ${channelName(channel)}`)
      .then(
        () => listener('*'),
        (error: Error) => this.reconnect(connection, error.message),
      )
      .catch((error: Error) => this.logger.warn(`platform store: reloading after LISTEN ${channel} failed: ${error.message}`));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.current?.client.end().catch(() => undefined);
  }

  /** A `SELECT 1` every heartbeatMs; one still unanswered at the next counts as a lost connection. */
  private heartbeat(connection: Connection): NodeJS.Timeout {
    let unanswered = false;
    const heartbeat = setInterval(() => {
      if (this.closed) return clearInterval(heartbeat);
      if (unanswered) return this.reconnect(connection, 'no answer to a heartbeat');
      unanswered = true;
      connection.client.query('SELECT 1').then(
        () => void (unanswered = false),
        (error: Error) => this.reconnect(connection, error.message),
      );
    }, this.heartbeatMs);
    heartbeat.unref();
    return heartbeat;
  }

  /** Drops `connection`, if it is still the one listening, and connects again after the back-off. */
  private reconnect(connection: Connection, reason: string): void {
    if (this.closed || this.current !== connection) return;
    this.current = null;
    clearInterval(connection.heartbeat);
    // Ends the connection even when it is the one that stopped answering (pg destroys the socket under a pending query).
    void connection.client.end().catch(() => undefined);
    if (this.failedReconnections === 0) this.logger.warn(`platform store: LISTEN connection lost (${reason}); reconnecting`);
    this.connectAfterBackOff();
  }

  /** Another attempt after the back-off, and so on until one connects or the store closes. */
  private connectAfterBackOff(): void {
    const delay = Math.min(MAX_RECONNECT_MS, RECONNECT_MS * 2 ** this.failedReconnections);
    this.failedReconnections++;
    setTimeout(() => void this.connect().catch(() => this.connectAfterBackOff()), delay).unref();
  }
}
