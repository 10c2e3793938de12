/** Which store the running test project uses: the `postgresql` project's cluster URL (see global-setup.ts), or undefined (LMDB). */
import { inject } from 'vitest';

export function testPostgresUrl(): string | undefined {
  return inject('postgresUrl');
}
