/**
 * Hears what a reactor in this process says on stderr of errors it did not expect
 * ("unexpected error"), so a test can require there were none. Lines holding `silenced`
 * (faults a test plants and checks itself) stay out of the output.
 */
export function watchUnexpectedErrors(silenced?: string): { unexpected: string[]; stop: () => void } {
  const write = process.stderr.write.bind(process.stderr);
  const unexpected: string[] = [];
  process.stderr.write = ((text: string | Uint8Array, ...rest: unknown[]) => {
    if (String(text).includes('unexpected error')) unexpected.push(String(text));
    if (silenced !== undefined && String(text).includes(silenced)) return true;
    return (write as (...args: unknown[]) => boolean)(text, ...rest);
  }) as typeof process.stderr.write;
  return { unexpected, stop: () => void (process.stderr.write = write) };
}
