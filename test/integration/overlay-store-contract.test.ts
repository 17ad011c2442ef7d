import { FsOverlayStore } from '../../src/adapters/fs/fs-overlay-store.js';
import { describeOverlayStoreContract } from '../contracts/overlay-store.contract.js';
import { MemoryOverlayStore } from '../fakes/memory-overlay-store.js';
import { temporaryDirectory } from '../support/paths.js';

describeOverlayStoreContract('MemoryOverlayStore (fake)', () => ({ store: new MemoryOverlayStore(), workdir: '/work' }), {
  // The fake is one store shared by everything that opens it.
  elsewhere: async ({ store }) => ({ store }),
});

describeOverlayStoreContract('FsOverlayStore', () => {
  const workdir = temporaryDirectory('cap-overlay-contract-');
  return { store: new FsOverlayStore(), workdir: workdir.path, dispose: workdir.remove };
});
