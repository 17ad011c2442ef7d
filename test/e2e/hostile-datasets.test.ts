import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, temporaryDirectory } from '../support/paths.js';

jest.setTimeout(60_000);

const work = temporaryDirectory('cap-hostile-datasets-');
afterAll(() => work.remove());

describe('a SQLite dataset whose view never ends', () => {
  it('leaves the reactor loading it free to stop on SIGINT or SIGTERM', async () => {
    const root = join(work.path, 'endless');
    mkdirSync(join(root, 'data'), { recursive: true });
    mkdirSync(join(root, 'content'));
    writeFileSync(join(root, 'metadata.json'), JSON.stringify({ name: 'endless', version: '1.0.0', description: 'd', guid: 'pkg://example.org/endless', uuid: '123e4567-e89b-42d3-a456-426614174000' }));
    writeFileSync(join(root, 'content/index.html'), '<p>home</p>');
    writeFileSync(join(root, 'storage.json'), JSON.stringify({ storage: { dataSets: { n: { databaseFile: 'data/n.sqlite', table: 'n' } } } }));
    // It counts a recursive CTE without end: no row ever comes, and sql.js cannot be interrupted.
    execFileSync('sqlite3', [join(root, 'data/n.sqlite'), 'CREATE VIEW n AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS total FROM c;']);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const child = spawn(process.execPath, [CLI, 'reactor', 'serve', root, '--port', '0', '--workdir', join(work.path, `workdir-${signal}`)], { stdio: 'ignore' });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      // Long enough to be inside the read.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const started = Date.now();
      child.kill(signal);
      const stopped = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000))]);
      if (!stopped) child.kill('SIGKILL');
      expect({ signal, stopped }).toEqual({ signal, stopped: true });
      expect(Date.now() - started).toBeLessThan(10_000);
    }
  });
});
