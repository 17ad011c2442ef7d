import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, normalize } from 'node:path';
import { DirectoryRegistryClient } from '../../src/adapters/fs/directory-registry-client.js';
import { GotRegistryClient } from '../../src/adapters/registry/got-registry-client.js';
import { parseRegistryReference } from '../../src/domain/dependencies/registry-reference.js';
import { describeRegistryClientContract } from '../contracts/registry-client.contract.js';
import { MemoryRegistryClient } from '../fakes/memory-registry-client.js';
import { temporaryDirectory } from '../support/paths.js';

function putInto(root: string) {
  return async (files: Record<string, Uint8Array>) => {
    for (const [name, data] of Object.entries(files)) {
      mkdirSync(dirname(join(root, name)), { recursive: true });
      writeFileSync(join(root, name), data);
    }
  };
}

describeRegistryClientContract('MemoryRegistryClient (fake)', () => {
  const client = new MemoryRegistryClient();
  return {
    client,
    put: async (files) => {
      for (const [name, data] of Object.entries(files)) client.files.set(name, data);
    },
  };
}, { publishes: true });

describeRegistryClientContract('DirectoryRegistryClient', () => {
  const directory = temporaryDirectory('cap-registry-contract-');
  return { client: new DirectoryRegistryClient(directory.path), put: putInto(directory.path), dispose: directory.remove };
}, { publishes: true });

describeRegistryClientContract('GotRegistryClient over http on loopback', async () => {
  const directory = temporaryDirectory('cap-registry-contract-');
  // A static file server, as a registry host is: the files below the root, 404 for the rest.
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url!, 'http://x').pathname));
    readFile(join(directory.path, path)).then(
      (data) => response.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(data),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const secret = 'registry-password-never-shown';
  const reference = parseRegistryReference(`http://reader:${secret}@127.0.0.1:${(server.address() as AddressInfo).port}/`);
  if (reference.kind !== 'url') throw new Error('not a URL');
  return {
    client: new GotRegistryClient(reference, { isTTY: false, write: () => true }),
    put: putInto(directory.path),
    secret,
    dispose: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      directory.remove();
    },
  };
}, { publishes: false });
