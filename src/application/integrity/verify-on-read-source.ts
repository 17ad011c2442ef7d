import { SourceChangedError } from '../../domain/errors.js';
import { describeIntegrity, digestLookup, isCoveredByChecksums, type DigestLookup, type Security } from '../../domain/integrity/security.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageSource } from '../ports/package-source.js';
import { WrappedSource } from '../package/wrapped-source.js';
import { ServiceGuard } from './service-guard.js';
import { unreadableReason } from './unreadable-bytes.js';

/**
 * `--verify lazy`: a package whose files are checked against security.json one by one,
 * each on its first read and before any of its bytes leave here. `read` hashes the very
 * bytes it returns; `stream` hashes the whole file first and only then streams it, so a
 * response never starts on bytes that turn out wrong (a directory's file from the one
 * opening it hashed, see checkedAndSentOpen). A mismatch takes the whole package
 * out of service (see ServiceGuard), and from then on every read fails.
 *
 * Files that may change while served (a directory) are checked again whenever their
 * version changes; so an eagerly verified directory is wrapped too, and an edit that does
 * not match security.json takes it out of service instead of being served. security.json and signature.sig are not covered by checksums and pass
 * as they are, as in eager verification.
 */
export class VerifyOnReadSource extends WrappedSource {
  readonly guard = new ServiceGuard();
  readonly current?: (path: string) => Promise<{ size: number; version: string } | undefined>;
  /** Files checked and found intact, by path (and version, for files that may change). */
  private readonly verified = new Set<string>();
  /** The declared digest of each path, asked of its own keys only (a file named constructor has none). */
  private readonly expected: DigestLookup;
  /** Checks by streaming under way, shared by concurrent first reads. */
  private readonly checking = new Map<string, Promise<void>>();

  constructor(
    /** The same package without the checks: for the whole-package pass, which hashes everything anyway. */
    readonly unverified: PackageSource,
    /** The package's security.json, whose checksums every read is held to. */
    readonly security: Security,
    private readonly hasher: Hasher,
    /** `checkedWhole`: the whole package was verified at load (eager), so no background pass is owed; only later edits are checked. */
    readonly options: { checkedWhole?: boolean } = {},
  ) {
    // The gzip form of an entry is sent only once its inflated bytes give the checksum verified here (GzipRepresentation).
    super(unverified);
    this.expected = digestLookup(security.checksums);
    if (unverified.current) this.current = (path) => unverified.current!(path);
  }

  override async read(path: string): Promise<Uint8Array> {
    this.guard.assertServing();
    const key = await this.keyOf(path);
    if (key === undefined || this.verified.has(key)) return this.unverified.read(path);
    const bytes = await this.unverified.read(path).catch((error: unknown) => this.unreadable(error));
    this.settle(path, key, this.hasher.sha256(bytes));
    return bytes;
  }

  override stream(path: string): AsyncIterable<Uint8Array> {
    if (this.unverified.openFile && isCoveredByChecksums(path)) return this.checkedAndSentOpen(path);
    return this.checkedFirst(path, this.unverified.stream(path));
  }

  /** As `stream`: the whole file is checked before the first byte of a range is sent. */
  override range(path: string, start: number, end: number): AsyncIterable<Uint8Array> | undefined {
    if (this.unverified.openFile && isCoveredByChecksums(path)) return this.checkedAndSentOpen(path, { start, end });
    const bytes = this.unverified.range?.(path, start, end);
    return bytes && this.checkedFirst(path, bytes);
  }

  /**
   * A file that may change while served (a directory's), checked and sent from one open
   * descriptor: checked by its name and sent from a second opening, an edit landing in
   * between went out unchecked. A file renamed over it now leaves the bytes sent those
   * hashed; one written into it changes its version, which is read again before the last
   * chunk leaves: the answer is then cut off (SourceChangedError), never completed with
   * bytes no check saw.
   */
  private async *checkedAndSentOpen(path: string, part?: { start: number; end: number }): AsyncIterable<Uint8Array> {
    this.guard.assertServing();
    const file = await this.unverified.openFile!(path).catch((error: unknown) => this.unreadable(error));
    try {
      const key = `${path}\0${file.version}`;
      if (!this.verified.has(key)) await this.checkOnce(path, key, () => digestOf(this.hasher, file.bytes(0, file.size - 1)));
      const chunks = file.bytes(part?.start ?? 0, part?.end ?? file.size - 1);
      yield* lastAfter(chunks, async () => {
        if ((await file.versionNow()) !== file.version) throw new SourceChangedError(`${path} was written while it was being sent; the answer is cut off`);
      });
    } finally {
      await file.close();
    }
  }

  private async *checkedFirst(path: string, bytes: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
    await this.ensure(path);
    yield* bytes;
  }

  /** Resolves once the file is checked and intact; PackageOutOfServiceError when it (or anything before it) was not. */
  async ensure(path: string): Promise<void> {
    this.guard.assertServing();
    const key = await this.keyOf(path);
    if (key === undefined || this.verified.has(key)) return;
    await this.checkOnce(path, key, () => digestOf(this.hasher, this.unverified.stream(path)));
  }

  /** One check of the file's version, shared by the concurrent first reads of it. */
  private checkOnce(path: string, key: string, digest: () => Promise<string>): Promise<void> {
    let check = this.checking.get(key);
    if (!check) {
      check = digest().then(
        (found) => this.settle(path, key, found),
        (error: unknown) => this.unreadable(error),
      );
      this.checking.set(key, check);
      void check.finally(() => this.checking.delete(key)).catch(() => undefined);
    }
    return check;
  }


  /** What a check of the file is remembered by; undefined for the files checksums never cover. */
  private async keyOf(path: string): Promise<string | undefined> {
    if (!isCoveredByChecksums(path)) return undefined;
    return this.current ? `${path}\0${(await this.current(path))?.version ?? ''}` : path;
  }

  /** Bytes that cannot be read back fail the check as changed ones do: the package goes out of service. */
  private unreadable(error: unknown): never {
    this.guard.assertServing();
    throw this.guard.withdraw([unreadableReason(error, this.unverified.location)]);
  }

  private settle(path: string, key: string, digest: string): void {
    this.guard.assertServing();
    const expected = this.expected.get(path);
    if (expected === digest) return void this.verified.add(key);
    throw this.guard.withdraw(describeIntegrity({ mismatched: expected === undefined ? [] : [path], missing: [], uncovered: expected === undefined ? [path] : [] }));
  }
}

async function digestOf(hasher: Hasher, chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const hash = hasher.createSha256();
  for await (const chunk of chunks) hash.update(chunk);
  return hash.digest();
}

/** The chunks as they come, but the last only once `check` passed: a failed check leaves the answer short of its length. */
async function* lastAfter(chunks: AsyncIterable<Uint8Array>, check: () => Promise<void>): AsyncIterable<Uint8Array> {
  let held: Uint8Array | undefined;
  for await (const chunk of chunks) {
    if (held) yield held;
    held = chunk;
  }
  await check();
  if (held) yield held;
}
