/**
 * Ingestion: reads input files (any supported format), indexes every good
 * article into new segments of the index, applies deletions (PubMed
 * <DeleteCitation>s where they occur, then the ids given explicitly), reports
 * bad records with their file and line or element, and publishes everything
 * in one atomic step. The merge policy then runs on the published index.
 */
import { open, readdir, realpath, stat } from 'node:fs/promises';
import { detectFormat, expandInputs, readArticles } from './readers/index.js';
import { isWithin, type OnUnreadable, type WalkCounts } from './readers/expand.js';
import type { InputFormat, RecordSource } from './readers/types.js';
import { UnseenCharacters, codePointLabel } from './unseen-characters.js';
import { IndexWriter } from '../search/index-writer.js';
import { mergeByPolicy, type MergeSummary } from '../search/merge.js';
import { MANIFEST_FILE, isIndexFileName } from '../search/manifest.js';
import { IndexLockedError } from '../search/write-lock.js';
import type { StoredCompression } from '../search/stored/format.js';
import { quotedId } from './quoted-id.js';

export interface IngestOptions {
  inputs: string[];
  indexDir: string;
  /** Format of every input; detected per file when absent. */
  format?: InputFormat;
  maxSegmentBytes?: number;
  /** Article ids to delete, as stored (with any idPrefix), applied after the inputs (so they win over an input holding the same id). */
  deleteIds?: readonly string[];
  /** Tiered merge policy run after publishing (see search/merge.ts); 0 = never merge automatically. */
  mergeFactor?: number;
  /**
   * Prepended to every article_id read (e.g. "pmc:"), so sources whose ids
   * overlap (PMIDs, BEIR _ids) do not replace each other's articles.
   */
  idPrefix?: string;
  /** Layout of the stored-fields files, the new segments' and merged ones' (default: the writer's, dictionary coding). */
  storedCompression?: StoredCompression;
  /** Called with (bytes consumed, total bytes) as inputs are read. */
  onProgress?: (done: number, total: number) => void;
  /** Progress of each segment's writing (see IndexWriterOptions.onWriteProgress). */
  onWriteProgress?: (done: number, total: number) => void;
  /** Progress of each merge the merge policy runs after publishing (see MergeOptions.onProgress). */
  onMergeProgress?: (done: number, total: number) => void;
  /** Called for each skipped record. */
  onSkip?: (source: RecordSource, message: string) => void;
  /**
   * Called with what the run notices that skips nothing but may not be what was meant: an input folder
   * with no file to read, an article id read again in the same run (the first MAX_REPEATS_TOLD of them), an
   * article holding control characters or lone surrogates (the first MAX_UNSEEN_TOLD).
   */
  onWarning?: (message: string) => void;
  /**
   * Stops the run at its next safe point once aborted: between records, before publishing, and before and
   * during merging (MergeOptions.signal; a segment being written is finished first). It then rejects with the
   * signal's reason, having removed the files it wrote for a generation it did not publish and given back its
   * lock, as on any failure; a merge stopped leaves the generation the run published.
   */
  signal?: AbortSignal;
  /** How messages name the index folder: `--index` by default; serve's first start names its default index. */
  indexNamed?: string;
}

export interface IngestReport {
  files: number;
  /**
   * Files whose format could not be recognised (e.g. a README in an input directory), or that are not of the
   * format given (a JATS article read as --format pubmed), or that could not be read.
   */
  skippedFiles: number;
  /** Subfolders of input folders that could not be listed, skipped (not counted among the files: their files are unknown). */
  unreadableFolders: number;
  read: number;
  indexed: number;
  /** Indexed articles whose id was new to the index. */
  added: number;
  replaced: number;
  /** Articles deleted (by DeleteCitation or explicit id). */
  deleted: number;
  /** Deletions the inputs asked for (DeleteCitation), found or not. */
  deletionsInInputs: number;
  /** Ids asked to be deleted that no live article has (already deleted, or never ingested). */
  notFound: string[];
  skipped: number;
  /** Hidden entries (.git, .DS_Store) inside input folders, not read. */
  hiddenEntries: number;
  /** Article ids read more than once in this run (each counted once): all but the last reading of each were replaced. */
  repeatedIds: number;
  segments: string[];
  /** Merges the policy made after publishing. */
  merges: MergeSummary[];
  /** Why the policy's merges were left to a later run (another writer held the lock), or null. */
  mergeSkipped: string | null;
}

export function describeSource(source: RecordSource): string {
  return [source.file, source.line, source.element].filter((part) => part !== undefined).join(':');
}

/**
 * The files of a run, apart from its records, as ingest's summary and eval's empty --corpus say them: "2 file(s)
 * (1 skipped: ...)" beside the records' "skipped 0" would read as a contradiction. A subfolder that could not be
 * listed is counted apart: it is no file, and how many files it holds is unknown.
 */
