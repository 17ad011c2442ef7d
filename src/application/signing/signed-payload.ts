/** The signed payload of SPEC.md: the raw bytes of each file, concatenated in the order given. */
export async function* concatenated(paths: readonly string[], read: (path: string) => AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  for (const path of paths) yield* read(path);
}
