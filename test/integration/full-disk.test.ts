import { afterAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeWholeFile } from '../../src/adapters/fs/whole-file.js';
import { smallDisk } from '../support/full-disk.js';

// A write to a disk that fills up takes what fits and succeeds; only the next one fails.
// Content writes, operation logs and archives must never keep that truncated file as whole.
const disk = smallDisk(256);
afterAll(() => disk?.remove());
// Mounting the small disk takes root; CI has it.
const onSmallDisk = disk ? it : it.skip;

describe('a whole-file write on a disk that fills up mid-write', () => {
  onSmallDisk('fails with ENOSPC, leaving the file it replaces as it was and no partial file behind', async () => {
    const path = join(disk!.path, 'page.html');
    writeFileSync(path, 'before');
    // The last chunk is the one that does not fit: nothing after it would have failed.
    const body = (async function* () {
      yield randomBytes(200 * 1024);
      yield randomBytes(100 * 1024);
    })();
    await expect(writeWholeFile(path, body)).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(readFileSync(path, 'utf8')).toBe('before');
    expect(readdirSync(disk!.path)).toEqual(['page.html']);
  });
});
