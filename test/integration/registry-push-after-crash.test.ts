import { afterAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DirectoryRegistryClient } from '../../src/adapters/fs/directory-registry-client.js';
import { temporaryDirectory } from '../support/paths.js';

const registry = temporaryDirectory('cap-registry-crash-');
afterAll(() => registry.remove());

const GUID = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';
const publication = (bytes: Buffer) => ({ guid: GUID, name: 'site', version: '1.0.0', sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length });
async function* chunks(bytes: Buffer): AsyncIterable<Uint8Array> {
  yield bytes;
}
const fileOf = () => join(registry.path, 'site-1.0.0.cap');
const indexOf = () => join(registry.path, 'index.json');

// A push writes index.json, then renames its new bytes onto the package's file: a push killed
// (SIGKILL, a power cut) between the two leaves an entry naming bytes the file lacks. The
// operator pushes again: that push must write them, not answer that the version is there.
describe('a directory registry after a push killed between its index write and its file rename', () => {
  const client = new DirectoryRegistryClient(registry.path);
  const old = Buffer.from('old bytes');
  const renewed = Buffer.from('new bytes, longer');

  it('a first push: the entry without its file is written again by the next push of the same bytes', async () => {
    await client.publish(publication(old), chunks(old), { overwrite: false });
    rmSync(fileOf());
    expect(await client.publish(publication(old), chunks(old), { overwrite: false })).toMatchObject({ published: true });
    expect(readFileSync(fileOf())).toEqual(old);
  });

  it('a --force push: the entry naming the new bytes beside the old file is made true by pushing the new bytes again, with or without --force', async () => {
    const index = JSON.parse(readFileSync(indexOf(), 'utf8')) as { packages: Record<string, { versions: Record<string, object> }> };
    index.packages[GUID]!.versions['1.0.0'] = { file: 'site-1.0.0.cap', sha256: publication(renewed).sha256, size: renewed.length };
    writeFileSync(indexOf(), JSON.stringify(index));
    expect(await client.publish(publication(renewed), chunks(renewed), { overwrite: false })).toMatchObject({ published: true });
    expect(readFileSync(fileOf())).toEqual(renewed);
    // Once in step, a push of the same bytes writes nothing.
    expect(await client.publish(publication(renewed), chunks(renewed), { overwrite: false })).toMatchObject({ published: false });
  });
});
