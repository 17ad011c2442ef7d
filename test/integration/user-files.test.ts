import { afterAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readUserFile } from '../../src/adapters/cli/user-files.js';
import { UsageError } from '../../src/domain/errors.js';
import { temporaryDirectory } from '../support/paths.js';

const work = temporaryDirectory('user-files-');
afterAll(() => work.remove());

describe('readUserFile', () => {
  it('reads a file named on the command line whole', async () => {
    const file = join(work.path, 'key.pem');
    writeFileSync(file, 'x'.repeat(200_000));
    expect((await readUserFile(file, '--key')).toString()).toBe('x'.repeat(200_000));
  });

  it('refuses a file over its limit with a UsageError naming it, reading no further', async () => {
    const file = join(work.path, 'big.pem');
    writeFileSync(file, 'x'.repeat(200_000));
    await expect(readUserFile(file, '--key', 100_000)).rejects.toThrow(new UsageError(`--key ${file} is over 100000 bytes, more than any such file holds`));
  });

  it('stops reading a device that never ends: --key /dev/zero is a UsageError, not memory running out', async () => {
    await expect(readUserFile('/dev/zero', '--key')).rejects.toThrow(UsageError);
  });

  it('says a missing file is missing', async () => {
    await expect(readUserFile(join(work.path, 'absent.pem'), '--trust')).rejects.toThrow(/^cannot read --trust .*absent\.pem: no such file$/);
  });
});
