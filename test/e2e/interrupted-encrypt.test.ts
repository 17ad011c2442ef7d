import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CLI, EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';

jest.setTimeout(120_000);

const work = temporaryDirectory('cap-interrupted-');
const at = (name: string) => join(work.path, name);
afterAll(() => work.remove());

describe('a package written and stopped with Ctrl-C', () => {
  it('an encryption leaves neither the packed plaintext nor a part of the output beside it', async () => {
    execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', at('key.pem')], { stdio: 'pipe' });
    execFileSync('openssl', ['pkey', '-in', at('key.pem'), '-pubout', '-out', at('pub.pem')], { stdio: 'pipe' });
    const site = at('site');
    cpSync(EXAMPLE_SITE, site, { recursive: true });
    // Incompressible, so packing it takes long enough to be interrupted.
    writeFileSync(join(site, 'content', 'large.bin'), randomBytes(160 * 1024 * 1024));
    const out = at('out');
    mkdirSync(out);
    expect(await interruptedOnceWriting(['package', 'encrypt', site, '--public-key', at('pub.pem'), '-o', join(out, 'sealed.cap')], out)).toBe(130);
    expect(readdirSync(out)).toEqual([]);
  });

  it('a pack stopped so leaves no part of the archive', async () => {
    const out = at('packed');
    mkdirSync(out);
    expect(await interruptedOnceWriting(['package', 'pack', at('site'), '-o', out], out)).toBe(130);
    expect(readdirSync(out)).toEqual([]);
  });
});

/** Runs pkg with `args`, sends SIGINT as soon as anything appears in `out`, and resolves with its exit code. */
async function interruptedOnceWriting(args: string[], out: string): Promise<number | null> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  while (child.exitCode === null && readdirSync(out).length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  child.kill('SIGINT');
  return exited;
}
