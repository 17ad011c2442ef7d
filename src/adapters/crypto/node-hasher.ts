import { createHash } from 'node:crypto';
import type { Hasher, IncrementalHash } from '../../application/ports/hasher.js';

export class NodeHasher implements Hasher {
  sha256(data: Uint8Array | string): string {
    return createHash('sha256').update(data).digest('hex');
  }

  createSha256(): IncrementalHash {
    const hash = createHash('sha256');
    return {
      update: (chunk) => void hash.update(chunk),
      digest: () => hash.digest('hex'),
    };
  }
}
