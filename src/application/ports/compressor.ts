/** The content codings (RFC 9110 §8.4.1) the reactor keeps compressed copies in, besides identity. */
export type ContentCoding = 'br' | 'gzip';

/**
 * How hard to work: `prompt` when a request waits for the copy (a few milliseconds for a
 * page), `thorough` for work done once in the background, where the smallest result pays,
 * and `steady` for background work by the hundred megabytes, where the best result would
 * keep a core busy for minutes.
 */
export type CompressionEffort = 'prompt' | 'steady' | 'thorough';

/** Compresses bytes into a content coding, off the event loop. */
export interface Compressor {
  compress(coding: ContentCoding, bytes: Uint8Array, effort: CompressionEffort): Promise<Uint8Array>;
}
