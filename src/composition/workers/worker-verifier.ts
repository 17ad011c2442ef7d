import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { IntegrityReport, Security } from '../../domain/integrity/security.js';
import type { PackageSource } from '../../application/ports/package-source.js';
import type { PackageVerifier } from '../../application/ports/package-verifier.js';

/**
 * Re-verifies a package on disk in a worker thread, so the reactor keeps answering while
 * a large package is re-hashed. Packages in memory, and runs without the built worker
 * (tests from source), verify with the fallback; so does a worker that fails to start.
 */
export class WorkerVerifier implements PackageVerifier {
  private readonly workerFile: string | undefined;

  constructor(
    private readonly fallback: PackageVerifier,
    workerUrl = new URL('./verify-worker.js', import.meta.url),
  ) {
    const file = fileURLToPath(workerUrl);
    this.workerFile = existsSync(file) ? file : undefined;
  }

  async verify(source: PackageSource, security: Security): Promise<IntegrityReport> {
    if (source.kind === 'memory' || !this.workerFile) return this.fallback.verify(source, security);
    return new Promise((resolve, reject) => {
      const worker = new Worker(this.workerFile!, { workerData: { location: source.location, checksums: security.checksums } });
      worker.once('message', (report: IntegrityReport) => resolve(report));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`integrity worker exited with ${code}`)));
    }).catch(() => this.fallback.verify(source, security)) as Promise<IntegrityReport>;
  }
}
