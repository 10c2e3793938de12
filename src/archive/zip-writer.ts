/**
 * Writes the ZIP format (PKWARE APPNOTE 6.3) as a stream, one entry after the other: local
 * header, data, data descriptor for deflated entries, then the central directory and the end
 * records. Memory holds one slice of data and a small record per entry; the output is a Readable
 * that asks for more only as its reader takes it.
 *
 * Written so that readers going front to back, without the central directory (Java's
 * ZipInputStream), read what the central directory says:
 * - A stored entry carries its CRC-32 and sizes in its local header, so it has no data descriptor
 *   (such a reader cannot find where stored data ends without its size up front). Its checksum
 *   is the caller's, from a first read (`checksumOf`); the data sent must match it.
 * - A deflated entry has general-purpose bit 3 and a data descriptor after its data (the deflate
 *   stream marks its own end). When its size may reach 4 GiB, its local header carries a ZIP64
 *   extra field, which tells readers the descriptor's sizes are 8 bytes (APPNOTE 4.3.9.2).
 * CRC-32 is zlib's (`zlib.crc32`, Node 20.15+), one call per slice.
 * Names are UTF-8 (bit 11). Each entry has a DOS time (the server's local time, as ZIP tools
 * expect) and, in the central directory, the extended timestamp extra field (UTC seconds).
 */
import { Readable, Transform, type TransformCallback, pipeline } from 'node:stream';
import { crc32, createDeflateRaw } from 'node:zlib';

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const CENTRAL_HEADER = 0x02014b50;
const ZIP64_END_RECORD = 0x06064b50;
const ZIP64_END_LOCATOR = 0x07064b50;
const END_RECORD = 0x06054b50;

const STORED = 0;
const DEFLATED = 8;
const HAS_DATA_DESCRIPTOR = 0x0008;
const UTF8_NAME = 0x0800;
/** Version needed to extract: 2.0 (deflate), 4.5 (ZIP64). */
const VERSION_DEFLATE = 20;
const VERSION_ZIP64 = 45;
/** Made by: Unix (high byte), so the external attributes are a file mode. */
const MADE_BY = (3 << 8) | VERSION_ZIP64;
const FILE_MODE = 0o100664;
const ZIP64_EXTRA = 0x0001;
const EXTENDED_TIMESTAMP_EXTRA = 0x5455;

/** A 4-byte field holding this value means "see the ZIP64 field"; a 2-byte entry count likewise. */
const U32_MAX = 0xffffffff;
const U16_MAX = 0xffff;

interface ZipEntryInfo {
  name: string;
  modified: Date;
}

/** An entry's CRC-32 and byte count. */
interface Checksum {
  crc: number;
  bytes: number;
}

interface CentralRecord {
  name: Buffer;
  modified: Date;
  flags: number;
  method: number;
  crc: number;
  compressedBytes: number;
  bytes: number;
  offset: number;
  zip64InLocalHeader: boolean;
}

/** The checksum a stored entry needs before its header: read once, slice by slice, as the data comes. */
export async function checksumOf(content: Readable): Promise<Checksum> {
  const sum = { crc: 0, bytes: 0 };
  for await (const slice of content) add(sum, slice as Buffer);
  return sum;
}

function add(sum: Checksum, slice: Buffer): void {
  sum.crc = crc32(slice, sum.crc);
  sum.bytes += slice.length;
}

interface DeflatedSize {
  /** The content's size when known (a file's), checked as it streams; null when not (a rendered resource). */
  exactBytes: number | null;
  /** Whether the entry may reach 4 GiB, deflated or not: its header then announces 8-byte sizes in its data descriptor. */
  mayReach4GiB: boolean;
}

/**
 * Whether deflating `bytes` bytes may reach 4 GiB either way. Deflate's worst case is stored blocks,
 * 5 bytes per block of up to 64 KiB; a 1/256 margin and 1 KiB are well over that.
 */
export function deflatedMayReach4GiB(bytes: number): boolean {
  return bytes + Math.ceil(bytes / 256) + 1024 >= U32_MAX;
}

export class ZipWriter {
  readonly output: Readable;
  private offset = 0;
  private readonly central: CentralRecord[] = [];
  /** Set while a send waits for the reader to take more. */
  private wakeSender: (() => void) | null = null;

