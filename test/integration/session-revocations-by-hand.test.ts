import { afterAll, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { FsOverlayStore } from '../../src/adapters/fs/fs-overlay-store.js';
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

it('a revoked-sessions.json or overlay tombstones made a named pipe by hand stop the start with an OverlayError at once, not a start waiting for a writer', async () => {
  const workdir = join(work.path, 'piped');
  const overlay = await new FsOverlayStore().open(workdir, { path: '/', packageName: 'site' });
  mkdirSync(join(workdir, 'overlays/root~site/content'), { recursive: true });
  execFileSync('mkfifo', [join(workdir, 'revoked-sessions.json'), join(workdir, 'overlays/root~site/content/.pkg-tombstones')]);
  const said = ': ENOTREG: not a file (a named pipe or another special file is in its place)';
  for (const reading of [() => new FsSessionRevocationStore().open(workdir), () => overlay.tombstones()]) {
    const waited = new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2000).unref());
    const refused = await Promise.race([reading().then(() => undefined, (error: unknown) => error), waited]);
    expect(refused).toBeInstanceOf(OverlayError);
    expect((refused as OverlayError).message).toMatch(said);
  }
});
