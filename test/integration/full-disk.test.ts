import { describe, expect } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeAuthCrypto } from '../../src/adapters/crypto/node-auth-crypto.js';
import { DirectoryRegistryClient } from '../../src/adapters/fs/directory-registry-client.js';
import { FsDirectoryWriter } from '../../src/adapters/fs/fs-directory-writer.js';
import { FsFileWriter } from '../../src/adapters/fs/fs-file-writer.js';
import { FsOverlayStore } from '../../src/adapters/fs/fs-overlay-store.js';
import { FsSessionRevocationStore } from '../../src/adapters/fs/fs-session-revocations.js';
import { FsStoreDirectory } from '../../src/adapters/fs/fs-store-directory.js';
import { FsWorkdirs } from '../../src/adapters/fs/fs-workdirs.js';
import { writeWholeFile } from '../../src/adapters/fs/whole-file.js';
import { Sessions } from '../../src/application/auth/sessions.js';
import { OverlayError, WriteFailedError } from '../../src/domain/errors.js';
import { fillDisk, smallDiskForTests } from '../support/full-disk.js';

// A write to a disk that fills up takes what fits and succeeds; only the next one fails.
// Content writes, operation logs and archives must never keep that truncated file as whole.
// Mounting the small disk takes root; CI has it.
const { disk, onSmallDisk } = smallDiskForTests(256);

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

describe('a content write to a deleted path on a disk that fills up between its two files', () => {
  onSmallDisk('is refused and leaves the path deleted, after a restart too, and goes through once there is room', async () => {
    const workdir = join(disk!.path, 'workdir');
    const mount = { path: '/', packageName: 'site' };
    const overlay = await new FsOverlayStore().open(workdir, mount);
    await overlay.deleteContent('about.html');
    // One page left: the file fits, the tombstones rewritten without its path do not.
    const makeRoom = fillDisk(disk!.path, 1);
    await expect(overlay.writeContent('about.html', Buffer.from('after'))).rejects.toThrow(OverlayError);
    const restarted = await new FsOverlayStore().open(workdir, mount);
    expect(await restarted.contentFiles()).toEqual([]);
    expect(await restarted.tombstones()).toEqual(['about.html']);
    makeRoom();
    await restarted.writeContent('about.html', Buffer.from('after'));
    expect(await restarted.contentFiles()).toEqual([{ path: 'about.html', size: 5 }]);
    expect(await restarted.tombstones()).toEqual([]);
  });
});

describe('a logout on a full disk', () => {
  onSmallDisk('is refused with an OverlayError and does not end the session, so the logout tried again once there is room ends it for good', async () => {
    const workdir = join(disk!.path, 'sessions');
    mkdirSync(workdir);
    const until = Date.now() + 60_000;
    const revocations = await new FsSessionRevocationStore().open(workdir);
    const makeRoom = fillDisk(disk!.path);
    const refused = await revocations.revoke('session-1', until).then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(OverlayError);
    expect((refused as OverlayError).message).toBe('cannot write revoked-sessions.json in the workdir: ENOSPC: no space left on device');
    // Ended in this process alone, the session would be valid again after a restart, and the logout tried again would write nothing.
    expect(revocations.has('session-1')).toBe(false);
    makeRoom();
    await revocations.revoke('session-1', until);
    expect((await new FsSessionRevocationStore().open(workdir)).has('session-1')).toBe(true);
  });
});

