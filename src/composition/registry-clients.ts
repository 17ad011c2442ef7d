import { resolve } from 'node:path';
import { parseRegistryReference } from '../domain/dependencies/registry-reference.js';
import type { RegistryClient, RegistryClients } from '../application/ports/registry-client.js';
import { DirectoryRegistryClient } from '../adapters/fs/directory-registry-client.js';
import { GotRegistryClient } from '../adapters/registry/got-registry-client.js';

/** Picks the registry adapter for a reference: a directory, or a base URL reached with got. */
export class LocalRegistryClients implements RegistryClients {
  open(reference: string): RegistryClient {
    const parsed = parseRegistryReference(reference);
    return parsed.kind === 'directory' ? new DirectoryRegistryClient(resolve(parsed.path)) : new GotRegistryClient(parsed);
  }
}