export function describeFiles({ files, skippedFiles, unreadableFolders, hiddenEntries }: IngestReport): string {
  const parts = [
    `files: ${files - skippedFiles} read`,
    ...(skippedFiles ? [`${skippedFiles} skipped (not recognised or unreadable)`] : []),
    ...(unreadableFolders ? [`${unreadableFolders} unreadable ${unreadableFolders === 1 ? 'folder' : 'folders'} skipped`] : []),
    ...(hiddenEntries ? [`${hiddenEntries} hidden ${hiddenEntries === 1 ? 'entry' : 'entries'} skipped`] : []),
  ];
  return parts.join(', ');
}

/**
 * Why a run indexed nothing, in parentheses after a space, or '' when nothing was skipped (an empty corpus): for eval's
 * --corpus and serve's demo corpus that yielded no article.
 */
export function whyNothingIndexed(report: IngestReport): string {
  const skipped: string[] = [];
  const skippedInputs = report.skippedFiles + report.unreadableFolders;
  if (report.files === 0 && report.unreadableFolders === 0) skipped.push('it holds no file');
  // In the words of ingest's summary, so that the two name one skip alike.
  else if (skippedInputs > 0) skipped.push(describeFiles(report));
  if (report.skipped > 0) skipped.push(`${report.skipped} of the ${report.read} record(s) read skipped`);
  return skipped.length > 0 ? ` (${skipped.join('; ')}${skippedInputs + report.skipped > 0 ? ', each named above' : ''})` : '';
}

export async function ingest(options: IngestOptions): Promise<IngestReport> {
  // Before a file is read or the index is touched: an input taken for the index, or the index for an input, is refused.
  // A missing index has no input in it; one that is a file is the writer's to report.
  const indexReal = (await stat(options.indexDir).catch(() => null))?.isDirectory() ? await realpath(options.indexDir) : null;
  if (indexReal !== null) await refuseInputsInIndex(options.inputs, options.indexDir, indexReal);
  await refuseDirectoryOfOtherFiles(options.indexDir, options.indexNamed ?? '--index');
  const files: string[] = [];
  let unreadable = 0;
  let unreadableFolders = 0;
  let hiddenEntries = 0;
  const onUnreadable: OnUnreadable = (entry, message, kind) => {
    if (kind === 'folder') unreadableFolders++;
    else unreadable++;
    options.onSkip?.({ file: entry }, message);
  };
  const walk = expandInputs(options.inputs, onUnreadable, {
    // An index kept inside its input folder: its own files are no input (nor said to be UTF-16).
    ...(indexReal !== null && { skipDirectory: indexReal }),
    onSkippedDirectory: (directory) => options.onSkip?.({ file: directory }, 'the index this run writes (--index): not read as input'),
    onHidden: () => hiddenEntries++,
    onEmptyDirectory: (directory, found) => options.onWarning?.(`input folder ${directory} ${describeEmpty(found)}`),
  });
  for await (const file of walk) files.push(file);
  const sizes = await Promise.all(files.map(async (file) => (await stat(file)).size));
  const totalBytes = sizes.reduce((sum, size) => sum + size, 0);

  const report: IngestReport = {
    files: files.length + unreadable,
    skippedFiles: unreadable,
    unreadableFolders,
    read: 0,
    indexed: 0,
    added: 0,
    replaced: 0,
    deleted: 0,
    deletionsInInputs: 0,
    notFound: [],
    skipped: 0,
    hiddenEntries,
    repeatedIds: 0,
    segments: [],
    merges: [],
    mergeSkipped: null,
  };
  const repeats = new RepeatedIds(files, options.onWarning);
  const unseen = new UnseenCharacters(options.onWarning);
  const remove = (articleId: string) => {
    repeats.forget(articleId);
    if (writer.delete(articleId)) report.deleted++;
    else report.notFound.push(articleId);
  };
  const { storedCompression } = options;
  const writer = await IndexWriter.open(options.indexDir, {
    maxSegmentBytes: options.maxSegmentBytes,
    storedCompression,
    ...(options.onWriteProgress && { onWriteProgress: options.onWriteProgress }),
  });
  try {
    let doneBytes = 0;
    for (const [index, file] of files.entries()) {
      options.signal?.throwIfAborted();
      const fileStart = doneBytes;
      const format = await formatOrSkip(file, options);
      if (format === null) {
        report.skippedFiles++;
        doneBytes += sizes[index]!;
        continue;
      }
      // Readers report bytes consumed since their previous call.
      const onBytes = (delta: number) => options.onProgress?.((doneBytes += delta), totalBytes);
      for await (const event of readArticles(file, format, { onBytes })) {
        options.signal?.throwIfAborted();
        if (event.kind === 'unrecognised') {
          report.skippedFiles++;
          options.onSkip?.(event.source, options.format === undefined ? event.message : `${event.message} (${forcedFormatHint(options.format)})`);
          continue;
        }
        if (event.kind === 'delete') {
          report.deletionsInInputs++;
          remove((options.idPrefix ?? '') + event.articleId);
          continue;
        }
        report.read++;
        if (event.kind === 'error') {
          report.skipped++;
          options.onSkip?.(event.source, event.message);
          continue;
        }
        const article = options.idPrefix ? { ...event.article, article_id: options.idPrefix + event.article.article_id } : event.article;
        const idProblem = articleIdProblem(article.article_id);
        if (idProblem !== null) {
          report.skipped++;
          options.onSkip?.(event.source, idProblem);
          continue;
        }
        repeats.note(article.article_id, index, event.source);
        unseen.note(article, () => describeSource(event.source));
        report[await writer.add(article)]++;
      }
      doneBytes = fileStart + sizes[index]!;
      options.onProgress?.(doneBytes, totalBytes);
    }
    // Each id once: an id listed twice is deleted by its first mention, not "not found" by its second.
    for (const articleId of new Set(options.deleteIds)) remove(articleId);
    report.repeatedIds = repeats.finish();
    unseen.finish();
    options.signal?.throwIfAborted();
    if (report.read === report.skipped && report.deleted === 0) {
      await writer.close();
      return report;
    }
    const summary = await writer.commit();
    report.indexed = report.read - report.skipped;
    report.segments = summary.segments;
    if (options.mergeFactor !== 0) {
      options.signal?.throwIfAborted();
      try {
        report.merges = await mergeByPolicy(options.indexDir, options.mergeFactor, {
          storedCompression,
          signal: options.signal,
          ...(options.onMergeProgress && { onProgress: options.onMergeProgress }),
        });
      } catch (error) {
        // The lock is taken again for merging, after publishing: another writer that took it meanwhile
        // leaves the merge to a later run. What this run indexed is published; it has not failed.
        if (!(error instanceof IndexLockedError)) throw error;
        report.mergeSkipped = error.message;
      }
    }
    return report;
  } catch (error) {
    await writer.close();
    throw error;
  }
}

