import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';

const work = temporaryDirectory('cap-json-');
const at = (name: string) => join(work.path, name);
afterAll(() => work.remove());

/** Runs a command with --json: exit 0, nothing on stderr, one JSON document on stdout. */
function json(args: string[]): Record<string, unknown> {
  const run = runPkg([...args, '--json']);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe('--json on every command that reports', () => {
  it('pack, sign, encrypt, decrypt, push and install each print their outcome as one JSON document', () => {
    execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', at('key.pem')], { stdio: 'pipe' });
    execFileSync('openssl', ['pkey', '-in', at('key.pem'), '-pubout', '-out', at('pub.pem')], { stdio: 'pipe' });
    const packed = json(['package', 'pack', EXAMPLE_SITE, '-o', work.path]);
    expect(packed).toMatchObject({ name: 'example-site', version: '1.0.0', path: at('example-site-1.0.0.cap'), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(json(['package', 'sign', at('example-site-1.0.0.cap'), '--key', at('key.pem'), '-o', at('signed.cap')])).toMatchObject({ path: at('signed.cap'), scheme: 'RSA-SHA256' });
    expect(json(['package', 'encrypt', at('signed.cap'), '--public-key', at('pub.pem'), '-o', at('sealed.cap')])).toMatchObject({ path: at('sealed.cap'), keyManagement: 'RSA-OAEP-SHA256' });
    expect(json(['package', 'decrypt', at('sealed.cap'), '--private-key', at('key.pem'), '-o', at('opened.cap')])).toMatchObject({ name: 'example-site', path: at('opened.cap') });
    expect(readFileSync(at('opened.cap')).equals(readFileSync(at('signed.cap')))).toBe(true);
    const pushed = json(['package', 'push', at('example-site-1.0.0.cap'), '--registry', at('registry')]);
    expect(pushed).toMatchObject({ name: 'example-site', version: '1.0.0', published: true });
    const installed = json(['install', String(pushed.guid), '--registry', at('registry'), '--store', at('store')]);
    expect(installed).toMatchObject({ name: 'example-site', version: '1.0.0', downloaded: true });
    expect(existsSync(String(installed.path))).toBe(true);
  });
});
