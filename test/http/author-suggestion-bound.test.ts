/** An author name longer than `authors=` takes (500 characters) is not suggested: the filter would refuse the choice. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { article } from '../search/helpers.js';
import { fixtureApp, type Fixture } from './app-fixture.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await fixtureApp([article('a1', ['place cells'], { authors: [`Longname ${'x'.repeat(600)}`, 'Longname Short'] })]);
});
afterAll(() => fixture.close());

describe('/suggestions/author', () => {
  it('offers only names the authors filter takes', async () => {
    const response = await fixture.app.inject({ method: 'GET', url: '/suggestions/author?name=longname' });
    expect(response.json()).toEqual([{ name: 'Longname Short', docs_in_db: 1 }]);
    const long = await fixture.app.inject({ method: 'GET', url: `/retrieval/article_count?authors=Longname%20${'x'.repeat(600)}` });
    expect(long.statusCode).toBe(422);
  });
});