/** Ids travel in URLs and in --delete-file lines: one without control characters, and as long as an IRI may be. */
const MAX_ARTICLE_ID_BYTES = 512;

/**
 * Characters an id may not hold beside control characters: format characters (\p{Cf}: zero-width
 * spaces and joiners, bidirectional controls, BOM, soft hyphen), which show as nothing or reorder
 * what follows, so "a1" and "a1\u200b" would be two articles every listing shows alike; lone
 * surrogates, which the index's UTF-8 keeps as U+FFFD (another id than the one read); and
 * noncharacters, which Unicode keeps out of interchanged text. (src/platform/unsafe-characters.ts
 * refuses much the same in names, but corpus/ may not import the platform.)
 */
const INVISIBLE_OR_UNKEEPABLE = /[\p{Cf}\p{Surrogate}\p{Noncharacter_Code_Point}]/u;

function articleIdProblem(articleId: string): string | null {
  if (/\p{Cc}/u.test(articleId)) return `article_id ${quotedId(articleId)} holds a control character (ids travel in URLs and in --delete-file lines)`;
  const odd = INVISIBLE_OR_UNKEEPABLE.exec(articleId)?.[0];
  if (odd !== undefined) return `article_id ${quotedId(articleId)} holds ${describeCharacter(odd)}`;
  // "a1 " would be another article than "a1" that every listing shows alike, and a --delete-file
  // line (trimmed) would delete "a1" instead.
  if (articleId !== articleId.trim()) return `article_id ${quotedId(articleId)} begins or ends with white space`;
  if (Buffer.byteLength(articleId) > MAX_ARTICLE_ID_BYTES) return `article_id is over ${MAX_ARTICLE_ID_BYTES} bytes`;
  return null;
}

/** U+XXXX and what kind of character it is, for a message: an invisible one is nothing in the quoted id. */
function describeCharacter(character: string): string {
  const code = codePointLabel(character);
  if (/\p{Surrogate}/u.test(character)) return `${code}, a lone surrogate (not a character: it would be stored as U+FFFD)`;
  if (/\p{Cf}/u.test(character)) return `${code}, an invisible or direction-changing format character (ids that look alike would be different articles)`;
  return `${code}, a noncharacter (reserved by Unicode, not for text)`;
}

/** Why a file of another format was read as this one at all: the run's --format is every file's. */
function forcedFormatHint(format: InputFormat): string {
  return `every input is read as --format ${format}; without --format each file's format is detected`;
}

