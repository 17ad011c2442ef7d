/** Passes a stream through unchanged while showing each chunk to `observe`, and its end to `end`. */
export async function* tap(stream: AsyncIterable<Uint8Array>, observe: (chunk: Uint8Array) => void, end?: () => void): AsyncIterable<Uint8Array> {
  for await (const chunk of stream) {
    observe(chunk);
    yield chunk;
  }
  end?.();
}
