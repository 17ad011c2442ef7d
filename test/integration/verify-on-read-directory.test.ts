import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, openSync, renameSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { NodeHasher } from '../../src/adapters/crypto/node-hasher.js';
import { DirectoryPackageSource } from '../../src/adapters/fs/directory-package-source.js';
import { VerifyOnReadSource } from '../../src/application/integrity/verify-on-read-source.js';
import type { Hasher } from '../../src/application/ports/hasher.js';
import { SourceChangedError } from '../../src/domain/errors.js';
import { temporaryDirectory } from '../support/paths.js';

/** Over the 1 MiB a directory reads in one go: streamed in chunks. */
const LARGE = Buffer.alloc(3 * 1024 * 1024, 'the checked bytes. ');
const EDITED = Buffer.alloc(LARGE.length, 'bytes no check saw. ');
const PATH = 'content/large.bin';

let work: ReturnType<typeof temporaryDirectory>;
let file: string;
beforeEach(() => {
  work = temporaryDirectory('cap-verify-dir-');
  mkdirSync(join(work.path, 'content'));
  file = join(work.path, PATH);
  writeFileSync(file, LARGE);
});
afterEach(() => work.remove());

/** The real hasher, that runs `edit` once a digest is taken: an edit landing right after the check. */
function editingAfterCheck(edit: () => void): Hasher {
  const real = new NodeHasher();
  return {
    sha256: (data) => real.sha256(data),
    createSha256: () => {
      const hash = real.createSha256();
      return { update: (chunk) => hash.update(chunk), digest: () => ((result) => (edit(), result))(hash.digest()) };
    },
  };
}

async function checked(hasher: Hasher): Promise<VerifyOnReadSource> {
  const source = await DirectoryPackageSource.open(work.path);
  return new VerifyOnReadSource(source, { checksums: { [PATH]: new NodeHasher().sha256(LARGE) } }, hasher);
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const all: Uint8Array[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return Buffer.concat(all);
}

describe('--verify lazy on a directory: a large file is sent as it was checked', () => {
  it('sends the bytes it hashed when another file is renamed over it between the check and the send', async () => {
    const replace = () => {
      writeFileSync(`${file}.new`, EDITED);
      renameSync(`${file}.new`, file);
    };
    for (const read of [(source: VerifyOnReadSource) => source.stream(PATH), (source: VerifyOnReadSource) => source.range(PATH, 10, LARGE.length - 1)!]) {
      writeFileSync(file, LARGE);
      const source = await checked(editingAfterCheck(replace));
      const sent = await collect(read(source)).catch((error: unknown) => error);
      // What went out is what was checked, or nothing whole: never the edit.
      if (sent instanceof Buffer) expect(sent.equals(LARGE.subarray(LARGE.length - sent.length))).toBe(true);
      else expect(sent).toBeInstanceOf(Error);
    }
  });

  it('cuts the answer off before its last bytes when the file is written in place while it is sent', async () => {
    const source = await checked(new NodeHasher());
    const sent: Uint8Array[] = [];
    let edited = false;
    const sending = (async () => {
      for await (const chunk of source.stream(PATH)) {
        sent.push(chunk);
        if (edited) continue;
        edited = true;
        // Same size, other bytes, into the file being read.
        const fd = openSync(file, 'r+');
        writeSync(fd, EDITED, 0, EDITED.length, 0);
        closeSync(fd);
      }
    })();
    await expect(sending).rejects.toBeInstanceOf(SourceChangedError);
    expect(Buffer.concat(sent).length).toBeLessThan(LARGE.length);
  });
});
