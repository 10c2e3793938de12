/**
 * JSON-LD contexts bundled with the server and the document loader that
 * serves them. The loader never touches the network: any other remote context
 * is an error, reported to the client as InvalidJsonLdFormat.
 */
// Imported rather than read from disk, so that bundles (the single executable) carry them.
import archivesContext from './contexts/archives.json' with { type: 'json' };
import literatureContext from './contexts/literature.json' with { type: 'json' };
import metadataContext from './contexts/metadata.json' with { type: 'json' };

const NEXUS_CONTEXTS = 'https://bluebrain.github.io/nexus/contexts/';

export const METADATA_CONTEXT = `${NEXUS_CONTEXTS}metadata.json`;
export const ARCHIVES_CONTEXT = `${NEXUS_CONTEXTS}archives.json`;
export const ARCHIVES_METADATA_CONTEXT = `${NEXUS_CONTEXTS}archives-metadata.json`;
export const ERROR_CONTEXT = `${NEXUS_CONTEXTS}error.json`;
export const ACLS_CONTEXT = `${NEXUS_CONTEXTS}acls.json`;
export const PROJECTS_CONTEXT = `${NEXUS_CONTEXTS}projects.json`;
export const ORGS_CONTEXT = `${NEXUS_CONTEXTS}organizations.json`;

export const NXV = 'https://bluebrain.github.io/nexus/vocabulary/';
export const UNCONSTRAINED_SCHEMA = 'https://bluebrain.github.io/nexus/schemas/unconstrained.json';
export const ARCHIVE_SCHEMA = 'https://bluebrain.github.io/nexus/schemas/archives.json';
export const FILE_SCHEMA = 'https://bluebrain.github.io/nexus/schemas/files.json';

const DOCUMENTS = new Map<string, unknown>([
  [METADATA_CONTEXT, metadataContext],
  [ARCHIVES_CONTEXT, archivesContext],
]);

/** The schema.org terms of the literature articles, used as an inline context. */
export const LITERATURE_CONTEXT = literatureContext as Record<string, unknown>;

class ContextNotAvailable extends Error {}

export async function localDocumentLoader(url: string) {
  const document = DOCUMENTS.get(url);
  if (document === undefined) {
    throw new ContextNotAvailable(`context '${url}' is not bundled with the server and remote contexts are never fetched`);
  }
  return { contextUrl: undefined, documentUrl: url, document };
}
