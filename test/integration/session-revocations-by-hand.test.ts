import { afterAll, expect, it } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { FsSessionRevocationStore } from '../../src/adapters/fs/fs-session-revocations.js';
import { OverlayError } from '../../src/domain/errors.js';
import { temporaryDirectory } from '../support/paths.js';

const work = temporaryDirectory('cap-revocations-by-hand-');
afterAll(() => work.remove());

it('a revoked-sessions.json the workdir cannot read (made a folder by hand) stops the start with an OverlayError naming it, not node\'s bare EISDIR', async () => {
  mkdirSync(join(work.path, 'revoked-sessions.json'));
  const refused = await new FsSessionRevocationStore().open(work.path).then(() => undefined, (error: unknown) => error);
  expect(refused).toBeInstanceOf(OverlayError);
  expect((refused as OverlayError).message).toBe('cannot read revoked-sessions.json in the workdir: EISDIR: illegal operation on a directory');
});
