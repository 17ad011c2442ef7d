import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZipPackageSource } from '../../src/adapters/archive/zip-package-source.js';
import { PackageError } from '../../src/domain/errors.js';
import { writeDeflatedZip } from '../support/crafted-zip.js';
import { temporaryDirectory } from '../support/paths.js';

jest.setTimeout(60_000);

const work = temporaryDirectory('cap-zip-fuzz-');
let original: Buffer;
beforeAll(() => {
  const file = join(work.path, 'seed.cap');
  writeDeflatedZip(file, [
    ['metadata.json', '{"name":"seed","version":"1.0.0"}'],
    ['content/index.html', '<p>hello</p>'.repeat(50)],
    ['content/zeros.bin', { zeros: 200_000 }],
  ]);
  original = readFileSync(file);
});
afterAll(() => work.remove());

/** Opens an archive and reads every entry whole and streamed; what it throws, if anything. */
async function readAll(file: string): Promise<unknown> {
  try {
    const source = await ZipPackageSource.open(file);
    try {
      for (const { path } of source.entries()) {
        await source.read(path);
        for await (const chunk of source.stream(path)) void chunk;
      }
    } finally {
      await source.close();
    }
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('the ZIP reader on mutated archives', () => {
  it('answers every mutation with its contents or a typed error: never another exception, never a hang', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ at: fc.nat({ max: original.length - 1 }), value: fc.integer({ min: 0, max: 255 }) }), { minLength: 1, maxLength: 8 }),
        fc.option(fc.nat({ max: original.length }), { nil: undefined }),
        async (changes, cut) => {
          const bytes = Buffer.from(original);
          for (const { at, value } of changes) bytes[at] = value;
          const file = join(work.path, `mutant-${run++ % 4}.cap`);
          writeFileSync(file, cut === undefined ? bytes : bytes.subarray(0, cut));
          const error = await readAll(file);
          if (error !== undefined) expect(error).toBeInstanceOf(PackageError);
        },
      ),
      { numRuns: 300 },
    );
  });
});
