/** Joins chunks into one array; `size` may be given when already known. */
export function concatBytes(chunks: readonly Uint8Array[], size = chunks.reduce((sum, chunk) => sum + chunk.length, 0)): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/** Reads a whole stream into one array. */
export async function collectBytes(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return concatBytes(chunks);
}

/**
 * Bytes to keep for long: a copy when they view a larger buffer (a read window, a
 * decompression chunk), so holding a small file does not hold the buffer around it.
 */
export function compactBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteLength < bytes.buffer.byteLength ? bytes.slice() : bytes;
}

export function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (character) => character.charCodeAt(0));
}

export function toBase64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** Bytes already in memory, as the stream a writer takes. */
export async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}
