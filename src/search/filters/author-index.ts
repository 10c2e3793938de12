/**
 * A segment's authors column indexed the ways the authors filter and the author suggestions read
 * it: the folded form of every author-table entry, the entries by folded form, and the articles
 * listing each entry. Built once per segment and kept as long as the segment, so a new authors=
 * value costs a lookup and a walk over its own articles instead of a pass over every article, and
 * suggestions never fold the names again.
 *
 * Building takes about 0.3 s at 156,000 author entries: a snapshot warms its segments' indexes in
 * the background (warmAuthorIndexes), in slices that give the event loop back between them, so
 * no request stalls the server for it. A request arriving before the warm-up is done finishes the
 * remaining slices itself; the result is the same either way.
 */
import { performance } from 'node:perf_hooks';
import { foldName } from '../query/filter-spec.js';
import type { Segment } from '../segment/reader.js';
import { Bitset } from './bitset.js';

/** How long a slice of background work may hold the event loop. */
const SLICE_MS = 3;

/**
 * Called once per unit of work (an author entry folded, a link counted or placed); true when the
 * slice is over. By default a slice ends after SLICE_MS (the clock read every 256 units, well under
 * a millisecond of work); with `units`, after that many units (tests).
 */
type SliceEnd = () => boolean;

function sliceEnd(units?: number): SliceEnd {
  let done = 0;
  if (units !== undefined) return () => ++done % units === 0;
  // The clock starts at a slice's first unit, not when the previous one yielded.
  let until: number | undefined;
  return () => {
    until ??= performance.now() + SLICE_MS;
    if (++done % 256 !== 0 || performance.now() < until) return false;
    until = undefined;
    return true;
  };
}

interface FoldedNames {
  /** The folded form of each author-table entry, by id: what authors= and suggestions match. */
  foldedNames: string[];
  /** Ids by folded form. Most forms have one spelling: a bare id, not a one-element array (about 30 bytes less each). */
  idsByFoldedName: Map<string, number | number[]>;
}

/**
 * The articles listing author `id` are articles[articleStart[id] .. articleStart[id + 1]), in
 * increasing order: two typed arrays rather than an array per author (4 bytes a link).
 */
interface ArticlesByAuthor {
  articleStart: Int32Array;
  articles: Int32Array;
}

function* foldNames(segment: Segment, sliceOver: SliceEnd): Generator<void, FoldedNames> {
  const { authors } = segment;
  const foldedNames = new Array<string>(authors.size);
  const idsByFoldedName = new Map<string, number | number[]>();
  for (let id = 0; id < authors.size; id++) {
    if (sliceOver()) yield;
    const folded = foldName(authors.get(id));
    foldedNames[id] = folded;
    const ids = idsByFoldedName.get(folded);
    if (ids === undefined) idsByFoldedName.set(folded, id);
    else if (typeof ids === 'number') idsByFoldedName.set(folded, [ids, id]);
    else ids.push(id);
  }
  return { foldedNames, idsByFoldedName };
}

function* invertArticleAuthors(segment: Segment, sliceOver: SliceEnd): Generator<void, ArticlesByAuthor> {
  const { authors, articleAuthorOffsets, articleAuthorIds, articleCount } = segment;
  // The segment stores article -> authors; turn it around: count each author's links, sum the
  // counts into start offsets, then place the articles in increasing order.
  const articleStart = new Int32Array(authors.size + 1);
  for (let link = 0; link < articleAuthorIds.length; link++) {
    if (sliceOver()) yield;
    articleStart[articleAuthorIds[link]! + 1]!++;
  }
  for (let id = 0; id < authors.size; id++) {
    if (sliceOver()) yield;
    articleStart[id + 1]! += articleStart[id]!;
  }
  const articles = new Int32Array(articleAuthorIds.length);
  const nextSlot = articleStart.slice(0, authors.size);
  for (let article = 0; article < articleCount; article++) {
    if (sliceOver()) yield;
    for (let link = articleAuthorOffsets[article]!; link < articleAuthorOffsets[article + 1]!; link++) {
      articles[nextSlot[articleAuthorIds[link]!]!++] = article;
    }
  }
  return { articleStart, articles };
}

/** A build that runs a slice at a time (step) or to its end at once (finish). */
class SlicedBuild<T> {
  private result: T | undefined;
  constructor(private readonly steps: Generator<void, T>) {}

