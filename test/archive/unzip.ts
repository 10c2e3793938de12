/** Reads a ZIP with yauzl, a reader independent of the writer (src/archive/zip-writer.ts): entry names in order and their bytes. */
import yauzl from 'yauzl';

export interface Unzipped {
  names: string[];
  entries: Map<string, Buffer>;
  /** ZIP compression method per entry: 0 stored, 8 deflated. */
  methods: Map<string, number>;
  /** Modification time per entry: that of the extended timestamp field (UTC seconds), and that of the DOS field (local time, 2 s). */
  modified: Map<string, { extended: Date; dos: Date }>;
}

export function unzip(source: Buffer | string): Promise<Unzipped> {
  return new Promise((resolve, reject) => {
    const opened = (error: Error | null, zip?: yauzl.ZipFile) => {
      if (error || !zip) return reject(error ?? new Error('no zip'));
      const result: Unzipped = { names: [], entries: new Map(), methods: new Map(), modified: new Map() };
      zip.on('error', reject);
      zip.on('end', () => resolve(result));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            result.names.push(entry.fileName);
            result.entries.set(entry.fileName, Buffer.concat(chunks));
            result.methods.set(entry.fileName, entry.compressionMethod);
            result.modified.set(entry.fileName, { extended: entry.getLastModDate(), dos: entry.getLastModDate({ forceDosFormat: true }) });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    };
    // yauzl checks each entry's CRC and sizes, and refuses names with '..', a leading '/' or a backslash.
    if (typeof source === 'string') yauzl.open(source, { lazyEntries: true, validateEntrySizes: true, strictFileNames: true }, opened);
    else yauzl.fromBuffer(source, { lazyEntries: true, validateEntrySizes: true, strictFileNames: true }, opened);
  });
}
