/**
 * /settings shows the effective configuration with its secrets masked: the platform store's URL is
 * shown without any of the passwords pg would read from it (user-info, `password`, `sslpassword`),
 * as start-up errors print it.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, publicSettings } from '../../src/config.js';
import { parse } from 'pg-connection-string';
import { printableStoreUrl } from '../../src/platform/store/printable-url.js';

const shownStore = (url: string) => publicSettings(loadConfig(['--platform-store', url], {})).platformStore;

describe('the platform store URL in /settings', () => {
  it('masks the user-info password', () => {
    expect(shownStore('postgresql://litserve:litpw@127.0.0.1:55432/litserve')).toBe('postgresql://litserve:***@127.0.0.1:55432/litserve');
  });

  it('masks password and sslpassword query parameters, leaving the rest as written', () => {
    const shown = shownStore('postgresql://weird@127.0.0.1:55432/other?password=p%40ss%3Aw%2Frd%25x&sslmode=require&sslpassword=k3y&host=/run');
    expect(shown).toBe('postgresql://weird@127.0.0.1:55432/other?password=***&sslmode=require&sslpassword=***&host=/run');
  });

  it('masks a secret parameter whose name is written with %-escapes, as pg decodes it (pass%77ord is password)', () => {
    expect(shownStore('postgresql://lit@/litserve?host=/tmp/pg&port=5432&pass%77ord=S3cretPW')).toBe('postgresql://lit@/litserve?host=/tmp/pg&port=5432&pass%77ord=***');
    expect(printableStoreUrl('postgresql://lit@h/db?ssl%70assword=k3y&%70assword=x#frag')).toBe('postgresql://lit@h/db?ssl%70assword=***&%70assword=***#frag');
    // The driver reads these names so: the check is that the masked ones are the ones it uses.
    expect(parse('postgresql://lit@/db?host=/x&pass%77ord=S3cretPW').password).toBe('S3cretPW');
  });

  it('masks a URL the WHATWG parser refuses (a socket with an empty host)', () => {
    expect(printableStoreUrl('postgresql://bob:s3cr@t@/db?host=/run&PassWord=x')).toBe('postgresql://bob:***@/db?host=/run&PassWord=***');
  });

  it('leaves lmdb and a URL without a password as they are', () => {
    expect(shownStore('lmdb')).toBe('lmdb');
    expect(shownStore('postgresql:///litserve?host=/var/run/postgresql')).toBe('postgresql:///litserve?host=/var/run/postgresql');
  });
});
