import { describe, expect, it } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { threadId } from 'node:worker_threads';
import { WorkerThreadPasswordHashes } from '../../src/adapters/crypto/worker-thread-password-hashes.js';
import type { PasswordHashes } from '../../src/application/ports/password-hashes.js';
import { describePasswordHashesContract } from '../contracts/password-hashes.contract.js';
import { ReversedPasswordHashes } from '../fakes/reversed-password-hashes.js';
import { ROOT } from '../support/paths.js';

// The built worker entry (npm test builds first), and a scripted one for what the real hashes cannot show on cue.
const BUILT = pathToFileURL(join(ROOT, 'dist/password-worker.js'));
const SCRIPTED = pathToFileURL(join(ROOT, 'test/support/workers/scripted-password-worker.mjs'));

/** A fallback that must not be asked: the checks are the threads'. */
const never: PasswordHashes = {
  verify: () => Promise.reject(new Error('the fallback should not check')),
  decoyLike: () => Promise.reject(new Error('the fallback should not make decoys')),
};

describePasswordHashesContract('WorkerThreadPasswordHashes (the built worker), bcrypt', () => ({
  hashes: new WorkerThreadPasswordHashes(never, BUILT),
  hash: (password) => bcrypt.hash(password, 4),
}));

describe('WorkerThreadPasswordHashes', () => {
  it('checks on another thread: the event loop turns while a check holds its thread', async () => {
    const hashes = new WorkerThreadPasswordHashes(never, SCRIPTED, 1);
    expect(Number(await hashes.verify('thread', 'x'))).not.toBe(threadId);
    let turned = false;
    setImmediate(() => (turned = true));
    // The scripted thread spins 300 ms without yielding: run here, nothing else would run meanwhile.
    const check = hashes.verify('block:300', 'x').then((valid) => ({ valid, turnedFirst: turned }));
    expect(await check).toEqual({ valid: false, turnedFirst: true });
  });

  it('answers every check with its own answer, first come first served when there are more than threads', async () => {
    const hashes = new WorkerThreadPasswordHashes(never, SCRIPTED, 1);
    const finished: number[] = [];
    const checks = [0, 1, 2, 3, 4, 5].map((n) => hashes.verify(n % 2 ? 'right' : 'block:50', n % 2 ? 'right' : 'x').then((valid) => (finished.push(n), valid)));
    expect(await Promise.all(checks)).toEqual([false, true, false, true, false, true]);
    expect(finished).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await hashes.decoyLike('$2y$05$abc')).toBe('decoy-of:$2y$05$abc');
  });

  it('fails the one check whose thread fails or dies, and starts a new thread for the next', async () => {
    const hashes = new WorkerThreadPasswordHashes(never, SCRIPTED, 1);
    await expect(hashes.verify('fail', 'x')).rejects.toThrow('scripted failure');
    await expect(hashes.verify('crash', 'x')).rejects.toThrow(/stopped \(exit code 3\)/);
    expect(await hashes.verify('right', 'right')).toBe(true);
  });

  it('checks in process when the worker entry is not there (run from source)', async () => {
    const fallback = new ReversedPasswordHashes();
    const hashes = new WorkerThreadPasswordHashes(fallback, pathToFileURL(join(ROOT, 'dist/no-such-worker.js')));
    expect(await hashes.verify('pw', ReversedPasswordHashes.hash('pw'))).toBe(true);
    expect(fallback.calls).toBe(1);
  });
});
