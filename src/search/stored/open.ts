/** Opens the stored fields of a loaded segment, with the errors an operator can act on. */
import type { Segment } from '../segment/reader.js';
import { StoredFormatError } from './format.js';
import { StoredFields } from './reader.js';

/** `segment` is the loaded segment, or (for a writer checking the file) its counts. */
export function openStoredFields(file: string, segment: Pick<Segment, 'articleCount' | 'paragraphCount'>): StoredFields {
  let stored: StoredFields;
  try {
    stored = StoredFields.open(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      // Every segment of this format has its stored fields (indexes of the older format are refused before they are read).
      throw new StoredFormatError(`${file} is missing: the index is damaged; re-ingest the corpus into a new index directory`);
    }
    throw error;
  }
  if (stored.articleCount !== segment.articleCount || stored.paragraphCount !== segment.paragraphCount) {
    stored.close();
    throw new StoredFormatError(
      `${file} holds ${stored.articleCount} articles and ${stored.paragraphCount} paragraphs; its segment has ${segment.articleCount} and ${segment.paragraphCount}`,
    );
  }
  return stored;
}