  constructor() {
    this.output = new Readable({
      read: () => this.wake(),
      destroy: (error, callback) => {
        this.wake();
        callback(error);
      },
    });
  }

  /** A stored entry whose bytes must be `expected` (from a first read of the same content); throws, mid-entry, when they differ. */
  async addStored(entry: ZipEntryInfo, content: Readable, expected: Checksum): Promise<void> {
    const zip64 = expected.bytes >= U32_MAX;
    const record = this.record(entry, STORED, 0, zip64);
    record.crc = expected.crc;
    record.bytes = record.compressedBytes = expected.bytes;
    await this.send(localHeader(record, zip64 ? zip64LocalExtra(expected.bytes, expected.bytes) : Buffer.alloc(0)));
    const sent = { crc: 0, bytes: 0 };
    for await (const slice of content) {
      add(sent, slice as Buffer);
      // Checked before the slice goes out: the reader never gets more bytes than the header announced, nor a last slice that breaks the CRC.
      if (sent.bytes > expected.bytes || (sent.bytes === expected.bytes && sent.crc !== expected.crc)) throw changedContent(entry, expected, sent);
      await this.send(slice as Buffer);
    }
    if (sent.bytes !== expected.bytes) throw changedContent(entry, expected, sent);
    this.central.push(record);
  }

  /** A deflated entry; see DeflatedSize. */
  async addDeflated(entry: ZipEntryInfo, content: Readable, { exactBytes, mayReach4GiB }: DeflatedSize): Promise<void> {
    const record = this.record(entry, DEFLATED, HAS_DATA_DESCRIPTOR, mayReach4GiB);
    const measured = new Measured(entry, exactBytes);
    // pipeline destroys every stream with the first error, so reading `deflated` throws it.
    const deflated = pipeline(content, measured, createDeflateRaw(), () => {});
    await this.send(localHeader(record, mayReach4GiB ? zip64LocalExtra(0, 0) : Buffer.alloc(0)));
    for await (const slice of deflated) {
      record.compressedBytes += (slice as Buffer).length;
      await this.send(slice as Buffer);
    }
    if (exactBytes !== null && measured.sum.bytes !== exactBytes) throw changedSize(entry, exactBytes, measured.sum.bytes);
    record.crc = measured.sum.crc;
    record.bytes = measured.sum.bytes;
    if (!mayReach4GiB && (record.bytes >= U32_MAX || record.compressedBytes >= U32_MAX)) {
      throw new Error(`ZIP entry ${entry.name}: reached 4 GiB without a ZIP64 header; download cut`);
    }
    await this.send(dataDescriptor(record, mayReach4GiB));
    this.central.push(record);
  }

  /** The central directory and the end records (ZIP64 ones when the count, size or offset overflow theirs); then the output ends. */
  async end(): Promise<void> {
    const start = this.offset;
    for (const record of this.central) await this.send(centralHeader(record));
    const size = this.offset - start;
    const count = this.central.length;
    if (count >= U16_MAX || size >= U32_MAX || start >= U32_MAX) await this.send(zip64End(count, size, start, this.offset));
    await this.send(endRecord(count, size, start));
    this.output.push(null);
  }

  private record(entry: ZipEntryInfo, method: number, descriptorFlag: number, zip64InLocalHeader: boolean): CentralRecord {
    const name = Buffer.from(entry.name, 'utf8');
    if (name.length > U16_MAX) throw new Error(`ZIP entry name of ${name.length} bytes: at most ${U16_MAX}`);
    const flags = UTF8_NAME | descriptorFlag;
    return { name, modified: entry.modified, flags, method, crc: 0, compressedBytes: 0, bytes: 0, offset: this.offset, zip64InLocalHeader };
  }

  /** Hands bytes to the reader, waiting while it is behind. */
  private async send(bytes: Buffer): Promise<void> {
    if (this.output.destroyed) throw new Error('the ZIP reader has gone');
    this.offset += bytes.length;
    if (this.output.push(bytes)) return;
    await new Promise<void>((resolve) => (this.wakeSender = resolve));
  }