describe('two logouts of one session on a full disk, the second sent while the first is being written', () => {
  onSmallDisk('are both refused: the second waits for the write that would keep the revocation, not acknowledged before it', async () => {
    const workdir = join(disk!.path, 'two-logouts');
    mkdirSync(workdir);
    const revocations = await new FsSessionRevocationStore().open(workdir);
    const sessions = new Sessions('secret-0123456789abcdef', new NodeAuthCrypto(), {}, revocations);
    const cookie = sessions.issue({ name: 'jo', names: ['jo'], roles: [] }, 'site');
    const makeRoom = fillDisk(disk!.path);
    try {
      const outcomes = await Promise.allSettled([sessions.revoke(cookie, 'site'), sessions.revoke(cookie, 'site')]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
      expect(sessions.read(cookie, new Set(['site']))?.name).toBe('jo');
    } finally {
      makeRoom();
    }
    await Promise.all([sessions.revoke(cookie, 'site'), sessions.revoke(cookie, 'site')]);
    // Kept now: the cookie replayed at the logout writes nothing, so a full disk does not refuse it.
    const makeRoomAgain = fillDisk(disk!.path);
    await sessions.revoke(cookie, 'site').finally(makeRoomAgain);
    const restarted = new Sessions('secret-0123456789abcdef', new NodeAuthCrypto(), {}, await new FsSessionRevocationStore().open(workdir));
    expect(restarted.read(cookie, new Set(['site']))).toBeUndefined();
  });
});

describe('what the CLI writes from a stream (unpack, decrypt, install, push) onto a full disk', () => {
  async function* bytes() {
    yield randomBytes(64 * 1024);
  }
  const guid = 'pkg://example.org/site';
  onSmallDisk.each([
    ['unpack', async (at: string) => {
      const draft = await new FsDirectoryWriter().create(join(at, 'out'), { replace: false });
      await draft.write('content/big.bin', bytes()).catch(async (error: unknown) => {
        await draft.discard();
        throw error;
      });
    }, 'cannot write content/big.bin into <at>/out'],
    ['decrypt', (at: string) => new FsFileWriter().write(join(at, 'site-decrypted.cap'), bytes(), { overwrite: false }), 'cannot write <at>/site-decrypted.cap'],
    ['install', (at: string) => new FsStoreDirectory(join(at, 'store')).install({ guid, name: 'site', version: '1.0.0' }, bytes()), 'cannot write into the store <at>/store'],
    ['push', (at: string) => new DirectoryRegistryClient(join(at, 'registry')).publish({ guid, name: 'site', version: '1.0.0', sha256: '0'.repeat(64), size: 65536 }, bytes(), { overwrite: false }), 'cannot write into registry <at>/registry'],
  ])('%s fails with a WriteFailedError that says the disk is full, not an internal error, and leaves no file', async (_command, write, where) => {
    const at = join(disk!.path, `cli-${_command}`);
    mkdirSync(at);
    const makeRoom = fillDisk(disk!.path);
    try {
      const refused = await write(at).then(() => undefined, (error: unknown) => error);
      expect(refused).toBeInstanceOf(WriteFailedError);
      expect((refused as WriteFailedError).message).toBe(`${where.replace('<at>', at)}: no space left on the device (ENOSPC)`);
      expect(readdirSync(at, { recursive: true }).filter((name) => !/(^|\/)(store|registry)$/.test(String(name)))).toEqual([]);
    } finally {
      makeRoom();
    }
  });
});

describe('push --force onto a registry whose disk has room for the new package but not for its index', () => {
  onSmallDisk('fails with a WriteFailedError and leaves the old file with its old entry, so the registry stays in step', async () => {
    const registry = new DirectoryRegistryClient(join(disk!.path, 'forced-registry'));
    const publication = (bytes: Buffer) => ({ guid: 'pkg://example.org/site', name: 'site', version: '1.0.0', sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length });
    const [old, replacement] = [randomBytes(64 * 1024), randomBytes(64 * 1024)];
    async function* chunks(bytes: Buffer) {
      yield bytes;
    }
    await registry.publish(publication(old), chunks(old), { overwrite: false });
    // A backup's link keeps the old package's pages taken once it is replaced, as another writer of the disk would take them.
    linkSync(join(disk!.path, 'forced-registry/site-1.0.0.cap'), join(disk!.path, 'backup.cap'));
    // Room for the lock file's page and the new package's 16 beside the old one, and not a page more: the index rewritten is the write that fails.
    const makeRoom = fillDisk(disk!.path, 17);
    try {
      await expect(registry.publish(publication(replacement), chunks(replacement), { overwrite: true })).rejects.toThrow(WriteFailedError);
    } finally {
      makeRoom();
      rmSync(join(disk!.path, 'backup.cap'));
    }
    expect(readFileSync(join(disk!.path, 'forced-registry/site-1.0.0.cap')).equals(old)).toBe(true);
    expect((await registry.index()).packages['pkg://example.org/site']!.versions['1.0.0']!.sha256).toBe(publication(old).sha256);
    expect(readdirSync(join(disk!.path, 'forced-registry')).sort()).toEqual(['index.json', 'site-1.0.0.cap']);
    await registry.publish(publication(replacement), chunks(replacement), { overwrite: true });
    expect(readFileSync(join(disk!.path, 'forced-registry/site-1.0.0.cap')).equals(replacement)).toBe(true);
  });
});

describe('a reactor starting on a full disk', () => {
  onSmallDisk('cannot take its workdir: a WriteFailedError saying so, and no half-written lock left behind', async () => {
    const workdir = join(disk!.path, 'full-workdir');
    mkdirSync(workdir);
    const makeRoom = fillDisk(disk!.path);
    try {
      const refused = await new FsWorkdirs().claim(workdir).then(() => undefined, (error: unknown) => error);
      expect(refused).toBeInstanceOf(WriteFailedError);
      expect((refused as WriteFailedError).message).toBe(`cannot take the workdir ${workdir}: no space left on the device (ENOSPC)`);
      expect(readdirSync(workdir)).toEqual([]);
    } finally {
      makeRoom();
    }
  });
});

describe('a package folder signed in place on a disk that fills up between its files', () => {
  onSmallDisk('is refused with a WriteFailedError and left as it was: no new signature beside the old security.json', async () => {
    const folder = join(disk!.path, 'signed-folder');
    mkdirSync(folder);
    writeFileSync(join(folder, 'security.json'), '{"security": {}}\n');
    // Two pages left: the key and the signature fit, the new security.json (written beside the old one) does not.
    const makeRoom = fillDisk(disk!.path, 2);
    try {
      const write = new Map([
        ['signature.pub.pem', Buffer.from('key')],
        ['signature.sig', Buffer.from('signature')],
        ['security.json', Buffer.from('{"security": {"digitalSignatures": {}}}\n')],
      ]);
      const refused = await new FsFileWriter().update(folder, { write, remove: [] }).then(() => undefined, (error: unknown) => error);
      expect(refused).toBeInstanceOf(WriteFailedError);
      expect((refused as WriteFailedError).message).toBe(`cannot write security.json into ${folder}: no space left on the device (ENOSPC)`);
      expect(readdirSync(folder)).toEqual(['security.json']);
      expect(readFileSync(join(folder, 'security.json'), 'utf8')).toBe('{"security": {}}\n');
    } finally {
      makeRoom();
    }
  });
});
