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

  it('refuse a key given twice, which JSON.parse would have let the last entry win: a token by its first characters only', () => {
    const write = (name: string, text: string) => {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      return file;
    };
    const alice = '{"realm": "local", "subject": "alice"}';
    const mallory = '{"realm": "local", "subject": "mallory"}';
    const twiceToken = write('token-twice.json', `{"tokens": {"s3cret-token-1": ${alice}, "s3cret-token-1": ${mallory}}, "acls": {}}`);
    expect(() => loadAuthFile(twiceToken)).toThrow(
      new AuthFileError(`auth file ${twiceToken} (--auth-file / AUTH_FILE) is invalid:\n  token "s3cr…" is given twice; JSON keeps only the last entry, so a token means one identity`),
    );
    const twiceAcl = write('acl-twice.json', '{"tokens": {}, "acls": {"/": {"anonymous": ["resources/read"]}, "/": {"anonymous": ["*"]}}}');
    expect(() => loadAuthFile(twiceAcl)).toThrow(new AuthFileError(`auth file ${twiceAcl} (--auth-file / AUTH_FILE) is invalid:\n  "acls" gives the key "/" twice; JSON keeps only the last`));
    const twiceTop = write('top-twice.json', '{"tokens": {}, "acls": {}, "acls": {}}');
    expect(() => loadAuthFile(twiceTop)).toThrow(new AuthFileError(`auth file ${twiceTop} (--auth-file / AUTH_FILE) is invalid:\n  the top level gives the key "acls" twice; JSON keeps only the last`));
  });
});
