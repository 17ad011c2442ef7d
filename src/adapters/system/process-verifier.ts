import type * as ChildProcesses from 'node:child_process';
import type { IntegrityReport, Security } from '../../domain/integrity/security.js';
import type { PackageSource } from '../../application/ports/package-source.js';
import type { PackageVerifier } from '../../application/ports/package-verifier.js';
import { builtEntry } from '../shared/built-entry.js';
import { nodeModule } from '../shared/node-module.js';

/** Below this many bytes of files a package is hashed in the reactor: a child would cost more than the hashing. */
const IN_PROCESS_BELOW = 16 * 1024 * 1024;

/**
 * Re-verifies a package on disk in a child process, so the reactor keeps answering while
 * a large package is re-hashed, and the memory the hashing churns through goes back to
 * the system when the child exits. (A worker thread did the same work, but the
 * allocator kept what it had used: a 200 MB package left the reactor 40 MB larger for
 * good.) Packages in memory, small packages (starting a child takes ~100 ms, hashing
 * 16 MiB here ~10 ms), and runs without the built child entry (tests from source), verify
 * with the fallback; so does a child that fails for any reason, which then reports the
 * failure as the typed error it is.
 */
export class ProcessVerifier implements PackageVerifier {
  private readonly childFile: string | undefined;

  constructor(
    private readonly fallback: PackageVerifier,
    /** The child entry (the composition root's `verify-process`); when it is not there, the fallback verifies. */
    childUrl: URL,
    /** Packages whose files total fewer bytes than this verify with the fallback. */
    private readonly inProcessBelow = IN_PROCESS_BELOW,
  ) {
    this.childFile = builtEntry(childUrl);
  }

  async verify(source: PackageSource, security: Security): Promise<IntegrityReport> {
    if (source.kind === 'memory' || !this.childFile || totalSize(source) < this.inProcessBelow) return this.fallback.verify(source, security);
    return this.inChild(this.childFile, source.path ?? source.location, security.checksums).catch(() => this.fallback.verify(source, security));
  }

  private inChild(file: string, location: string, checksums: Security['checksums']): Promise<IntegrityReport> {
    return new Promise((resolve, reject) => {
      // No inherited flags: an --inspect or --cpu-prof meant for the reactor is not the child's.
      const child = nodeModule<typeof ChildProcesses>('node:child_process').fork(file, [], { execArgv: [], stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
      child.once('message', (report: IntegrityReport) => resolve(report));
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`integrity check exited with ${code}`)));
      child.send({ location, checksums });
    });
  }
}

function totalSize(source: PackageSource): number {
  let total = 0;
  for (const entry of source.entries()) total += entry.size;
  return total;
}
