import { ContainerModule } from 'inversify';
import { StderrWarnings } from '../../adapters/cli/stderr-warnings.js';
import { ProcessVerifier } from '../../adapters/system/process-verifier.js';
import { SystemClock } from '../../adapters/system/system-clock.js';
import { ZlibCompressor } from '../../adapters/system/zlib-compressor.js';
import { InProcessVerifier } from '../../application/integrity/in-process-verifier.js';
import { PORT } from '../service-ids.js';

/**
 * The child entry that re-verifies packages: bundled, this module is part of dist/pkg.js
 * and verify-process.js is its sibling; run from source there is none, and packages are
 * verified in process.
 */
const VERIFY_PROCESS = new URL('./verify-process.js', import.meta.url);

/** The process and its surroundings: the clock, stderr warnings, zlib's thread pool, the child process that re-verifies packages. */
export const systemModule = new ContainerModule(({ bind }) => {
  bind(PORT.Clock).toDynamicValue(() => new SystemClock()).inSingletonScope();
  bind(PORT.Compressor).toDynamicValue(() => new ZlibCompressor()).inSingletonScope();
  bind(PORT.Warnings).toDynamicValue(() => new StderrWarnings()).inSingletonScope();
  bind(PORT.PackageVerifier)
    .toDynamicValue((context) => new ProcessVerifier(new InProcessVerifier(context.get(PORT.Hasher)), VERIFY_PROCESS))
    .inSingletonScope();
});
