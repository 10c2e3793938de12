/**
 * A refusal written straight to a socket, past fastify (and so past its onSend hooks): for requests
 * Node's HTTP parser rejects and for CONNECT, which Node never hands to fastify. It carries what every
 * other answer carries (a JSON body, the request id, the security headers) and closes the connection.
 */
import { STATUS_CODES } from 'node:http';
import { SECURITY_HEADERS } from './security-headers.js';

/**
 * The bytes of the response: `headers` are added to those every answer has. `method` is the request's when known:
 * the answer to a HEAD is the head alone, with the Content-Length of the body a GET would get (RFC 9110 §9.3.2),
 * as fastify answers the HEAD of a route.
 */
export function rawRefusal(status: number, body: unknown, requestId: string, headers: Record<string, string> = {}, method?: string): string {
  const text = JSON.stringify(body);
  const lines = Object.entries({ ...headers, ...SECURITY_HEADERS })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
    `x-request-id: ${requestId}\r\n${lines}Connection: close\r\n\r\n${method === 'HEAD' ? '' : text}`
  );
}
