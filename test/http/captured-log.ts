/** A pino logger at info level whose lines a test reads back, parsed, in `lines`. */
import { Writable } from 'node:stream';
import { pino } from 'pino';

export function capturingLogger() {
  const lines: ({ level: number; msg: string } & Record<string, unknown>)[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}
