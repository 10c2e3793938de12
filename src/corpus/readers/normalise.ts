/** Small value normalisations shared by the readers. */
import { ISSN_PATTERN } from '../model.js';

/**
 * Collapses runs of whitespace (including the newlines and indentation of
 * pretty-printed XML) to one space and trims the ends.
 */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** An ISSN in canonical XXXX-XXXX form, or null when `raw` is not one. */
export function normaliseIssn(raw: string | null | undefined): string | null {
  if (raw == null) return null;
  let issn = raw.trim().toUpperCase();
  if (/^\d{7}[\dX]$/.test(issn)) issn = `${issn.slice(0, 4)}-${issn.slice(4)}`;
  return ISSN_PATTERN.test(issn) ? issn : null;
}

/** Trimmed, non-empty text or null. */
export function nonEmpty(text: string | null | undefined): string | null {
  if (text == null) return null;
  const trimmed = text.trim();
  return trimmed.length > 0 ? trimmed : null;
}

/**
 * A structured-abstract label as a readable heading: "BACKGROUND" becomes
 * "Background", "MATERIALS AND METHODS" becomes "Materials and methods";
 * labels that are not all capitals are kept as written. Trailing ":" or "."
 * is dropped because the label is re-attached with ": ".
 */
export function labelAsHeading(label: string): string {
  const cleaned = collapseWhitespace(label).replace(/[\s:.]+$/, '');
  if (cleaned !== cleaned.toUpperCase() || cleaned === cleaned.toLowerCase()) return cleaned;
  return cleaned.charAt(0) + cleaned.slice(1).toLowerCase();
}

/**
 * Prefixes an abstract paragraph with its structured-abstract label.
 * The data model defines the abstract as the paragraphs of section
 * "Abstract", so labels cannot become sections of their own without the
 * labelled parts dropping out of the abstract; keeping "Background: ..." in
 * the text preserves the structure instead.
 */
export function withLabel(label: string | null, text: string): string {
  const heading = label ? labelAsHeading(label) : '';
  return heading ? `${heading}: ${text}` : text;
}

/** A value such as "Clinical Trial, Phase III" as a lower-case hyphenated slug. */
export function slug(value: string): string {
  return value
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** A DOI without the "doi:" or resolver-URL prefix some sources add, or null. */
export function normaliseDoi(raw: string | null | undefined): string | null {
  const doi = nonEmpty(raw?.replace(/^\s*(?:doi:\s*|https?:\/\/(?:dx\.)?doi\.org\/)/i, ''));
  return doi;
}

/** The non-null values in order, each once (a journal's ISSNs, an article's types). */
export function distinctValid(values: readonly (string | null)[]): string[] {
  return [...new Set(values.filter((value): value is string => value !== null))];
}
