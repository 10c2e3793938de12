/** Who created and last changed something, and when; rendered as the `_created*` / `_updated*` fields. */
import { type Identity, principalIri } from './identities.js';

export type Subject = Identity['subject'];

export interface Audit {
  createdAt: number;
  createdBy: Subject;
  updatedAt: number;
  updatedBy: Subject;
}

export function createdBy(identity: Identity, now: number): Audit {
  return { createdAt: now, createdBy: identity.subject, updatedAt: now, updatedBy: identity.subject };
}

/** Only the audit fields, so spreading the result over a state changes nothing else. */
export function updatedBy(audit: Audit, identity: Identity, now: number): Audit {
  return { createdAt: audit.createdAt, createdBy: audit.createdBy, updatedAt: now, updatedBy: identity.subject };
}

export function auditFields(audit: Audit, baseUri: string) {
  return {
    _createdAt: new Date(audit.createdAt).toISOString(),
    _createdBy: principalIri(baseUri, audit.createdBy),
    _updatedAt: new Date(audit.updatedAt).toISOString(),
    _updatedBy: principalIri(baseUri, audit.updatedBy),
  };
}
