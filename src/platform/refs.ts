/**
 * Labels of organizations and projects, project references and ACL addresses.
 * Labels are the only user-chosen names that reach URLs and ACL addresses, so
 * they are restricted to a safe alphabet.
 */
export const LABEL_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const LABEL = new RegExp(LABEL_PATTERN);

function isLabel(value: string): boolean {
  return LABEL.test(value);
}

export interface ProjectRef {
  org: string;
  project: string;
}

/** The reference of a stored project, which names itself `label`. */
export function refOf(project: { org: string; label: string }): ProjectRef {
  return { org: project.org, project: project.label };
}

/** `org/project`, the form used in `_project` and in archive entries. */
export function projectKey(ref: ProjectRef): string {
  return `${ref.org}/${ref.project}`;
}

/** Parses `org/project`; null when it is not two valid labels. */
export function parseProjectRef(text: string): ProjectRef | null {
  const parts = text.split('/');
  if (parts.length !== 2 || !isLabel(parts[0]!) || !isLabel(parts[1]!)) return null;
  return { org: parts[0]!, project: parts[1]! };
}

/** An ACL address: `/`, `/{org}` or `/{org}/{project}`. */
export type AclAddress = string;

export function orgAddress(org: string): AclAddress {
  return `/${org}`;
}

export function projectAddress(ref: ProjectRef): AclAddress {
  return `/${ref.org}/${ref.project}`;
}

/** Parses an ACL address; null when it is not `/`, `/{org}` or `/{org}/{project}` with valid labels. */
export function parseAclAddress(text: string): AclAddress | null {
  if (text === '/') return '/';
  const parts = text.split('/');
  if (parts[0] !== '' || parts.length > 3 || parts.slice(1).some((p) => !isLabel(p))) return null;
  return text;
}

/** The address and its ancestors, most specific first: `/a/b`, `/a`, `/`. */
export function addressChain(address: AclAddress): AclAddress[] {
  const chain: AclAddress[] = [];
  let current = address;
  while (current !== '/') {
    chain.push(current);
    const cut = current.lastIndexOf('/');
    current = cut === 0 ? '/' : current.slice(0, cut);
  }
  chain.push('/');
  return chain;
}