  private wake(): void {
    const wake = this.wakeSender;
    this.wakeSender = null;
    wake?.();
  }
}

/** Passes the content on to deflate, counting and checksumming it; fails as soon as it exceeds its expected size. */
class Measured extends Transform {
  readonly sum: Checksum = { crc: 0, bytes: 0 };

  constructor(
    private readonly entry: ZipEntryInfo,
    private readonly expectedBytes: number | null,
  ) {
    super();
  }

  override _transform(slice: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    add(this.sum, slice);
    if (this.expectedBytes !== null && this.sum.bytes > this.expectedBytes) return done(changedSize(this.entry, this.expectedBytes, this.sum.bytes));
    done(null, slice);
  }
}

function changedContent(entry: ZipEntryInfo, expected: Checksum, sent: Checksum): Error {
  return new Error(
    `ZIP entry ${entry.name}: its content changed since its checksum was taken (${expected.bytes} bytes, CRC-32 ${expected.crc}; now at least ${sent.bytes} bytes${sent.bytes === expected.bytes ? `, CRC-32 ${sent.crc}` : ''}); download cut`,
  );
}

function changedSize(entry: ZipEntryInfo, expectedBytes: number, bytes: number): Error {
  return new Error(`ZIP entry ${entry.name}: ${bytes} bytes of content where ${expectedBytes} were expected; download cut`);
}

function localHeader(record: CentralRecord, extra: Buffer): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(LOCAL_HEADER, 0);
  header.writeUInt16LE(record.zip64InLocalHeader ? VERSION_ZIP64 : VERSION_DEFLATE, 4);
  header.writeUInt16LE(record.flags, 6);
  header.writeUInt16LE(record.method, 8);
  writeDosTime(header, 10, record.modified);
  // A deflated entry's CRC and sizes follow its data (APPNOTE 4.4.4: zero here, or 0xFFFFFFFF when in the ZIP64 field).
  const sizes = record.zip64InLocalHeader ? U32_MAX : record.bytes;
  header.writeUInt32LE(record.crc, 14);
  header.writeUInt32LE(sizes, 18);
  header.writeUInt32LE(sizes, 22);
  header.writeUInt16LE(record.name.length, 26);
  header.writeUInt16LE(extra.length, 28);
  return Buffer.concat([header, record.name, extra]);
}

/** The local header's ZIP64 field holds both sizes, uncompressed first (APPNOTE 4.5.3); zeros when a data descriptor follows. */
function zip64LocalExtra(bytes: number, compressedBytes: number): Buffer {
  const extra = Buffer.alloc(20);
  extra.writeUInt16LE(ZIP64_EXTRA, 0);
  extra.writeUInt16LE(16, 2);
  extra.writeBigUInt64LE(BigInt(bytes), 4);
  extra.writeBigUInt64LE(BigInt(compressedBytes), 12);
  return extra;
}

function dataDescriptor(record: CentralRecord, zip64: boolean): Buffer {
  const descriptor = Buffer.alloc(zip64 ? 24 : 16);
  descriptor.writeUInt32LE(DATA_DESCRIPTOR, 0);
  descriptor.writeUInt32LE(record.crc, 4);
  if (zip64) {
    descriptor.writeBigUInt64LE(BigInt(record.compressedBytes), 8);
    descriptor.writeBigUInt64LE(BigInt(record.bytes), 16);
  } else {
    descriptor.writeUInt32LE(record.compressedBytes, 8);
    descriptor.writeUInt32LE(record.bytes, 12);
  }
  return descriptor;
}

