import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { VALID_METADATA } from '../support/demo-package.js';
import { eventually } from '../support/eventually.js';
import { startListening } from '../support/listening-reactor.js';
import { temporaryDirectory } from '../support/paths.js';
import { productionOpener } from '../support/production-container.js';
import { watchUnexpectedErrors } from '../support/unexpected-errors.js';

/** Over the in-memory limit: streamed from the directory, chunk by chunk. */
const BIG = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
const work = temporaryDirectory('cap-client-abort-');

/** A GET whose client reads the first bytes of the answer, then closes the connection. */
function getAndLeave(base: string, path: string): Promise<void> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    socket.once('data', () => socket.destroy());
    socket.once('close', () => resolve());
    socket.once('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  });
}

let fixture: Awaited<ReturnType<typeof startListening>>;
const errors = watchUnexpectedErrors();
beforeAll(async () => {
  const site = join(work.path, 'site');
  mkdirSync(join(site, 'content'), { recursive: true });
  writeFileSync(join(site, 'metadata.json'), JSON.stringify(VALID_METADATA));
  writeFileSync(join(site, 'content/big.bin'), BIG);
  writeFileSync(join(site, 'content/small.txt'), 'small');
  fixture = await startListening(productionOpener(), [{ source: site }], { workdir: join(work.path, 'workdir') });
});
afterAll(async () => {
  errors.stop();
  await fixture.stop();
  work.remove();
});

describe('a client that closes the connection in the middle of a download', () => {
  it('ends the answer normally: nothing on stderr, one access-log line and one count per request, with the status sent', async () => {
    const counted = () => fixture.reactor.log.metrics().requestsByStatus['200'] ?? 0;
    const before = counted();
    for (let i = 0; i < 5; i++) await getAndLeave(fixture.base, '/big.bin');
    const logged = () => fixture.lines.filter((line) => line.endsWith('GET /big.bin -> 200')).length;
    await eventually(async () => logged() >= 5, 'five access-log lines');
    // Time for a second record of any of them to show.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(logged()).toBe(5);
    expect(counted() - before).toBe(5);
    expect(errors.unexpected).toEqual([]);
    // The reactor still answers the whole file.
    expect((await (await fetch(`${fixture.base}/big.bin`)).arrayBuffer()).byteLength).toBe(BIG.length);
  });

  it('counts each pipelined answer its own bytes, not those queued before it, nor bytes of the one before sent after an await', async () => {
    const { hostname, port } = new URL(fixture.base);
    // The package's answers only: /metrics is the reactor's own.
    const sentByPackage = async () => {
      const metrics = await (await fetch(`${fixture.base}/metrics`)).text();
      return [...metrics.matchAll(/^pkg_http_response_bytes_total\{mount="\/",[^}]*\} (\d+)$/gm)].reduce((sum, [, value]) => sum + Number(value), 0);
    };
    // A 404 is answered after looking for the file (an await): the answers behind it are written before it is.
    for (const paths of [['/small.txt', '/small.txt', '/small.txt'], ['/missing.txt', '/small.txt', '/small.txt']]) {
      const before = await sentByPackage();
      const received = await new Promise<number>((resolve, reject) => {
        const socket = connect(Number(port), hostname);
        let bytes = 0;
        socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
        socket.on('end', () => resolve(bytes));
        socket.on('error', reject);
        socket.end(paths.map((path, i) => `GET ${path} HTTP/1.1\r\nHost: x\r\n${i === paths.length - 1 ? 'Connection: close\r\n' : ''}\r\n`).join(''));
      });
      await eventually(async () => (await sentByPackage()) - before === received, `the answers to ${paths.join(', ')} counted as the bytes the client read`);
    }
  });
});
