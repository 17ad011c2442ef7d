import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** What the proxy nearest the reactor says it saw: the client's address and the scheme it was reached over. */
export interface ProxyHop {
  /** An IP address, or undefined when the proxy gave none (`unknown`, an obfuscated name, nothing). */
  client?: string;
  /** Lower-cased, as the proxy wrote it (`https`). */
  proto?: string;
}

/**
 * The nearest proxy's word on a request (only read under `--trust-proxy`): the last entry
 * of `X-Forwarded-For` and `X-Forwarded-Proto` when the request carries either, else the
 * last element of RFC 7239 `Forwarded`. Entries before the last are whatever the client
 * sent (a proxy appends to them), so only the last counts. The X-Forwarded forms win
 * because a proxy that sets them (nginx as the README shows) passes a client's own
 * `Forwarded` on untouched: read first, it would let any client name its address and scheme.
 */
export function nearestHop(request: IncomingMessage): ProxyHop {
  const { headers } = request;
  if (headers['x-forwarded-for'] !== undefined || headers['x-forwarded-proto'] !== undefined) {
    const client = lastEntry(headers['x-forwarded-for']);
    return { client: client !== undefined && isIP(client) !== 0 ? client : undefined, proto: lastEntry(headers['x-forwarded-proto'])?.toLowerCase() };
  }
  const forwarded = headers.forwarded;
  if (forwarded === undefined) return {};
  const last = parseForwarded(Array.isArray(forwarded) ? forwarded.join(',') : forwarded).at(-1);
  return { client: nodeAddress(last?.get('for')), proto: last?.get('proto')?.toLowerCase() };
}

function lastEntry(header: string | string[] | undefined): string | undefined {
  const joined = Array.isArray(header) ? header.join(',') : header;
  return joined?.slice(joined.lastIndexOf(',') + 1).trim();
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/**
 * `name=value` or `name="quoted string"`. A bare value is any visible text but a quote, not
 * only a token: proxies configured by hand write `host=example.org:8443` and `for=2001:db8::1`
 * unquoted, which only the separators could make ambiguous, and those are split off before.
 * Its alternatives never overlap, so it runs in linear time on any text.
 */
const PAIR = new RegExp(`^(${TOKEN})=(?:([\\x21\\x23-\\x7e]+)|"((?:[^"\\\\]|\\\\[\\s\\S])*)")$`);

/**
 * The elements of a `Forwarded` header (RFC 7239 §4), each its parameters by lower-cased
 * name, in order; empty list elements are skipped, as lists allow. An element that breaks
 * the grammar (a pair without `=`, a value with a space or a stray quote, a parameter
 * twice, a quote never closed) is kept, empty: the proxy's element is still the last one,
 * and one it mangled must not give way to what the client wrote before it.
 */
export function parseForwarded(header: string): Array<Map<string, string>> {
  const elements: Array<Map<string, string>> = [];
  for (const element of splitUnquoted(header, ',')) {
    if (element.trim() === '') continue;
    const pairs = new Map<string, string>();
    for (const pair of splitUnquoted(element, ';')) {
      const text = pair.trim();
      if (text === '') continue;
      const match = PAIR.exec(text);
      const name = match?.[1]!.toLowerCase();
      if (name === undefined || pairs.has(name)) {
        pairs.clear();
        break;
      }
      pairs.set(name, match![2] ?? match![3]!.replace(/\\([\s\S])/g, '$1'));
    }
    elements.push(pairs);
  }
  return elements;
}

/**
 * The text between separators outside quoted strings, in one pass (a header is at most
 * the server's header limit, and this reads it once). A quote never closed runs to the
 * end: the piece holding it fails the pair grammar.
 */
function splitUnquoted(text: string, separator: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quoted && char === '\\') index++;
    else if (char === '"') quoted = !quoted;
    else if (!quoted && char === separator) {
      pieces.push(text.slice(start, index));
      start = index + 1;
    }
  }
  pieces.push(text.slice(start));
  return pieces;
}

/**
 * The IP address of a `for` node (RFC 7239 §6): `192.0.2.43`, `"192.0.2.43:47011"`,
 * `"[2001:db8::17]:4711"`; a bare IPv6 address as some proxies write it. `unknown` and
 * obfuscated names (`_hidden`) are no address.
 */
function nodeAddress(node: string | undefined): string | undefined {
  if (node === undefined) return undefined;
  if (isIP(node) === 4 || isIP(node) === 6) return node;
  const bracketed = /^\[([^\]]*)\](?::([^:]*))?$/.exec(node);
  if (bracketed) return isIP(bracketed[1]!) === 6 && portOk(bracketed[2]) ? bracketed[1] : undefined;
  const colon = node.lastIndexOf(':');
  return colon > 0 && isIP(node.slice(0, colon)) === 4 && portOk(node.slice(colon + 1)) ? node.slice(0, colon) : undefined;
}

/** A node's port: digits, or an obfuscated one (`_abc`). */
function portOk(port: string | undefined): boolean {
  return port === undefined || /^(?:\d{1,5}|_[\w.-]+)$/.test(port);
}
