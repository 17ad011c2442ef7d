// Child process entry: re-hashes a package on disk against its checksums, off the reactor's event loop and heap.
import { NodeHasher } from '../../adapters/crypto/node-hasher.js';
import { ZipPackageOpener } from '../../adapters/archive/zip-package-opener.js';
import { LocalPackageOpener } from '../../adapters/fs/local-package-opener.js';
import { checkIntegrity } from '../../application/integrity/digest-entries.js';

// The reactor gone, there is no one left to answer.
process.once('disconnect', () => process.exit(0));
process.once('message', async (request) => {
  const { location, checksums } = request as { location: string; checksums: Record<string, string> };
  const source = await new LocalPackageOpener(new ZipPackageOpener()).open(location);
  try {
    const report = await checkIntegrity(source, new NodeHasher(), { checksums });
    process.send!(report, () => process.disconnect());
  } finally {
    await source.close();
  }
});
