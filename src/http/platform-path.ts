/**
 * Whether a request target or a route's path is the /v1 API's (`/v1`, `/v1/…`, `/v1?…`; `/v1x` is not): its
 * answers and refusals are in the Nexus vocabulary, every other path's in the literature one.
 */
export function addressesPlatform(url: string): boolean {
  return /^\/v1(?:[/?]|$)/.test(url);
}
