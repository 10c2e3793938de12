// Types of build-dist.mjs (plain JavaScript, see there), for the TypeScript that imports it.
export const ROOT: string;
export const DIST: string;
export function buildDist(outDir?: string): Promise<void>;
export function distIsCurrent(outDir?: string): Promise<boolean>;
