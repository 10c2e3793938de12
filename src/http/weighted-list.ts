/**
 * The members of a header listing weighted choices (`Accept`, `Accept-Encoding`: `name;q=0.5, other`),
 * each lower-cased with its quality (RFC 9110 §12.4.2): 1 when not given, clamped to 0–1, and 0 when
 * unreadable (such a member accepts nothing). Members' other parameters are left out.
 */
export function weightedMembers(header: string): { name: string; q: number }[] {
  return header.split(',').map((member) => {
    const [name = '', ...params] = member.split(';').map((s) => s.trim().toLowerCase());
    const weight = params.find((p) => p.startsWith('q='));
    const q = weight === undefined ? 1 : Number(weight.slice(2));
    return { name, q: Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0 };
  });
}