function centralHeader(record: CentralRecord): Buffer {
  // One rule for the three: when any is past 4 GiB, all three read 0xFFFFFFFF and the ZIP64 field holds all three
  // (a value is there exactly when its 4-byte field reads 0xFFFFFFFF, APPNOTE 4.5.3).
  const zip64 = record.bytes >= U32_MAX || record.compressedBytes >= U32_MAX || record.offset >= U32_MAX;
  const extra = Buffer.concat([zip64 ? zip64CentralExtra(record) : Buffer.alloc(0), extendedTimestamp(record.modified)]);
  const header = Buffer.alloc(46);
  header.writeUInt32LE(CENTRAL_HEADER, 0);
  header.writeUInt16LE(MADE_BY, 4);
  header.writeUInt16LE(zip64 || record.zip64InLocalHeader ? VERSION_ZIP64 : VERSION_DEFLATE, 6);
  header.writeUInt16LE(record.flags, 8);
  header.writeUInt16LE(record.method, 10);
  writeDosTime(header, 12, record.modified);
  header.writeUInt32LE(record.crc, 16);
  header.writeUInt32LE(zip64 ? U32_MAX : record.compressedBytes, 20);
  header.writeUInt32LE(zip64 ? U32_MAX : record.bytes, 24);
  header.writeUInt16LE(record.name.length, 28);
  header.writeUInt16LE(extra.length, 30);
  // Comment length, disk number, internal attributes: 0.
  header.writeUInt32LE((FILE_MODE << 16) >>> 0, 38);
  header.writeUInt32LE(zip64 ? U32_MAX : record.offset, 42);
  return Buffer.concat([header, record.name, extra]);
}

function zip64CentralExtra(record: CentralRecord): Buffer {
  const extra = Buffer.alloc(28);
  extra.writeUInt16LE(ZIP64_EXTRA, 0);
  extra.writeUInt16LE(24, 2);
  extra.writeBigUInt64LE(BigInt(record.bytes), 4);
  extra.writeBigUInt64LE(BigInt(record.compressedBytes), 12);
  extra.writeBigUInt64LE(BigInt(record.offset), 20);
  return extra;
}

/** Info-ZIP's "UT" field with the modification time only, as seconds since 1970 (UTC). */
function extendedTimestamp(modified: Date): Buffer {
  const extra = Buffer.alloc(9);
  extra.writeUInt16LE(EXTENDED_TIMESTAMP_EXTRA, 0);
  extra.writeUInt16LE(5, 2);
  extra.writeUInt8(1, 4);
  extra.writeUInt32LE(Math.min(Math.max(Math.floor(modified.getTime() / 1000), 0), U32_MAX), 5);
  return extra;
}

/** MS-DOS time then date, local time, 2-second resolution; dates outside 1980–2107 are clamped to those years. */
function writeDosTime(buffer: Buffer, offset: number, modified: Date): void {
  const year = modified.getFullYear();
  const clamped = year < 1980 ? new Date(1980, 0, 1) : year > 2107 ? new Date(2107, 11, 31, 23, 59, 58) : modified;
  buffer.writeUInt16LE((clamped.getHours() << 11) | (clamped.getMinutes() << 5) | (clamped.getSeconds() >> 1), offset);
  buffer.writeUInt16LE(((clamped.getFullYear() - 1980) << 9) | ((clamped.getMonth() + 1) << 5) | clamped.getDate(), offset + 2);
}

function zip64End(count: number, size: number, start: number, recordOffset: number): Buffer {
  const record = Buffer.alloc(56 + 20);
  record.writeUInt32LE(ZIP64_END_RECORD, 0);
  record.writeBigUInt64LE(44n, 4); // the size of what follows this field
  record.writeUInt16LE(MADE_BY, 12);
  record.writeUInt16LE(VERSION_ZIP64, 14);
  // This disk and the central directory's: 0.
  record.writeBigUInt64LE(BigInt(count), 24);
  record.writeBigUInt64LE(BigInt(count), 32);
  record.writeBigUInt64LE(BigInt(size), 40);
  record.writeBigUInt64LE(BigInt(start), 48);
  // The locator, right after: where the record above starts, in an archive of one disk.
  record.writeUInt32LE(ZIP64_END_LOCATOR, 56);
  record.writeBigUInt64LE(BigInt(recordOffset), 64);
  record.writeUInt32LE(1, 72);
  return record;
}

function endRecord(count: number, size: number, start: number): Buffer {
  const record = Buffer.alloc(22);
  record.writeUInt32LE(END_RECORD, 0);
  record.writeUInt16LE(Math.min(count, U16_MAX), 8);
  record.writeUInt16LE(Math.min(count, U16_MAX), 10);
  record.writeUInt32LE(Math.min(size, U32_MAX), 12);
  record.writeUInt32LE(Math.min(start, U32_MAX), 16);
  return record;
}
