import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { Publication, RegistryClient } from '../../src/application/ports/registry-client.js';
import { FetchError, InvalidRegistryError, OutputExistsError } from '../../src/domain/errors.js';
import { bytes, chunks, collect, eachSubject, failing, type Subject } from './subject.js';

export interface RegistryClientSubject {
  client: RegistryClient;
  /** Puts files at the registry's root (`index.json` among them), as its operator would. */
  put(files: Record<string, Uint8Array>): Promise<void>;
  /** A secret in the reference the client was opened with: it must never be printed. */
  secret?: string;
}

const GUID = 'pkg://example.org/lib';
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const json = (value: unknown) => bytes(JSON.stringify(value));

/** The promises of the RegistryClient port (src/application/ports/registry-client.ts). */
export function describeRegistryClientContract(
  name: string,
  makeSubject: () => Promise<Subject<RegistryClientSubject>> | Subject<RegistryClientSubject>,
  /** Whether this registry takes publications (directory registries do). */
  { publishes }: { publishes: boolean },
): void {
  describe(`${name} keeps the RegistryClient contract`, () => {
    const subject = eachSubject(makeSubject);
    const payload = randomBytes(300_000);
    const entry = { file: 'packages/lib-1.0.0.cap', sha256: sha256(payload), size: payload.length };

    it('reads index.json, checked: hex digests in lower case', async () => {
      await subject().put({ 'index.json': json({ packages: { [GUID]: { name: 'lib', versions: { '1.0.0': { ...entry, sha256: entry.sha256.toUpperCase() } } } } }) });
      expect(await subject().client.index()).toEqual({ packages: { [GUID]: { name: 'lib', versions: { '1.0.0': entry } } } });
    });

    it('refuses an index that is not JSON, or not of the registry shape, with InvalidRegistryError', async () => {
      for (const index of [bytes('{"packages": '), json([]), json({ packages: { [GUID]: { name: 'lib', versions: { latest: entry } } } }), json({ packages: { [GUID]: { name: 'lib', versions: { '1.0.0': { ...entry, sha256: 'abc' } } } } })]) {
        await subject().put({ 'index.json': index });
        await expect(subject().client.index()).rejects.toThrow(InvalidRegistryError);
      }
    });

    it('fetches the bytes of a published file, relative to the registry root', async () => {
      await subject().put({ 'index.json': json({ packages: { [GUID]: { name: 'lib', versions: { '1.0.0': entry } } } }), [entry.file]: payload });
      const fetched = await collect(subject().client.fetch(entry));
      expect(fetched.length).toBe(payload.length);
      expect(sha256(fetched)).toBe(entry.sha256);
    });

    it('fails to fetch a file that is not there with FetchError, naming no secret', async () => {
      await subject().put({ 'index.json': json({ packages: {} }) });
      const failure = await collect(subject().client.fetch({ ...entry, file: 'missing-1.0.0.cap' })).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(FetchError);
      if (subject().secret) expect((failure as Error).message).not.toContain(subject().secret);
    });

    it('prints itself without credentials', () => {
      expect(subject().client.display).toEqual(expect.any(String));
      if (subject().secret) expect(subject().client.display).not.toContain(subject().secret);
    });

    it('takes publications only where it says it does', () => {
      expect(typeof subject().client.publish).toBe(publishes ? 'function' : 'undefined');
    });

    // Only directory registries take publications; the others are not asked to.
    if (publishes) describe('publishing', () => {
      const publication = (data: Uint8Array, version = '1.0.0'): Publication => ({ guid: GUID, name: 'lib', version, sha256: sha256(data), size: data.length });
      const publish = (data: Uint8Array, options = { overwrite: false }, stream: AsyncIterable<Uint8Array> = chunks(data)) => subject().client.publish!(publication(data), stream, options);

      it('writes the file, then an index that records it', async () => {
        const { entry: written, published } = await publish(bytes('version one'));
        expect(published).toBe(true);
        expect(written).toEqual({ file: 'lib-1.0.0.cap', sha256: sha256(bytes('version one')), size: 11 });
        expect((await subject().client.index()).packages[GUID]).toEqual({ name: 'lib', versions: { '1.0.0': written } });
        expect(Buffer.from(await collect(subject().client.fetch(written))).toString()).toBe('version one');
      });

      it('publishes nothing for the same bytes again, and refuses other bytes unless told to overwrite', async () => {
        await publish(bytes('version one'));
        expect((await publish(bytes('version one'))).published).toBe(false);
        await expect(publish(bytes('other bytes'))).rejects.toThrow(OutputExistsError);
        expect((await subject().client.index()).packages[GUID]!.versions['1.0.0']!.sha256).toBe(sha256(bytes('version one')));
        const { entry: replaced, published } = await publish(bytes('other bytes'), { overwrite: true });
        expect(published).toBe(true);
        expect(Buffer.from(await collect(subject().client.fetch(replaced))).toString()).toBe('other bytes');
      });

      it('keeps every version published, and leaves the registry as it was when the stream throws', async () => {
        await publish(bytes('version one'));
        const before = await subject().client.index();
        await expect(subject().client.publish!(publication(bytes('version two'), '2.0.0'), failing('version'), { overwrite: false })).rejects.toThrow('the stream broke');
        expect(await subject().client.index()).toEqual(before);
        await expect(collect(subject().client.fetch({ file: 'lib-2.0.0.cap', sha256: sha256(bytes('version two')), size: 11 }))).rejects.toThrow(FetchError);
        await subject().client.publish!(publication(bytes('version two'), '2.0.0'), chunks('version two'), { overwrite: false });
        expect(Object.keys((await subject().client.index()).packages[GUID]!.versions).sort()).toEqual(['1.0.0', '2.0.0']);
      });
    });
  });
}