  get done(): boolean {
    return this.result !== undefined;
  }

  /** Runs one slice; true once the build is complete. */
  step(): boolean {
    if (this.result === undefined) {
      const next = this.steps.next();
      if (next.done) this.result = next.value;
    }
    return this.done;
  }

  finish(): T {
    while (!this.step());
    return this.result!;
  }
}

class AuthorIndex {
  /** The folded form of each author-table entry, by id: what authors= and suggestions match. */
  readonly foldedNames: string[];
  private readonly idsByFoldedName: Map<string, number | number[]>;
  private readonly articleStart: Int32Array;
  private readonly articles: Int32Array;

  constructor(
    names: FoldedNames,
    byAuthor: ArticlesByAuthor,
    private readonly articleCount: number,
  ) {
    this.foldedNames = names.foldedNames;
    this.idsByFoldedName = names.idsByFoldedName;
    this.articleStart = byAuthor.articleStart;
    this.articles = byAuthor.articles;
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

/** One segment's index under construction: the folded names first (all suggestions need), then the articles by author. */
class SegmentAuthors {
  readonly names: SlicedBuild<FoldedNames>;
  readonly byAuthor: SlicedBuild<ArticlesByAuthor>;
  private index: AuthorIndex | undefined;

  constructor(private readonly segment: Segment, sliceUnits?: number) {
    this.names = new SlicedBuild(foldNames(segment, sliceEnd(sliceUnits)));
    this.byAuthor = new SlicedBuild(invertArticleAuthors(segment, sliceEnd(sliceUnits)));
  }

  /** Runs one slice of what is left; true once everything is built. */
  step(): boolean {
    if (!this.names.done) this.names.step();
    else this.byAuthor.step();
    return this.names.done && this.byAuthor.done;
  }

  finish(): AuthorIndex {
    this.index ??= new AuthorIndex(this.names.finish(), this.byAuthor.finish(), this.segment.articleCount);
    return this.index;
  }
}

// Keyed weakly: a segment gone from every snapshot takes its index (built or half-built) with it.
const builds = new WeakMap<Segment, SegmentAuthors>();

function buildOf(segment: Segment, sliceUnits?: number): SegmentAuthors {
  let build = builds.get(segment);
  if (!build) {
    build = new SegmentAuthors(segment, sliceUnits);
    builds.set(segment, build);
  }
  return build;
}

/** The segment's author index; what a warm-up has not built yet is built now. */
export function authorIndex(segment: Segment): AuthorIndex {
  return buildOf(segment).finish();
}

/** The folded form of each of the segment's author-table entries, by id, without the articles by author. */
export function foldedAuthorNames(segment: Segment): readonly string[] {
  return buildOf(segment).names.finish().foldedNames;
}

/** Whether the segment's author index is complete (warmed or built on demand). */
export function authorIndexBuilt(segment: Segment): boolean {
  const build = builds.get(segment);
  return build !== undefined && build.names.done && build.byAuthor.done;
}

export interface AuthorIndexWarmUp {
  /** Stops after the slice under way: the snapshot warmed has been closed. */
  stop(): void;
  /** Settles when every segment is built, the warm-up is stopped, or its segments are gone. */
  readonly done: Promise<void>;
}

/**
 * Builds the segments' author indexes in the background, one slice per event-loop turn. It holds
 * the segments only weakly, so one dropped meanwhile is not kept alive by it. (Its immediates are
 * not unref'd: with only unref'd immediates pending, an idle server's loop would wait in poll for
 * the next request instead of warming.)
 */
export function warmAuthorIndexes(segments: readonly Segment[], sliceUnits?: number): AuthorIndexWarmUp {
  const pending = segments.map((segment) => new WeakRef(segment));
  let stopped = false;
  const done = new Promise<void>((resolve) => {
    const turn = (): void => {
      // One slice a turn; a segment already built (by a request or another snapshot's warm-up) or collected is skipped.
      while (pending.length > 0 && !stopped) {
        const segment = pending[0]!.deref();
        if (segment && !authorIndexBuilt(segment)) {
          if (buildOf(segment, sliceUnits).step()) pending.shift();
          break;
        }
        pending.shift();
      }
      if (stopped || pending.length === 0) resolve();
      else setImmediate(turn);
    };
    setImmediate(turn);
  });
  return {
    stop: () => {
      stopped = true;
    },
    done,
  };
}
