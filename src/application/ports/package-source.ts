export interface PackageEntry {
  /** Package-relative POSIX path. */
  path: string;
  size: number;
}

/**
 * An entry an archive holds deflated: its raw deflate bytes, which a gzip member wraps
 * as they are (RFC 1952), and what the archive declares they inflate to.
 */
export interface DeflatedEntry {
  /** Declared size of the inflated bytes. */
  size: number;
  /** Declared CRC-32 of the inflated bytes. */
  crc32: number;
  compressedSize: number;
  /** A copy of the raw deflate bytes as stored. */
  raw(): Promise<Uint8Array>;
  /**
   * What `raw` inflates to, in chunks: a few hundred kilobytes of raw bytes may declare a
   * gigabyte, which is never held whole. PackageFormatError, by the end, unless it is
   * exactly one deflate stream (nothing after its last block) of the declared size and CRC-32.
   */
  inflate(raw: Uint8Array): AsyncIterable<Uint8Array>;
}

/**
 * One file of a source whose files may change, held open: what it reads are the bytes of
 * the file opened, whatever is renamed over its name meanwhile.
 */
export interface OpenFile {
  /** As `current` gives it, of the file held open, when it was opened. */
  readonly version: string;
  readonly size: number;
  /** Bytes `start` to `end` (inclusive), read from the open file; none when `end` < `start`. */
  bytes(start: number, end: number): AsyncIterable<Uint8Array>;
  /** The held file's version now: another than `version` once it was written in place. */
  versionNow(): Promise<string>;
  close(): Promise<void>;
}

/** A read-only view of one package's files: a directory, a `.cap` read in place, or memory. */
export interface PackageSource {
  /** Where the package comes from, for messages. */
  readonly location: string;
  /**
   * The path that opens these same files again (a child process re-hashes a large package
   * so), when it is not `location`: a decrypted package is named by the encrypted one the
   * user gave, and read from its plaintext copy in the workdir.
   */
  readonly path?: string;
  readonly kind: 'directory' | 'archive' | 'memory';
  /** Files only, sorted by path. */
  entries(): readonly PackageEntry[];
  has(path: string): boolean;
  /** The size its listing gives the file (an archive's directory, a folder's walk), before anything is read; undefined when there is no such file. */
  sizeOf(path: string): number | undefined;
  read(path: string): Promise<Uint8Array>;
  stream(path: string): AsyncIterable<Uint8Array>;
  /**
   * Bytes `start` to `end` (inclusive, within the file) read without what comes before
   * them, for files a source can read so (a folder's files, an archive's entries stored
   * as they are); undefined for one it must read from its start (an entry stored
   * deflated), and absent in sources that have none.
   */
  range?(path: string, start: number, end: number): AsyncIterable<Uint8Array> | undefined;
  /** The archive file's own bytes, for sources that are one (its SHA-256 is the content hash). */
  archiveBytes?(): AsyncIterable<Uint8Array>;
  /**
   * For sources whose files may change while served (a directory being edited): the
   * file's size now and a token that changes with its bytes; undefined once it is gone.
   */
  current?(path: string): Promise<{ size: number; version: string } | undefined>;
  /** For sources whose files may change while served: the file, held open to be checked and sent as one (see OpenFile). */
  openFile?(path: string): Promise<OpenFile>;
  /** For archives: the entry at `path` when it is stored deflated, undefined otherwise. */
  deflated?(path: string): DeflatedEntry | undefined;
  close(): Promise<void>;
}

/** Opens a package directory or `.cap` file by its location. */
export interface PackageOpener {
  open(location: string): Promise<PackageSource>;
}
