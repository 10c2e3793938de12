/** An auth file that cannot be used stops the start naming the file and the setting pointing at it, as other settings' errors do. */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AuthFileError, loadAuthFile } from '../../src/platform/auth-file.js';

const dir = mkdtempSync(path.join(tmpdir(), 'auth-file-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('auth file errors', () => {
  it('name --auth-file / AUTH_FILE and the file when it is missing or not JSON', () => {
    const missing = path.join(dir, 'missing.json');
    expect(() => loadAuthFile(missing)).toThrow(new AuthFileError(`auth file ${missing} (--auth-file / AUTH_FILE) cannot be read: ENOENT: no such file or directory, open '${missing}'`));
    const truncated = path.join(dir, 'truncated.json');
    writeFileSync(truncated, '{"tokens": ');
    expect(() => loadAuthFile(truncated)).toThrow(`auth file ${truncated} (--auth-file / AUTH_FILE) is not valid JSON: `);
  });

  it('name --auth-file / AUTH_FILE and the file above the problems of an invalid one', () => {
    const invalid = path.join(dir, 'invalid.json');
    writeFileSync(invalid, JSON.stringify({ tokens: {}, acls: {}, extra: true }));
    expect(() => loadAuthFile(invalid)).toThrow(new AuthFileError(`auth file ${invalid} (--auth-file / AUTH_FILE) is invalid:\n  unknown field "extra"`));
  });
});
