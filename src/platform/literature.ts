/**
 * The indexed literature as resources of a built-in read-only project
 * (default `literature/articles`): each article is a schema.org
 * ScholarlyArticle whose id is the project base followed by the article id,
 * so `resourceId: "<article id>"` in an archive of that project finds it.
 */
import type { ArticleMetadata } from '../corpus/model.js';
import type { Audit } from './audit.js';
import { LITERATURE_CONTEXT } from './contexts.js';
import { rejections } from './errors.js';
import { LATEST_TAG } from './tags.js';
import type { JsonObject } from './jsonld.js';
import type { ProjectState } from './projects.js';
import { projectKey, refOf } from './refs.js';
import type { EntityState, RevisionSelector } from './revisions.js';

/** Articles read from one index generation, kept from release by a newer one until `release` (called once or more). */
export interface HeldArticles {
  getArticle(articleId: string): ArticleMetadata | null;
  release(): void;
}

/** What the platform needs from the search index. */
export interface LiteratureSource {
  getArticle(articleId: string): ArticleMetadata | null;
  listArticleIds(offset: number, limit: number): string[];
  articleCount(): number;
  /** The generation served now, held: what reads an article twice over time (an archive download) reads it from one. */
  hold(): HeldArticles;
}

/** A literature of no articles: the platform served without an index (the archive and replica benchmarks, tests). */
export const NO_ARTICLES: LiteratureSource = {
  getArticle: () => null,
  listArticleIds: () => [],
  articleCount: () => 0,
  hold: () => ({ getArticle: () => null, release: () => {} }),
};

export class LiteratureResources {
  constructor(
    private readonly source: LiteratureSource,
    private readonly project: ProjectState,
    /** Articles have one revision, "created" when the platform opened over the index. */
    private readonly audit: Audit,
  ) {}

  idOf(articleId: string): string {
    return this.project.base + encodeURIComponent(articleId);
  }

  /** The article under `id`, from `articles` (by default the generation served now). */
  fetch(id: string, selector: RevisionSelector, articles: Pick<HeldArticles, 'getArticle'> = this.source): EntityState {
    const project = projectKey(refOf(this.project));
    const articleId = this.articleIdOf(id);
    const article = articleId === null ? null : articles.getArticle(articleId);
    if (!article) {
      // An id outside the base is an IRI the segment named; an article of that very id is what was meant.
      if (articleId === null && articles.getArticle(id)) throw rejections.articleIdReadAsIri(id, project, this.idOf(id));
      throw rejections.resourceNotFound(id, project);
    }
    if ('tag' in selector && selector.tag !== LATEST_TAG) throw rejections.tagNotFound(selector.tag);
    if ('rev' in selector && selector.rev !== 1) throw rejections.revisionNotFound(selector.rev, 1);
    return this.stateOf(article);
  }

  /**
   * `fetch` from one generation, held from the first article read until `release`; nothing is held when no
   * article is read (an archive of platform resources only).
   */
  heldFetch(): { fetch: (id: string, selector: RevisionSelector) => EntityState; release: () => void } {
    let held: HeldArticles | null = null;
    return {
      fetch: (id, selector) => this.fetch(id, selector, (held ??= this.source.hold())),
      release: () => held?.release(),
    };
  }

  list(offset: number, limit: number): { total: number; states: EntityState[] } {
    const states = this.source
      .listArticleIds(offset, limit)
      .map((articleId) => this.source.getArticle(articleId))
      .filter((article): article is ArticleMetadata => article !== null)
      .map((article) => this.stateOf(article));
    return { total: this.source.articleCount(), states };
  }

  private articleIdOf(id: string): string | null {
    if (!id.startsWith(this.project.base)) return null;
    try {
      return decodeURIComponent(id.slice(this.project.base.length));
    } catch {
      return null;
    }
  }

  private stateOf(article: ArticleMetadata): EntityState {
    const id = this.idOf(article.article_id);
    return {
      ...this.audit,
      kind: 'resource',
      id,
      project: projectKey(refOf(this.project)),
      rev: 1,
      deprecated: false,
      source: articleJsonLd(article, id, this.project.vocab),
      tags: {},
    };
  }
}

/** Fields schema.org has no term for live in the project vocabulary. */
function articleJsonLd(article: ArticleMetadata, id: string, vocab: string): JsonObject {
  const sameAs = [
    ...(article.article_doi ? [`https://doi.org/${article.article_doi}`] : []),
    ...(article.pubmed_id ? [`https://pubmed.ncbi.nlm.nih.gov/${article.pubmed_id}/`] : []),
  ];
  const journal =
    article.journal_name || article.journal_issn
      ? {
          '@type': 'Periodical',
          ...(article.journal_name && { name: article.journal_name }),
          ...(article.journal_issn && { issn: article.journal_issn }),
        }
      : undefined;
  return {
    '@context': [
      LITERATURE_CONTEXT,
      {
        citationCount: { '@id': `${vocab}citationCount`, '@type': 'xsd:integer' },
        impactFactor: { '@id': `${vocab}impactFactor`, '@type': 'xsd:double' },
      },
    ],
    '@id': id,
    '@type': 'ScholarlyArticle',
    identifier: article.article_id,
    name: article.article_title,
    author: article.article_authors.map((name) => ({ '@type': 'Person', name })),
    ...(article.date && { datePublished: article.date }),
    ...(article.abstract && { abstract: article.abstract }),
    genre: article.article_type,
    ...(journal && { isPartOf: journal }),
    ...(sameAs.length > 0 && { sameAs }),
    ...(article.cited_by !== null && { citationCount: article.cited_by }),
    ...(article.impact_factor !== null && { impactFactor: article.impact_factor }),
  };
}
