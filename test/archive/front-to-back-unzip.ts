/**
 * Reads a ZIP front to back as a streaming reader must (APPNOTE 4.3.9), never looking at the central
 * directory: each local header, its data, its data descriptor when bit 3 is set, whose sizes are
 * 8 bytes exactly when the local header carries a ZIP64 field. Stored data can only be found by its
 * size in the local header; deflated data ends where its deflate stream does. Every entry's CRC-32
 * and sizes are checked against its content.
 */
import { crc32, inflateRawSync } from 'node:zlib';

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const CENTRAL_HEADER = 0x02014b50;
const END_RECORD = 0x06054b50;
const U32_MAX = 0xffffffff;

export interface FrontToBackEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  content: Buffer;
  /** Whether the local header announced ZIP64 sizes. */
  zip64: boolean;
}

export function readFrontToBack(zip: Buffer): FrontToBackEntry[] {
  const entries: FrontToBackEntry[] = [];
  let at = 0;
  while (zip.readUInt32LE(at) === LOCAL_HEADER) {
    const flags = zip.readUInt16LE(at + 6);
    const method = zip.readUInt16LE(at + 8);
    let crc = zip.readUInt32LE(at + 14);
    let compressedBytes = zip.readUInt32LE(at + 18);
    let bytes = zip.readUInt32LE(at + 22);
    const nameEnd = at + 30 + zip.readUInt16LE(at + 26);
    const dataStart = nameEnd + zip.readUInt16LE(at + 28);
    const name = zip.toString('utf8', at + 30, nameEnd);
    const zip64 = zip64Field(zip.subarray(nameEnd, dataStart));
    if (zip64 && bytes === U32_MAX) bytes = Number(zip64.readBigUInt64LE(0));
    if (zip64 && compressedBytes === U32_MAX) compressedBytes = Number(zip64.readBigUInt64LE(8));
    let content: Buffer;
    if (flags & 0x0008) {
      if (method !== 8) throw new Error(`${name}: a stored entry whose sizes follow its data cannot be read front to back`);
      const inflated = inflateRawSync(zip.subarray(dataStart), { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
      content = inflated.buffer;
      const dataEnd = dataStart + inflated.engine.bytesWritten;
      const descriptor = zip.readUInt32LE(dataEnd) === DATA_DESCRIPTOR ? dataEnd + 4 : dataEnd;
      crc = zip.readUInt32LE(descriptor);
      compressedBytes = zip64 ? Number(zip.readBigUInt64LE(descriptor + 4)) : zip.readUInt32LE(descriptor + 4);
      bytes = zip64 ? Number(zip.readBigUInt64LE(descriptor + 12)) : zip.readUInt32LE(descriptor + 8);
      if (compressedBytes !== dataEnd - dataStart) throw new Error(`${name}: its data descriptor says ${compressedBytes} compressed bytes, its data has ${dataEnd - dataStart}`);
      at = descriptor + (zip64 ? 20 : 12);
    } else {
      const data = zip.subarray(dataStart, dataStart + compressedBytes);
      content = method === 8 ? inflateRawSync(data) : data;
      at = dataStart + compressedBytes;
    }
    if (content.length !== bytes || crc32(content) !== crc) throw new Error(`${name}: its sizes or CRC-32 do not match its content`);
    entries.push({ name, method, content, zip64: zip64 !== undefined });
  }
  const next = zip.readUInt32LE(at);
  if (next !== CENTRAL_HEADER && next !== END_RECORD) throw new Error(`neither an entry nor the central directory at byte ${at}`);
  return entries;
}

/** The data of the ZIP64 extended information field (id 1) among a header's extra fields. */
function zip64Field(extra: Buffer): Buffer | undefined {
  for (let at = 0; at + 4 <= extra.length; at += 4 + extra.readUInt16LE(at + 2)) {
    if (extra.readUInt16LE(at) === 0x0001) return extra.subarray(at + 4, at + 4 + extra.readUInt16LE(at + 2));
  }
  return undefined;
}
