export interface IncrementalHash {
  update(chunk: Uint8Array): void;
  /** Lower-case hex. */
  digest(): string;
}

export interface Hasher {
  sha256(data: Uint8Array | string): string;
  createSha256(): IncrementalHash;
}
