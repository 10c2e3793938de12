/** Article ids that would show as another id, or be stored as another id, are refused record by record. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSource, ingest } from '../../src/corpus/ingest.js';
import { liveIds } from '../search/helpers.js';
import { fixtureDir } from './fixtures.js';

describe('article ids', () => {
  it('refuse format characters, lone surrogates and noncharacters, and keep the other records', async () => {
    const dir = await fixtureDir();
    const ids = ['a1', 'a1\u200b', 'rlo\u202eabc', 'bom\ufeffmid', 'soft\u00adhyphen', 'zw\u200djoiner', 'lone\ud800x', 'non\ufdd0char', 'plane\u{10fffe}', 'caf\u00e9', '\u{1f9e0}'];
    // JSON.stringify writes the lone surrogate as the escape \ud800, as a JSON file would hold it. Messages write every
    // character a terminal would not show as itself as an escape: "a1\u200b" had read as "a1".
    const lines = ids.map((id) => JSON.stringify({ article_id: id, title: 'Grid cells', paragraphs: [{ section: 'S', text: 'Grid cells.' }] }));
    const file = path.join(dir, 'odd.jsonl');
    await writeFile(file, lines.join('\n') + '\n');
    const skipped: string[] = [];
    const indexDir = path.join(dir, 'index');
    const report = await ingest({ inputs: [file], indexDir, onSkip: (source, message) => skipped.push(`${describeSource(source)}: ${message}`) });

    expect(report).toMatchObject({ read: 11, indexed: 3, skipped: 8 });
    const formatCharacter = 'an invisible or direction-changing format character (ids that look alike would be different articles)';
    expect(skipped).toEqual([
      `${file}:2: article_id "a1\\u{200b}" holds U+200B, ${formatCharacter}`,
      `${file}:3: article_id "rlo\\u{202e}abc" holds U+202E, ${formatCharacter}`,
      `${file}:4: article_id "bom\\u{feff}mid" holds U+FEFF, ${formatCharacter}`,
      `${file}:5: article_id "soft\\u{ad}hyphen" holds U+00AD, ${formatCharacter}`,
      `${file}:6: article_id "zw\\u{200d}joiner" holds U+200D, ${formatCharacter}`,
      `${file}:7: article_id "lone\\u{d800}x" holds U+D800, a lone surrogate (not a character: it would be stored as U+FFFD)`,
      `${file}:8: article_id "non\\u{fdd0}char" holds U+FDD0, a noncharacter (reserved by Unicode, not for text)`,
      `${file}:9: article_id "plane\\u{10fffe}" holds U+10FFFE, a noncharacter (reserved by Unicode, not for text)`,
    ]);
    expect(await liveIds(indexDir)).toEqual(['a1', 'caf\u00e9', '\u{1f9e0}']);
  });
});
