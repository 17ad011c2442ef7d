// Worker entry point: re-hashes a package on disk against its checksums, off the reactor's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { NodeHasher } from '../../adapters/crypto/node-hasher.js';
import { checkIntegrity } from '../../application/integrity/digest-entries.js';
import { LocalPackageOpener } from '../local-package-opener.js';

const { location, checksums } = workerData as { location: string; checksums: Record<string, string> };
const source = await new LocalPackageOpener().open(location);
try {
  parentPort!.postMessage(await checkIntegrity(source, new NodeHasher(), { checksums }));
} finally {
  await source.close();
}
