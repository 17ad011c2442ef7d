import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { smallDiskForTests } from '../support/full-disk.js';

jest.setTimeout(60_000);

// Another user than root, for whom a folder's mode counts; and a small disk to make read-only. Both take root; CI has it.
const NOBODY = { uid: 65534, gid: 65534 };
const asRoot = process.getuid?.() === 0 ? it : it.skip;
const { disk, onSmallDisk } = smallDiskForTests(256);
const work = temporaryDirectory('cap-push-unwritable-');
afterAll(() => work.remove());
// Readable by the other user too: the package to push, and the folders down to the registry.
chmodSync(work.path, 0o755);
execFileSync(process.execPath, [CLI, 'package', 'pack', EXAMPLE_SITE, '-o', work.path], { stdio: 'pipe' });
const cap = join(work.path, 'example-site-1.0.0.cap');

const push = (registry: string, user?: { uid: number; gid: number }) => spawnSync(process.execPath, [CLI, 'package', 'push', cap, '--registry', registry], { encoding: 'utf8', ...user });

describe('pkg package push onto a registry directory it cannot write', () => {
  asRoot('says the registry directory is not writable by this user, naming it, and exits 1', () => {
    const registry = join(work.path, 'registry-of-root');
    mkdirSync(registry, { mode: 0o755 });
    const pushed = push(registry, NOBODY);
    expect(pushed.stderr).toBe(`error: WriteFailedError: cannot write into registry ${registry}: the registry directory is not writable by this user (EACCES)\n`);
    expect(pushed.status).toBe(1);
    expect(readdirSync(registry)).toEqual([]);
  });

  onSmallDisk('says its file system is read-only, naming it, and exits 1', () => {
    const registry = join(disk!.path, 'registry');
    mkdirSync(registry);
    execFileSync('mount', ['-o', 'remount,ro', disk!.path], { stdio: 'pipe' });
    try {
      const pushed = push(registry);
      expect(pushed.stderr).toBe(`error: WriteFailedError: cannot write into registry ${registry}: the file system is read-only (EROFS)\n`);
      expect(pushed.status).toBe(1);
      expect(readdirSync(registry)).toEqual([]);
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', disk!.path], { stdio: 'pipe' });
    }
  });
});

describe('pkg install into a store directory it cannot write', () => {
  asRoot('says the store directory is not writable by this user, naming it (not a temporary file in it), and exits 1', () => {
    const registry = join(work.path, 'registry-for-all');
    expect(push(registry).status).toBe(0);
    execFileSync('chmod', ['-R', 'a+rX', registry]);
    const store = join(work.path, 'store-of-root');
    mkdirSync(store, { mode: 0o755 });
    const installed = spawnSync(process.execPath, [CLI, 'install', 'pkg://example.org/example-site', '--registry', registry, '--store', store], { encoding: 'utf8', ...NOBODY });
    expect(installed.stderr).toBe(`error: WriteFailedError: cannot write into the store ${store}: the store directory is not writable by this user (EACCES)\n`);
    expect(installed.status).toBe(1);
    expect(readdirSync(store)).toEqual([]);
  });
});

describe('pkg reactor serve with a workdir it cannot write', () => {
  asRoot('says the workdir is not writable by this user, naming it (not its lock\'s temporary file), and exits 1 without serving', () => {
    const workdir = join(work.path, 'workdir-of-root');
    mkdirSync(workdir, { mode: 0o755 });
    const served = spawnSync(process.execPath, [CLI, 'reactor', 'serve', '--port', '0', '--workdir', workdir, EXAMPLE_SITE], { encoding: 'utf8', timeout: 30_000, ...NOBODY });
    expect(served.stderr).toBe(`error: WriteFailedError: cannot take the workdir ${workdir}: the workdir is not writable by this user (EACCES)\n`);
    expect(served.status).toBe(1);
    expect(readdirSync(workdir)).toEqual([]);
  });
});

describe('pkg package sign in place, and decrypt -o, into a folder it cannot write', () => {
  asRoot('say the folder is not writable by this user (not a temporary file in it), exit 1 and leave the folder as it was', () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const [key, pub] = [join(work.path, 'key.pem'), join(work.path, 'pub.pem')];
    writeFileSync(key, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o644 });
    writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }));
    const folder = join(work.path, 'site-of-root');
    cpSync(EXAMPLE_SITE, folder, { recursive: true });
    execFileSync('chmod', ['-R', 'a+rX,go-w', folder]);
    const before = readdirSync(folder).sort();
    const signed = spawnSync(process.execPath, [CLI, 'package', 'sign', folder, '--key', key], { encoding: 'utf8', ...NOBODY });
    expect(signed.stderr).toBe(`error: WriteFailedError: cannot write signature.pub.pem into ${folder}: the folder is not writable by this user (EACCES)\n`);
    expect(signed.status).toBe(1);
    const encrypted = join(work.path, 'encrypted.cap');
    execFileSync(process.execPath, [CLI, 'package', 'encrypt', cap, '--public-key', pub, '-o', encrypted], { stdio: 'pipe' });
    chmodSync(encrypted, 0o644);
    const decrypted = spawnSync(process.execPath, [CLI, 'package', 'decrypt', encrypted, '--private-key', key, '-o', join(folder, 'plain.cap')], { encoding: 'utf8', ...NOBODY });
    expect(decrypted.stderr).toBe(`error: WriteFailedError: cannot write ${join(folder, 'plain.cap')}: its folder is not writable by this user (EACCES)\n`);
    expect(decrypted.status).toBe(1);
    expect(readdirSync(folder).sort()).toEqual(before);
  });
});

describe('pkg package pack, unpack and encrypt with -o a folder it cannot write', () => {
  asRoot('say so as every other writer does (WriteFailedError, exit 1), not as a usage error, and leave the folder empty', () => {
    const folder = join(work.path, 'output-of-root');
    mkdirSync(folder, { mode: 0o755 });
    const pub = join(work.path, 'recipient.pem');
    writeFileSync(pub, generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }));
    const run = (...args: string[]) => spawnSync(process.execPath, [CLI, 'package', ...args], { encoding: 'utf8', ...NOBODY });
    const packed = run('pack', EXAMPLE_SITE, '-o', folder);
    expect(packed.stderr).toBe(`error: WriteFailedError: cannot write example-site-1.0.0.cap into ${folder}: the folder is not writable by this user (EACCES)\n`);
    expect(packed.status).toBe(1);
    const unpacked = run('unpack', cap, '-o', join(folder, 'site'));
    expect(unpacked.stderr).toBe(`error: WriteFailedError: cannot write into ${folder}: the folder is not writable by this user (EACCES)\n`);
    expect(unpacked.status).toBe(1);
    const encrypted = run('encrypt', cap, '--public-key', pub, '-o', join(folder, 'secret.cap'));
    expect(encrypted.stderr).toBe(`error: WriteFailedError: cannot write secret.cap into ${folder}: the folder is not writable by this user (EACCES)\n`);
    expect(encrypted.status).toBe(1);
    expect(readdirSync(folder)).toEqual([]);
  });
});
