import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quotedKey, repeatedKeys } from '../../src/text/repeated-keys.js';

describe('repeatedKeys', () => {
  it('finds nothing in objects whose keys are distinct, however nested', () => {
    expect(repeatedKeys('{"a":1,"b":{"a":2,"b":[{"a":3},{"a":4}]},"c":"a"}')).toEqual([]);
    expect(repeatedKeys('[{"a":1},{"a":1}]')).toEqual([]);
    expect(repeatedKeys('"just a string"')).toEqual([]);
  });

  it('names the object holding each repeated key, by path', () => {
    const text = '{"title":"A","paragraphs":[{"section":"S","text":"x"},{"text":"y","section":"S","text":"z"}],"title":"B"}';
    expect(repeatedKeys(text)).toEqual([
      { path: 'paragraphs[1]', key: 'text' },
      { path: '', key: 'title' },
    ]);
  });

  it('compares keys as JSON.parse decodes them', () => {
    expect(repeatedKeys('{"title":1,"\\u0074itle":2}')).toEqual([{ path: '', key: 'title' }]);
  });

  it('is not misled by quotes, brackets, commas or colons inside strings', () => {
    const text = JSON.stringify({ a: 'say "a": {1,2]', b: '\\', c: ['\\"', '{"a":1}'] });
    expect(repeatedKeys(text)).toEqual([]);
    expect(repeatedKeys(`{"x":"\\\\","x":"\\""}`)).toEqual([{ path: '', key: 'x' }]);
  });

  it('quotes the keys of a path that are not plain names, so no key can put a newline or an escape into a message', () => {
    expect(repeatedKeys('{"evil\\n\\u001b[2J":{"a":1,"a":2},"b c":[{"x":1,"x":2}]}')).toEqual([
      { path: '["evil\\n\\u001b[2J"]', key: 'a' },
      { path: '["b c"][0]', key: 'x' },
    ]);
  });

  it('quotes keys with what a terminal acts on escaped too: DEL, C1 controls, line separators, bidirectional controls', () => {
    expect(quotedKey('a\u007fb\u009b2J\u2028\u202ec')).toBe('"a\\u007fb\\u009b2J\\u2028\\u202ec"');
    expect(JSON.parse(quotedKey('a\u007fb\u009b2J\u2028\u202ec'))).toBe('a\u007fb\u009b2J\u2028\u202ec');
    expect(repeatedKeys('{"x\u202e":{"a":1,"a":2}}')).toEqual([{ path: '["x\\u202e"]', key: 'a' }]);
  });

  it('counts array elements of every kind for the index in the path', () => {
    expect(repeatedKeys('{"list":[1,"two",[3,4],{"k":0,"k":1}]}')).toEqual([{ path: 'list[3]', key: 'k' }]);
  });

  it('tolerates white space anywhere JSON allows it', () => {
    expect(repeatedKeys(' {\n "a" : 1 ,\t"a"\n:\n2 } ')).toEqual([{ path: '', key: 'a' }]);
  });
});

describe('repeatedKeys on any JSON', () => {
  it('finds nothing in what JSON.stringify writes, and exactly the key a copy adds', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.string(), (value, key) => {
        const text = JSON.stringify(value);
        expect(repeatedKeys(text)).toEqual([]);
        // The outermost object given `key` twice: once as its own first field, once prepended.
        // A function as the replacement: a string one would expand the key's `$&`, `$'` and the like.
        const twice = JSON.stringify({ [key]: 1, wrapped: value }).replace('{', () => `{${JSON.stringify(key)}:0,`);
        expect(repeatedKeys(twice)).toEqual([{ path: '', key }]);
      }),
    );
  });
});
