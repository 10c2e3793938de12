/**
 * A segment's authors column indexed the ways the authors filter and the author suggestions read
 * it: the folded form of every author-table entry, the entries by folded form, and the articles
 * listing each entry. Built on the first use per segment and kept as long as the segment, so a
 * new authors= value costs a lookup and a walk over its own articles instead of a pass over every
 * article, and suggestions never fold the names again.
 */
import { foldName } from '../query/filter-spec.js';
import type { Segment } from '../segment/reader.js';
import { Bitset } from './bitset.js';

export class AuthorIndex {
  /** The folded form of each author-table entry, by id: what authors= and suggestions match. */
  readonly foldedNames: string[];
  /** Ids by folded form. Most forms have one spelling: a bare id, not a one-element array (about 30 bytes less each). */
  private readonly idsByFoldedName = new Map<string, number | number[]>();
  /**
   * The articles listing author `id` are articles[articleStart[id] .. articleStart[id + 1]), in
   * increasing order: two typed arrays rather than an array per author (4 bytes a link).
   */
  private readonly articleStart: Int32Array;
  private readonly articles: Int32Array;
  private readonly articleCount: number;

  constructor(segment: Segment) {
    const { authors, articleAuthorOffsets, articleAuthorIds } = segment;
    this.articleCount = segment.articleCount;
    this.foldedNames = new Array<string>(authors.size);
    for (let id = 0; id < authors.size; id++) {
      const folded = foldName(authors.get(id));
      this.foldedNames[id] = folded;
      const ids = this.idsByFoldedName.get(folded);
      if (ids === undefined) this.idsByFoldedName.set(folded, id);
      else if (typeof ids === 'number') this.idsByFoldedName.set(folded, [ids, id]);
      else ids.push(id);
    }
    // The segment stores article -> authors; turn it around: count each author's links, sum the
    // counts into start offsets, then place the articles in increasing order.
    this.articleStart = new Int32Array(authors.size + 1);
    for (const id of articleAuthorIds) this.articleStart[id + 1]!++;
    for (let id = 0; id < authors.size; id++) this.articleStart[id + 1]! += this.articleStart[id]!;
    this.articles = new Int32Array(articleAuthorIds.length);
    const nextSlot = this.articleStart.slice(0, authors.size);
    for (let article = 0; article < this.articleCount; article++) {
      for (let link = articleAuthorOffsets[article]!; link < articleAuthorOffsets[article + 1]!; link++) {
        this.articles[nextSlot[articleAuthorIds[link]!]!++] = article;
      }
    }
  }

  /** The articles listing an author whose folded name is any of `foldedNames`. */
  articlesListingAny(foldedNames: readonly string[]): Bitset {
    const result = new Bitset(this.articleCount);
    for (const id of foldedNames.flatMap((name) => this.idsByFoldedName.get(name) ?? [])) {
      for (let at = this.articleStart[id]!; at < this.articleStart[id + 1]!; at++) result.add(this.articles[at]!);
    }
    return result;
  }
}

const indexes = new WeakMap<Segment, AuthorIndex>();

/** The segment's author index, built on the first call. */
export function authorIndex(segment: Segment): AuthorIndex {
  let index = indexes.get(segment);
  if (!index) {
    index = new AuthorIndex(segment);
    indexes.set(segment, index);
  }
  return index;
}
