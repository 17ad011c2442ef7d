import type { CompressionEffort, ContentCoding, Compressor } from '../ports/compressor.js';
import type { ByteBudget } from './byte-budget.js';

/** What compressing a body within the budget gave: the copy (held in the budget), or why identity goes. */
export type Compressed = { kind: 'copy'; bytes: Uint8Array } | { kind: 'not-smaller' } | { kind: 'no-room' };

/** The forms of one body compressed so far, and the budget bytes they hold. */
interface BodyForms {
  copies: Partial<Record<ContentCoding, Promise<Uint8Array | undefined>>>;
  held: { bytes: number };
}

/**
 * Compressed copies of what the reactor serves, held within its byte budget beside the
 * identity bytes. Each copy is made once, off the event loop, and kept: never per request.
 */
export class CompressedCopies {
  /** Bodies whose lifetime nobody announces (data answers): their copies live as long as the body object. */
  private readonly bodies = new WeakMap<Uint8Array, BodyForms>();
  // What a collected body's copies held goes back to the budget; the held value must not reach the body.
  private readonly collected = new FinalizationRegistry<{ bytes: number }>((held) => this.budget.give(held.bytes));

  constructor(
    private readonly compressor: Compressor,
    readonly budget: ByteBudget,
  ) {}

  /**
   * `bytes` compressed, kept only when smaller than `smallerThan` (the identity size
   * unless told). Room for the whole body is reserved before any work and the unused
   * part given back, so a full budget costs no CPU. The caller gives the copy's length
   * back to the budget when it drops the copy.
   */
  async make(coding: ContentCoding, bytes: Uint8Array, effort: CompressionEffort, smallerThan = bytes.length): Promise<Compressed> {
    if (!this.budget.take(bytes.length)) return { kind: 'no-room' };
    let encoded: Uint8Array;
    try {
      encoded = await this.compressor.compress(coding, bytes, effort);
    } catch (error) {
      this.budget.give(bytes.length);
      throw error;
    }
    if (encoded.length >= smallerThan) {
      this.budget.give(bytes.length);
      return { kind: 'not-smaller' };
    }
    this.budget.give(bytes.length - encoded.length);
    return { kind: 'copy', bytes: encoded };
  }

  /**
   * A body's copy in `coding`, made on the first call and kept while the body object
   * lives (its bytes count in the budget until it is collected); undefined when identity
   * goes: not smaller (for good), or no room now (asked again next time).
   */
  ofBody(body: Uint8Array, coding: ContentCoding): Promise<Uint8Array | undefined> {
    let forms = this.bodies.get(body);
    if (!forms) {
      forms = { copies: {}, held: { bytes: 0 } };
      this.bodies.set(body, forms);
      this.collected.register(body, forms.held);
    }
    const known = forms.copies[coding];
    if (known) return known;
    const { copies, held } = forms;
    const made = this.make(coding, body, 'prompt').then((result) => {
      if (result.kind === 'copy') {
        held.bytes += result.bytes.length;
        return result.bytes;
      }
      if (result.kind === 'no-room') delete copies[coding];
      return undefined;
    });
    copies[coding] = made;
    made.catch(() => delete copies[coding]);
    return made;
  }
}