/**
 * The format `file` is read as: the one given, else the one detected. An unrecognisable or
 * unreadable file is reported and skipped rather than ending the run, also when the format is
 * given (no detection opens the file then, and the reader's failure to open it ended the run).
 */
async function formatOrSkip(file: string, { format, onSkip }: IngestOptions): Promise<InputFormat | null> {
  try {
    if (format === undefined) return await detectFormat(file);
    await (await open(file, 'r')).close();
    return format;
  } catch (error) {
    onSkip?.({ file }, (error as Error).message);
    return null;
  }
}

/** How a folder given as an input that yielded no file is described, after its name. */
function describeEmpty({ visible, hidden }: WalkCounts): string {
  if (visible === 0 && hidden === 0) return 'is empty: nothing to read';
  if (visible === 0) return `holds only hidden entries (${hidden}), which are not read: nothing to read`;
  return 'holds no file to read';
}

/** An input that is the index directory, or lies in it, would be read as articles (and its files changed under the reading). */
async function refuseInputsInIndex(inputs: readonly string[], indexDir: string, indexReal: string): Promise<void> {
  for (const input of inputs) {
    // A missing input is reported by the walk, also before the index is touched.
    const inputReal = await realpath(input).catch(() => null);
    if (inputReal === null || !isWithin(inputReal, indexReal)) continue;
    const where = inputReal === indexReal ? 'is the index directory' : 'lies inside the index directory';
    throw new Error(`--input ${input} ${where} ${indexDir}: an index is not an input (were --input and --index swapped?)`);
  }
}

/** How many of a refused directory's files its message names. */
const NAMES_SHOWN = 5;

/**
 * An --index naming a folder that holds files and no index (a folder of papers, when --input and --index
 * are swapped) is refused: the index's files would be written among them. An empty folder, or one of
 * hidden entries only (.gitkeep), becomes a new index.
 */
async function refuseDirectoryOfOtherFiles(indexDir: string, named: string): Promise<void> {
  // A missing directory is made by the writer; one that cannot be listed, the writer reports.
  const names = await readdir(indexDir).catch(() => null);
  if (names === null || names.includes(MANIFEST_FILE)) return;
  const others = names.filter((name) => !name.startsWith('.') && !isIndexFileName(name)).sort();
  if (others.length === 0) return;
  const shown = others.slice(0, NAMES_SHOWN).join(', ') + (others.length > NAMES_SHOWN ? `, and ${others.length - NAMES_SHOWN} more` : '');
  // The swap is a guess about an --index given; a default index nobody named was not swapped with anything.
  const swapped = named === '--index' ? ' (were --input and --index swapped?)' : '';
  throw new Error(`${named} ${indexDir} holds no index (no ${MANIFEST_FILE}) but other files: ${shown}; give a new or empty folder for a new index${swapped}`);
}

/** How many article ids read again in one run are told one by one; the rest are counted at the end. */
export const MAX_REPEATS_TOLD = 20;

/**
 * The article ids one run reads more than once (two copies of a file, JATS files whose ids fall
 * back to the same file name): each is told once, naming where it was first read. The writer counts
 * them as replaced like an id already in the index, which says nothing of it.
 */
class RepeatedIds {
  /**
   * Where each id was first read in this run, as one number (the file's index plus the line times the
   * number of files): a map of source objects would hold as much again as the writer's own map of ids.
   */
  private readonly firstRead = new Map<string, number>();
  private readonly repeated = new Set<string>();

  constructor(
    private readonly files: readonly string[],
    private readonly onWarning: ((message: string) => void) | undefined,
  ) {}

  note(articleId: string, fileIndex: number, source: RecordSource): void {
    const first = this.firstRead.get(articleId);
    if (first === undefined) {
      this.firstRead.set(articleId, fileIndex + (source.line ?? 0) * this.files.length);
      return;
    }
    if (this.repeated.has(articleId)) return;
    this.repeated.add(articleId);
    if (this.repeated.size > MAX_REPEATS_TOLD) return;
    const file = this.files[first % this.files.length]!;
    const line = Math.floor(first / this.files.length);
    this.onWarning?.(
      `article_id ${quotedId(articleId)} read again in this run at ${describeSource(source)} ` +
        `(first at ${describeSource({ file, ...(line > 0 && { line }) })}): the later one is kept`,
    );
  }

  /** A deleted id read again afterwards is brought back, not repeated. */
  forget(articleId: string): void {
    this.firstRead.delete(articleId);
  }

  /** How many ids were repeated; those past the ones told are counted in one warning. */
  finish(): number {
    const untold = this.repeated.size - MAX_REPEATS_TOLD;
    if (untold > 0) this.onWarning?.(`... and ${untold} more article ids read more than once in this run`);
    return this.repeated.size;
  }
}
