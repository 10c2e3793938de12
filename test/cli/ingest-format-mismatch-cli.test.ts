/** `ingest --format` over a folder holding a file of another format names that file and counts it as skipped. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../search/helpers.js';
import { ingestCli } from './ingest-command.js';

const PUBMED = `<?xml version="1.0"?>
<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>T</ArticleTitle>
<Abstract><AbstractText>Grid cells.</AbstractText></Abstract></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>`;
const JATS = `<?xml version="1.0"?>
<article><front><article-meta><title-group><article-title>T</article-title></title-group></article-meta></front><body><p>Place cells.</p></body></article>`;

describe('npm run ingest -- --format pubmed over a folder with a JATS article', () => {
  it('reports the article as not PubMed and counts it among the skipped files', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const papers = path.join(dir, 'papers');
      await mkdir(papers);
      const jats = path.join(papers, 'a.nxml');
      await writeFile(jats, JATS);
      await writeFile(path.join(papers, 'b.xml'), PUBMED);
      const { code, stderr } = ingestCli('--input', papers, '--index', path.join(dir, 'index'), '--format', 'pubmed');
      expect(code).toBe(0);
      expect(stderr).toContain(`skipped ${jats}: not PubMed XML: its root element is <article>, not <PubmedArticleSet>, <PubmedArticle>, <MedlineCitationSet> or <MedlineCitation> (every input is read as --format pubmed`);
      expect(stderr).toContain('ingest: files: 1 read, 1 skipped (not recognised or unreadable); records: read 1, indexed 1');
    } finally {
      await cleanup();
    }
  });
});
