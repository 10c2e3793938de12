/**
 * The members of a header listing weighted choices (`Accept`, `Accept-Encoding`: `name;q=0.5, other`),
 * each lower-cased with its quality (RFC 9110 §12.4.2). A qvalue is 0 to 1 with at most three decimals;
 * a weight outside that grammar is read leniently, never refused: a number is clamped to 0–1 (`q=2` is
 * 1, `q=-1` is 0), and a weight that is no number at all (`q=abc`, `q=`) is ignored, as if not given,
 * so 1 as well. Members' other parameters are left out.
 */
export function weightedMembers(header: string): { name: string; q: number }[] {
  return header.split(',').map((member) => {
    const [name = '', ...params] = member.split(';').map((s) => s.trim().toLowerCase());
    const weight = params.find((p) => p.startsWith('q='));
    return { name, q: weight === undefined ? 1 : qualityOf(weight.slice(2)) };
  });
}

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

function qualityOf(weight: string): number {
  return DECIMAL.test(weight) ? Math.min(Math.max(Number(weight), 0), 1) : 1;
}
