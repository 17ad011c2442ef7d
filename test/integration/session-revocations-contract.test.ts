import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { FsSessionRevocationStore } from '../../src/adapters/fs/fs-session-revocations.js';
import { describeSessionRevocationsContract } from '../contracts/session-revocations.contract.js';
import { MemorySessionRevocationStore } from '../fakes/memory-session-revocations.js';
import { temporaryDirectory } from '../support/paths.js';

const NOW = Date.UTC(2025, 0, 1);

describeSessionRevocationsContract('MemorySessionRevocationStore (fake)', () => ({ store: new MemorySessionRevocationStore(() => NOW), workdirs: ['/w/one', '/w/two'], now: NOW }));

describeSessionRevocationsContract('FsSessionRevocationStore', () => {
  const work = temporaryDirectory('cap-revocations-contract-');
  const workdirs: [string, string] = [join(work.path, 'one'), join(work.path, 'two')];
  for (const workdir of workdirs) mkdirSync(workdir);
  return { store: new FsSessionRevocationStore(() => NOW), workdirs, now: NOW, dispose: work.remove };
});
