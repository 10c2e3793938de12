/**
 * Ingestion: reads input files (any supported format), indexes every good
 * article into new segments of the index, reports bad records with their
 * file and line or element, and publishes everything in one atomic step.
 */
import { stat } from 'node:fs/promises';
import { detectFormat, expandInputs, readArticles } from './readers/index.js';
import type { InputFormat, RecordSource } from './readers/types.js';
import { IndexWriter } from '../search/index-writer.js';
import type { StoredCompression } from '../search/stored/format.js';

export interface IngestOptions {
  inputs: string[];
  indexDir: string;
  /** Format of every input; detected per file when absent. */
  format?: InputFormat;
  maxSegmentBytes?: number;
  /** Layout of the stored-fields files (default plain: fastest to serve). */
  storedCompression?: StoredCompression;
  /** Called with (bytes consumed, total bytes) as inputs are read. */
  onProgress?: (done: number, total: number) => void;
  /** Called for each skipped record. */
  onSkip?: (source: RecordSource, message: string) => void;
}

export interface IngestReport {
  files: number;
  /** Files whose format could not be recognised (e.g. a README in an input directory). */
  skippedFiles: number;
  read: number;
  indexed: number;
  replaced: number;
  skipped: number;
  segments: string[];
}

export function describeSource(source: RecordSource): string {
  return [source.file, source.line, source.element].filter((part) => part !== undefined).join(':');
}

export async function ingest(options: IngestOptions): Promise<IngestReport> {
  const files: string[] = [];
  for await (const file of expandInputs(options.inputs)) files.push(file);
  const sizes = await Promise.all(files.map(async (file) => (await stat(file)).size));
  const totalBytes = sizes.reduce((sum, size) => sum + size, 0);

  const report: IngestReport = { files: files.length, skippedFiles: 0, read: 0, indexed: 0, replaced: 0, skipped: 0, segments: [] };
  const writer = await IndexWriter.open(options.indexDir, { maxSegmentBytes: options.maxSegmentBytes, storedCompression: options.storedCompression });
  try {
    let doneBytes = 0;
    for (const [index, file] of files.entries()) {
      const fileStart = doneBytes;
      const format = options.format ?? (await detectFormatOrSkip(file, options.onSkip));
      if (format === null) {
        report.skippedFiles++;
        doneBytes += sizes[index]!;
        continue;
      }
      // Readers report bytes consumed since their previous call.
      const onBytes = (delta: number) => options.onProgress?.((doneBytes += delta), totalBytes);
      for await (const event of readArticles(file, format, { onBytes })) {
        report.read++;
        if (event.kind === 'error') {
          report.skipped++;
          options.onSkip?.(event.source, event.message);
          continue;
        }
        await writer.add(event.article);
      }
      doneBytes = fileStart + sizes[index]!;
      options.onProgress?.(doneBytes, totalBytes);
    }
    if (report.read === report.skipped) {
      await writer.close();
      return report;
    }
    const summary = await writer.commit();
    report.indexed = report.read - report.skipped;
    report.replaced = summary.replaced;
    report.segments = summary.segments;
    return report;
  } catch (error) {
    await writer.close();
    throw error;
  }
}

/** Detects a file's format; an unrecognisable file is reported and skipped rather than ending the run. */
async function detectFormatOrSkip(file: string, onSkip: IngestOptions['onSkip']): Promise<InputFormat | null> {
  try {
    return await detectFormat(file);
  } catch (error) {
    onSkip?.({ file }, (error as Error).message);
    return null;
  }
}
