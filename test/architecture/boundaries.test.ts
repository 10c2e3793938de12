/**
 * The import map of docs/DESIGN.md ("The map: what each folder may import") is
 * the rule: this test reads the table from the document, parses the imports of
 * every file under src/, and fails when a folder imports what its row does not
 * list (or imports values where its row allows types only). The document and the
 * check cannot drift apart, and a new folder needs a row before it can import.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DESIGN = path.join(ROOT, 'docs/DESIGN.md');
const MAP_HEADING = '## The map: what each folder may import';
/** The row of the files directly in src/ (composition root and shared leaves). */
const ROOT_FILES = 'src/*.ts';

interface Row {
  area: string;
  /** Areas or single files whose values (and types) may be imported; '*' is everything. */
  values: string[];
  /** Areas or single files whose types only may be imported. */
  types: string[];
}

interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function cellPaths(cell: string): string[] {
  if (/\beverything\b/i.test(cell)) return ['*'];
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1].replace(/\/$/, ''));
}

function parseMap(markdown: string): Row[] {
  const start = markdown.indexOf(MAP_HEADING);
  if (start < 0) throw new Error(`docs/DESIGN.md has no "${MAP_HEADING}" section`);
  const section = markdown.slice(start + MAP_HEADING.length).split(/\n## /)[0];
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `src'))
    .map((line) => {
      const [area, , values, types] = line.split('|').slice(1, -1);
      return { area: cellPaths(area)[0], values: cellPaths(values), types: cellPaths(types) };
    });
}

/** The row a file belongs to: the longest folder that contains it, or the root files' row. */
function areaOf(file: string, rows: Row[]): string {
  if (!file.startsWith('src/')) return file;
  if (path.posix.dirname(file) === 'src') return ROOT_FILES;
  const folders = rows.map((row) => row.area).filter((area) => area !== ROOT_FILES && file.startsWith(`${area}/`));
  if (folders.length === 0) throw new Error(`${file} is in no folder of the map in docs/DESIGN.md`);
  return folders.sort((a, b) => b.length - a.length)[0];
}

function allows(targets: string[], file: string, area: string): boolean {
  return targets.some((target) => target === '*' || target === area || target === file || (target === ROOT_FILES && area === ROOT_FILES));
}

/** The edges that break the map, as readable lines. */
function violations(edges: ImportEdge[], rows: Row[]): string[] {
  const byArea = new Map(rows.map((row) => [row.area, row]));
  return edges.flatMap(({ from, to, typeOnly }) => {
    const fromArea = areaOf(from, rows);
    const toArea = areaOf(to, rows);
    if (fromArea === toArea && fromArea !== ROOT_FILES) return [];
    const row = byArea.get(fromArea)!;
    if (allows(row.values, to, toArea) || (typeOnly && allows(row.types, to, toArea))) return [];
    const kind = typeOnly ? 'types' : 'values';
    return [`${from} imports ${kind} from ${to}, which the ${fromArea} row does not allow`];
  });
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(ROOT, dir), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const relative = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(relative);
      return /\.(ts|js|mjs)$/.test(entry.name) ? [relative] : [];
    }),
  );
  return nested.flat();
}

/** Relative imports, re-exports and dynamic imports of one file; a relative `.js` names its `.ts` source. */
function importsOf(file: string, text: string): ImportEdge[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    if (!specifier.startsWith('.')) return;
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
    edges.push({ from: file, to: file.endsWith('.ts') ? resolved.replace(/\.js$/, '.ts') : resolved, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      // Only `import type` is erased for sure: `import { type X }` may still load the module.
      add(node.moduleSpecifier.text, node.importClause?.isTypeOnly === true);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteral(argument)) add(argument.text, false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

async function projectEdges(): Promise<ImportEdge[]> {
  const files = await sourceFiles('src');
  const perFile = await Promise.all(files.map(async (file) => importsOf(file, await readFile(path.join(ROOT, file), 'utf8'))));
  return perFile.flat();
}

describe('import boundaries (the map in docs/DESIGN.md)', () => {
  it('every src folder has a row, and every row names a folder that exists', async () => {
    const rows = parseMap(await readFile(DESIGN, 'utf8'));
    expect(rows.length).toBeGreaterThan(10);
    const files = await sourceFiles('src');
    for (const file of files) expect(() => areaOf(file, rows), file).not.toThrow();
    const folders = new Set(files.map((file) => path.posix.dirname(file)));
    for (const row of rows.filter((each) => each.area !== ROOT_FILES)) {
      expect([...folders].some((folder) => folder === row.area || folder.startsWith(`${row.area}/`)), row.area).toBe(true);
    }
  });

  it('no src file imports across a seam the map forbids', async () => {
    const rows = parseMap(await readFile(DESIGN, 'utf8'));
    const edges = await projectEdges();
    // The parser finds the imports that cross seams (not only those inside a folder).
    expect(edges.filter((edge) => areaOf(edge.from, rows) !== areaOf(edge.to, rows)).length).toBeGreaterThan(50);
    expect(violations(edges, rows)).toEqual([]);
  });

  it('flags a forbidden import, and a value import where only types are allowed', async () => {
    const rows = parseMap(await readFile(DESIGN, 'utf8'));
    const forbidden = importsOf('src/search/searcher.ts', "import { ApiError } from '../http/errors.js';");
    expect(violations(forbidden, rows)).toEqual([
      'src/search/searcher.ts imports values from src/http/errors.ts, which the src/search row does not allow',
    ]);
    const typeOnly = importsOf('src/llm/index.ts', "import type { Config } from '../config.js';");
    expect(violations(typeOnly, rows)).toEqual([]);
    const value = importsOf('src/llm/index.ts', "import { loadConfig } from '../config.js';");
    expect(violations(value, rows)).toHaveLength(1);
    const dynamic = importsOf('src/platform/store.ts', "await import('../http/platform/index.js');");
    expect(violations(dynamic, rows)).toHaveLength(1);
  });
});
