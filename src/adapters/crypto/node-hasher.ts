import { createHash, hash } from 'node:crypto';
import type { Hasher, IncrementalHash } from '../../application/ports/hasher.js';

export class NodeHasher implements Hasher {
  sha256(data: Uint8Array | string): string {
    // One-shot: half the cost of a Hash object for small data, the same for large.
    return hash('sha256', data, 'hex');
  }

  createSha256(): IncrementalHash {
    const hash = createHash('sha256');
    return {
      update: (chunk) => void hash.update(chunk),
      digest: () => hash.digest('hex'),
    };
  }
}
