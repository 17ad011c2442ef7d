import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import { clientOf } from '../../src/adapters/http/observability/access-log.js';

const requestFrom = (peer: string, forwarded?: string | string[]) => ({ headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded }, socket: { remoteAddress: peer } }) as unknown as IncomingMessage;

describe('the client address of a log line', () => {
  it('is the socket peer without --trust-proxy, whatever X-Forwarded-For says', () => {
    expect(clientOf(requestFrom('127.0.0.1', '203.0.113.7'), false)).toBe('127.0.0.1');
  });

  // nginx's $proxy_add_x_forwarded_for appends the peer it saw to what the client sent.
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['198.51.100.99, 203.0.113.7', '203.0.113.7'],
    ['"><script>, 203.0.113.7', '203.0.113.7'],
    [['198.51.100.99', '203.0.113.7'], '203.0.113.7'],
    ['198.51.100.99,2001:db8::1', '2001:db8::1'],
  ])('with --trust-proxy, is the last address of X-Forwarded-For %j', (forwarded, client) => {
    expect(clientOf(requestFrom('127.0.0.1', forwarded), true)).toBe(client);
  });

  it.each([['203.0.113.7, "><script>'], ['unknown'], [''], ['203.0.113.7,']])('with --trust-proxy, is the socket peer when the last entry of %j is not an IP address', (forwarded) => {
    expect(clientOf(requestFrom('127.0.0.1', forwarded), true)).toBe('127.0.0.1');
  });
});
