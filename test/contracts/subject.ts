import { afterEach, beforeEach } from '@jest/globals';

/** What a contract runs against: the port's implementation and what the contract needs around it. */
export type Subject<T> = T & {
  /** Stops servers, removes temporary directories: whatever making the subject started. */
  dispose?(): Promise<void> | void;
};

/**
 * A fresh subject for every test of a contract, disposed after it: tests of a contract
 * never see each other's state, whichever implementation they run against.
 */
export function eachSubject<T>(make: () => Promise<Subject<T>> | Subject<T>): () => Subject<T> {
  let current: Subject<T> | undefined;
  beforeEach(async () => {
    current = await make();
  });
  afterEach(async () => {
    await current?.dispose?.();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('no subject: call it inside a test');
    return current;
  };
}

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
export const text = (data: Uint8Array): string => new TextDecoder().decode(data);

export async function collect(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

export async function* chunks(...parts: Array<string | Uint8Array>): AsyncIterable<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? bytes(part) : part;
}

/** A stream that yields some bytes and then fails, as a broken download does. */
export async function* failing(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield bytes(part);
  throw new Error('the stream broke');
}
