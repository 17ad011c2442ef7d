/** Passes a stream through unchanged while showing each chunk to `observe`. */
export async function* tap(stream: AsyncIterable<Uint8Array>, observe: (chunk: Uint8Array) => void): AsyncIterable<Uint8Array> {
  for await (const chunk of stream) {
    observe(chunk);
    yield chunk;
  }
}
