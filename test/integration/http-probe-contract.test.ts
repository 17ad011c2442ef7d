import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FetchHttpProbe } from '../../src/adapters/http/fetch-http-probe.js';
import { describeHttpProbeContract } from '../contracts/http-probe.contract.js';
import { ScriptedHttpProbe, type ScriptedPage } from '../fakes/scripted-http-probe.js';

/** A loopback origin where nothing listens: a port taken, then let go. */
async function unreachable(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describeHttpProbeContract('ScriptedHttpProbe (fake)', async () => {
  const probe = new ScriptedHttpProbe('http://reactor.test');
  return { probe, origin: probe.origin, serve: (pages) => void Object.assign(probe.pages, pages), unreachable: await unreachable() };
});

describeHttpProbeContract('FetchHttpProbe against node:http on loopback', async () => {
  let pages: Record<string, ScriptedPage> = {};
  const server = createServer((request, response) => {
    const page = pages[request.url!] ?? { status: 404, body: 'not found', type: 'text/plain' };
    if (page.status >= 300 && page.status < 400) response.setHeader('Location', '/new');
    if (page.type) response.setHeader('Content-Type', page.type);
    response.writeHead(page.status).end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    probe: new FetchHttpProbe(),
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve: (table) => void (pages = table),
    unreachable: await unreachable(),
    dispose: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
});
