import { afterAll, describe, it, jest } from '@jest/globals';
import { cpSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FsSourceWatcher } from '../../src/adapters/fs/fs-source-watcher.js';
import { eventually } from '../support/eventually.js';
import { temporaryDirectory } from '../support/paths.js';

jest.setTimeout(30_000);

const work = temporaryDirectory('cap-source-watcher-');
afterAll(() => work.remove());

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A package folder with content/css, watched; `heard` counts the changes told since it was last reset. */
function watched(name: string) {
  const site = join(work.path, name);
  mkdirSync(join(site, 'content/css'), { recursive: true });
  writeFileSync(join(site, 'metadata.json'), '{}');
  writeFileSync(join(site, 'content/css/site.css'), 'a {}');
  const counts = { heard: 0 };
  const watch = new FsSourceWatcher().watch(site, { touched: () => void counts.heard++, settled: () => undefined });
  return { site, counts, close: () => watch.close() };
}

/** Whether a file written below `folder` once the replacement settled is heard. */
async function heardAfter(counts: { heard: number }, folder: string): Promise<void> {
  // Beyond the watcher's own delays (a rescan, a watch made again), so only the write below can be heard.
  await pause(1200);
  counts.heard = 0;
  writeFileSync(join(folder, 'later.css'), 'b {}');
  await eventually(async () => counts.heard > 0, `a write in ${folder}`);
}

describe('FsSourceWatcher', () => {
  it.each([
    ['removed and made again', (folder: string) => (rmSync(folder, { recursive: true }), mkdirSync(join(folder, 'css'), { recursive: true }))],
    ['moved away, another put in its place', (folder: string) => (cpSync(folder, `${folder}.new`, { recursive: true }), renameSync(folder, `${folder}.old`), renameSync(`${folder}.new`, folder))],
  ])('a folder of the package %s: files written in the new one are heard', async (_name, replace) => {
    const { site, counts, close } = watched(`sub-${_name.split(' ')[0]!}`);
    try {
      replace(join(site, 'content'));
      await heardAfter(counts, join(site, 'content/css'));
    } finally {
      close();
    }
  });

  it.each([
    ['removed and made again later', (folder: string) => (rmSync(folder, { recursive: true }), pause(800).then(() => cpSync(`${folder}.copy`, folder, { recursive: true })))],
    ['moved away, another put in its place', (folder: string) => (renameSync(folder, `${folder}.old`), cpSync(`${folder}.copy`, folder, { recursive: true }))],
  ])('the package folder itself %s: files written in the new one are heard', async (_name, replace) => {
    const { site, counts, close } = watched(`root-${_name.split(' ')[0]!}`);
    try {
      cpSync(site, `${site}.copy`, { recursive: true });
      await replace(site);
      await heardAfter(counts, join(site, 'content/css'));
    } finally {
      close();
    }
  });
});
