/** Injection tokens for the ports: interfaces do not exist at run time. */
export const TOKENS = {
  PackageOpener: Symbol.for('PackageOpener'),
  ArchiveWriter: Symbol.for('ArchiveWriter'),
  Hasher: Symbol.for('Hasher'),
  SchemaValidator: Symbol.for('SchemaValidator'),
  DirectoryWriter: Symbol.for('DirectoryWriter'),
  PackageVerifier: Symbol.for('PackageVerifier'),
  Clock: Symbol.for('Clock'),
  ReactorHost: Symbol.for('ReactorHost'),
  HttpProbe: Symbol.for('HttpProbe'),
  OverlayStore: Symbol.for('OverlayStore'),
  SqliteReader: Symbol.for('SqliteReader'),
  SignatureSchemes: Symbol.for('SignatureSchemes'),
  KeyWrappings: Symbol.for('KeyWrappings'),
  ContentCipher: Symbol.for('ContentCipher'),
  FileWriter: Symbol.for('FileWriter'),
} as const;
