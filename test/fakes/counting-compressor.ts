import type { CompressionEffort, ContentCoding, Compressor } from '../../src/application/ports/compressor.js';

/**
 * A compressor for unit tests: its "copy" names the coding and keeps every `1/ratio`-th
 * byte (so it is shorter by a known amount, or longer with a ratio below 1), it records
 * every call, and `hold` keeps calls in flight until `letGo`, to test work that is
 * cancelled or overtaken meanwhile.
 */
export class CountingCompressor implements Compressor {
  readonly calls: Array<{ coding: ContentCoding; size: number; effort: CompressionEffort }> = [];
  /** The most calls in flight at once. */
  mostAtOnce = 0;
  private inFlight = 0;
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;

  constructor(private readonly ratio = 4) {}

  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  letGo(): void {
    this.open?.();
    this.gate = undefined;
  }

  async compress(coding: ContentCoding, bytes: Uint8Array, effort: CompressionEffort): Promise<Uint8Array> {
    this.calls.push({ coding, size: bytes.length, effort });
    this.mostAtOnce = Math.max(this.mostAtOnce, ++this.inFlight);
    try {
      await this.gate;
      await new Promise((resolve) => setTimeout(resolve, 1));
      return encodeFake(coding, bytes, this.ratio);
    } finally {
      this.inFlight--;
    }
  }
}

/** What CountingCompressor makes of `bytes`: the coding's name, then every `ratio`-th byte (each byte `1/ratio` times when below 1). */
export function encodeFake(coding: ContentCoding, bytes: Uint8Array, ratio = 4): Uint8Array {
  const kept = ratio >= 1 ? bytes.filter((_, i) => i % ratio === 0) : new Uint8Array(Math.ceil(bytes.length / ratio)).map((_, i) => bytes[i % bytes.length]!);
  return new Uint8Array([...new TextEncoder().encode(`${coding}:`), ...kept]);
}
