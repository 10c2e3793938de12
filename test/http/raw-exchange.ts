/**
 * One request written to a listening server as raw bytes, and its answer read
 * off the socket: for what `fetch` and `inject` cannot send (malformed framing,
 * repeated or forbidden headers, bytes no client library writes) or cannot show
 * (the status line and headers exactly as sent, a connection closed after).
 */
import net from 'node:net';

export interface RawAnswer {
  /** Every byte received, as latin1 (one character per byte). */
  text: string;
  /** Of the first answer; 0 when none came. */
  status: number;
  /** The first answer's headers, names in lower case. */
  headers: Record<string, string>;
  /** Everything after the first answer's head. */
  body: string;
  /** Whether the server closed the connection (rather than the wait running out). */
  closed: boolean;
  seconds: number;
}

export interface RawExchangeOptions {
  /** How long to wait for the server to close the connection (default 20 s). */
  timeoutMs?: number;
  /** At the timeout or a socket error, answer what came so far rather than fail (default: fail). */
  lenient?: boolean;
  /** Half-close the connection once the request is written. */
  endAfterWrite?: boolean;
}

/** The status, headers and body of an answer's text. */
export function parseAnswer(text: string): Pick<RawAnswer, 'status' | 'headers' | 'body'> {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = text.slice(0, end < 0 ? text.length : end).split('\r\n');
  const headers = Object.fromEntries(
    headerLines.filter((line) => line.includes(':')).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
  return { status, headers, body: end < 0 ? '' : text.slice(end + 4) };
}

/** Writes `request` to `127.0.0.1:port` and reads until the server closes the connection. */
export function rawExchange(port: number, request: Buffer | string, options: RawExchangeOptions = {}): Promise<RawAnswer> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? 20_000;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(giveUp);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ text, ...parseAnswer(text), closed, seconds: (performance.now() - started) / 1000 });
    };
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(giveUp);
      socket.destroy();
      reject(error);
    };
    const giveUp = setTimeout(
      () => (options.lenient ? settle(false) : fail(new Error(`no end of the answer within ${timeoutMs} ms to ${JSON.stringify(request.toString().slice(0, 60))}`))),
      timeoutMs,
    );
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => (options.lenient ? settle(true) : fail(error)));
    socket.on('close', () => settle(true));
    socket.write(request, () => {
      if (options.endAfterWrite) socket.end();
    });
  });
}
