import { linesIn } from '../../shared/stdout-after-failure.js';

/**
 * The lines handed to an asynchronous writer that it has not written yet: when it fails,
 * they are the ones dropped, and stdout's recovery message counts them. The writer says
 * how many bytes each write took; a batch partly written counts as dropped whole.
 */
export class UnwrittenLines {
  private readonly batches: { bytes: number; lines: number }[] = [];

  handed(bytes: Uint8Array): void {
    this.batches.push({ bytes: bytes.length, lines: linesIn(bytes) });
  }

  written(bytes: number): void {
    while (bytes > 0 && this.batches.length > 0) {
      const first = this.batches[0]!;
      const taken = Math.min(bytes, first.bytes);
      first.bytes -= taken;
      bytes -= taken;
      if (first.bytes === 0) this.batches.shift();
    }
  }

  /** The lines not written, forgotten as they are counted. */
  dropped(): number {
    return this.batches.splice(0).reduce((sum, batch) => sum + batch.lines, 0);
  }
}
