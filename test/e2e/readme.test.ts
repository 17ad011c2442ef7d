import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/paths.js';
import { examplesOf, sessionScript } from '../support/shell-examples.js';

/**
 * Every shell example of the README and the guides, run as a newcomer runs them: in
 * order, in one terminal, from a scratch directory of the checkout with `npx pkg`; a
 * server in the background until its block ends. A `# prints TEXT` comment, and each
 * line a `console` transcript shows, is checked against what the command printed.
 */
jest.setTimeout(600_000);

const DOCUMENTS: Array<{ name: string; startsIn: 'checkout' | 'scratch' }> = [
  { name: 'README.md', startsIn: 'checkout' },
  { name: 'docs/http-api.md', startsIn: 'scratch' },
  { name: 'docs/first-package.md', startsIn: 'checkout' },
];

const scratches: string[] = [];
afterAll(() => {
  for (const scratch of scratches) rmSync(scratch, { recursive: true, force: true });
});

describe('the documentation, run as a reader runs it', () => {
  for (const { name, startsIn } of DOCUMENTS) {
    it(`${name}: every example runs in order and prints what it says`, () => {
      // Inside the checkout, as the documents say, so that `npx pkg` and `../examples` resolve.
      const scratch = mkdtempSync(join(ROOT, '.examples-'));
      scratches.push(scratch);
      const examples = examplesOf(join(ROOT, name), name);
      expect(examples.filter((example) => !example.skip).length).toBeGreaterThan(0);
      const script = 'exec 2>&1\n' + readFileSync(join(ROOT, 'test/support/example-session.sh'), 'utf8') + sessionScript(examples);
      const run = spawnSync('bash', ['-c', script], {
        cwd: startsIn === 'checkout' ? ROOT : scratch,
        env: { ...process.env, EXAMPLES_SCRATCH: scratch, NODE_OPTIONS: '' },
        encoding: 'utf8',
        timeout: 540_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      const transcript = `${run.stdout}\n${run.stderr}`;
      mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
      writeFileSync(join(ROOT, 'test-artifacts', `examples-${name.replaceAll('/', '-')}.log`), transcript);
      if (run.status !== 0) throw new Error(`${name}: the examples stopped (exit ${run.status ?? run.signal}):\n${transcript.slice(-6000)}`);
    });
  }
});
