/** A segment file that cannot be read: not a segment, another format version, truncated or damaged. */
export class SegmentFormatError extends Error {}
