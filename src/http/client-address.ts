/**
 * clientKey(address) -> the key the per-client bounds count an address under (the in-flight share,
 * the connection cap, the rate limit): one client, however it spells or rotates its address.
 *
 * An IPv6 client is usually given a whole /64 (SLAAC needs one per link) and may take any address in
 * it: counted by address, it would take a fresh share, connection allowance and rate limit with each.
 * So an IPv6 address counts as its /64. The prefix is fixed, not a setting: narrower leaves that
 * rotation open, and wider (/56, /48) lumps together the customers of providers that give each one
 * a /64. Hosts of one /64 (a LAN reaching the server directly, virtual machines a host gives addresses
 * of one /64) then share the bounds, as hosts behind one IPv4 NAT share an address: raising the
 * per-client bounds, or setting them to 0, is the remedy for both.
 *
 * An IPv4 client seen on a dual-stack listener as an IPv4-mapped address (`::ffff:192.0.2.1`) is its
 * IPv4 address. Anything that is no address is its own key, unchanged; none at all is ''.
 */
import { isIP } from 'node:net';

/** 16-bit groups of an IPv6 address: the first four are its /64 prefix. */
const PREFIX_GROUPS = 4;

export function clientKey(address: string | undefined): string {
  // A socket closed before its address was first read has none (request.ip is then undefined, whatever its type says).
  if (address === undefined) return '';
  if (isIP(address) === 4) return address;
  // A zone id (`fe80::1%eth0`) names the server's interface the client came in on, not the client.
  const zone = address.indexOf('%');
  const unzoned = zone === -1 ? address : address.slice(0, zone);
  if (isIP(unzoned) !== 6) return address;
  const groups = groupsOf(unzoned);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${compressed([...groups.slice(0, PREFIX_GROUPS), 0, 0, 0, 0])}/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail as two groups). */
function groupsOf(ipv6: string): number[] {
  const parse = (part: string) =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = '', tail] = ipv6.split('::');
  if (tail === undefined) return parse(head);
  const left = parse(head);
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** RFC 5952 text: lower-case hex without leading zeros, the longest run (the first of equals) of two or more zero groups as `::`. */
function compressed(groups: number[]): string {
  let runStart = -1;
  let runLength = 1;
  for (let start = 0; start < groups.length; start++) {
    let end = start;
    while (groups[end] === 0) end++;
    if (end - start > runLength) [runStart, runLength] = [start, end - start];
  }
  const hex = groups.map((group) => group.toString(16));
  if (runStart === -1) return hex.join(':');
  return `${hex.slice(0, runStart).join(':')}::${hex.slice(runStart + runLength).join(':')}`;
}
