/**
 * Typed errors. Each carries a stable `code`; they are translated in exactly two
 * places: to HTTP statuses in the http adapter and to exit codes in the cli adapter.
 */
export abstract class ToolkitError extends Error {
  abstract readonly code: string;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** What is wrong with a package, a source of packages, or what is done to one. */
export abstract class PackageError extends ToolkitError {}

/** An archive entry or a linked file would land outside its destination. */
export class UnsafeEntryError extends PackageError {
  readonly code = 'UNSAFE_ENTRY';
  constructor(readonly entry: string, reason: string) {
    // Quoted as JSON: a name's control characters are shown escaped, never acted on.
    super(`unsafe entry ${JSON.stringify(entry)}: ${reason}`);
  }
}

export class SignatureMismatchError extends PackageError {
  readonly code = 'SIGNATURE_MISMATCH';
}

/** Checksums do not match the files: lists what is wrong, file by file. */
export class IntegrityError extends PackageError {
  readonly code = 'INTEGRITY';
  constructor(
    message: string,
    readonly problems: { mismatched: string[]; missing: string[]; uncovered: string[] } = { mismatched: [], missing: [], uncovered: [] },
  ) {
    super(message);
  }
}

export class KeyRequiredError extends PackageError {
  readonly code = 'KEY_REQUIRED';
}

export class DecryptionError extends PackageError {
  readonly code = 'DECRYPTION';
}

export class OpenPgpUnavailableError extends PackageError {
  readonly code = 'OPENPGP_UNAVAILABLE';
}

export class MountConflictError extends PackageError {
  readonly code = 'MOUNT_CONFLICT';
}

/** A package is not a well-formed package: not a ZIP, duplicate entries, no metadata.json. */
export class PackageFormatError extends PackageError {
  readonly code: string = 'PACKAGE_FORMAT';
}

/** An entry whose bytes cannot be read back as the directory declares them: a corrupt deflate stream, a wrong size or CRC-32. */
export class CorruptEntryError extends PackageFormatError {
  override readonly code = 'CORRUPT_ENTRY';
  constructor(
    readonly entry: string,
    reason: string,
  ) {
    super(`corrupt entry ${entry}: ${reason}`);
  }
}

/** A file of a directory source that is there but cannot be read now (no permission, no file descriptor left, a failing disk): the operator's to mend, and a later request may find it readable. */
export class SourceUnreadableError extends PackageError {
  readonly code = 'SOURCE_UNREADABLE';
}

/** A file of a directory source changed size (or, checked against security.json, was written) while its answer was being sent: the answer is cut off, the next request reads the file anew. */
export class SourceChangedError extends PackageError {
  readonly code = 'SOURCE_CHANGED';
}

/** A configuration or data document does not parse; carries the position. */
export class ConfigParseError extends PackageError {
  readonly code = 'CONFIG_PARSE';
  constructor(
    readonly file: string,
    readonly detail: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(`${file}${line !== undefined ? `:${line}:${column ?? 1}` : ''}: ${detail}`);
  }
}

/** A configuration document parses but breaks the rules of its model. */
export class ConfigValidationError extends PackageError {
  readonly code = 'CONFIG_INVALID';
  constructor(
    readonly file: string,
    readonly issues: string[],
  ) {
    super(`${file}: ${issues.join('; ')}`);
  }
}

export class SourceNotFoundError extends PackageError {
  readonly code = 'SOURCE_NOT_FOUND';
}

export class OutputExistsError extends PackageError {
  readonly code = 'OUTPUT_EXISTS';
}

/** A file the tool writes that the storage would not take whole: a full disk, a quota used up, a failing or read-only device. */
export class WriteFailedError extends ToolkitError {
  readonly code = 'WRITE_FAILED';
}

/** A command line that cannot run as given: the operator's, not a package's. */
export class UsageError extends ToolkitError {
  readonly code = 'USAGE';
}

export class RegistryError extends PackageError {
  readonly code: string = 'REGISTRY';
}
export class RegistryNotConfiguredError extends RegistryError {
  override readonly code = 'REGISTRY_NOT_CONFIGURED';
}
export class InvalidRegistryError extends RegistryError {
  override readonly code = 'INVALID_REGISTRY';
}
export class InvalidPackageError extends RegistryError {
  override readonly code = 'INVALID_PACKAGE';
}
export class PackageNotFoundError extends RegistryError {
  override readonly code = 'PACKAGE_NOT_FOUND';
}
/** Versions of the package exist, but none satisfies the range: `available` lists them. */
export class UnsatisfiableConstraintError extends RegistryError {
  override readonly code = 'UNSATISFIABLE_CONSTRAINT';
  constructor(
    message: string,
    readonly available: readonly string[] = [],
  ) {
    super(message);
  }
}
export class ChecksumMismatchError extends RegistryError {
  override readonly code = 'CHECKSUM_MISMATCH';
}
export class FetchError extends RegistryError {
  override readonly code = 'FETCH';
}

/** A package depends, through the chain it names (`a -> b -> a`), on itself. */
export class DependencyCycleError extends PackageError {
  readonly code = 'DEPENDENCY_CYCLE';
  constructor(readonly chain: readonly string[]) {
    super(`circular dependency: ${chain.join(' -> ')}`);
  }
}

/** A route names a dependency's resource that the dependency does not export: private, or not there at all. */
export class DependencyResourceError extends PackageError {
  readonly code = 'DEPENDENCY_RESOURCE';
}

/** A dataset exists but this reactor cannot read or write it (SQLite writes, for one). */
export class DatasetUnavailableError extends PackageError {
  readonly code = 'DATASET_UNAVAILABLE';
}

/** The reactor could not listen: the port is in use or not allowed. */
export class ListenError extends ToolkitError {
  readonly code = 'LISTEN';
}

/** A worker process of a reactor that serves with several (`--workers`) could not start, or stopped before it listened. */
export class WorkerError extends ToolkitError {
  readonly code = 'WORKER';
}

/** No dataset of that id in the package. */
export class DatasetNotFoundError extends PackageError {
  readonly code = 'DATASET_NOT_FOUND';
}

export class ItemNotFoundError extends PackageError {
  readonly code = 'ITEM_NOT_FOUND';
}

/** A write that would take a dataset's items past what one dataset may hold: refused before it is logged, so every acknowledged write stays readable. */
export class DatasetFullError extends PackageError {
  readonly code = 'DATASET_FULL';
}

/** An item's history, or the page of it asked for, holds more than one answer may: page it with `limit` and `offset`. */
export class HistoryTooLargeError extends PackageError {
  readonly code = 'HISTORY_TOO_LARGE';
}

/** `/package/<name>/save` of a package mounted more than once, without saying which mount's overlay: each mount has its own. */
export class AmbiguousPackageError extends PackageError {
  readonly code = 'AMBIGUOUS_PACKAGE';
}

/** A POST names an id the dataset already holds. */
export class DuplicateIdError extends PackageError {
  readonly code = 'DUPLICATE_ID';
}

/** A PUT body's `id` differs from the id in its path. */
export class IdMismatchError extends PackageError {
  readonly code = 'ID_MISMATCH';
}

/** A collection query that cannot be read: a malformed operator, value or page. */
export class InvalidQueryError extends PackageError {
  readonly code = 'BAD_QUERY';
}

/** A collection query names a field the dataset's items do not have. */
export class UnknownFieldError extends PackageError {
  readonly code = 'UNKNOWN_FIELD';
}

/** A request's If-Match names none of the current entity tags (or there is nothing), or a write's If-None-Match names one (412). */
export class PreconditionFailedError extends PackageError {
  readonly code = 'PRECONDITION_FAILED';
}

/** What was sent is not an item: not a JSON object, or an id that cannot be one. */
export class InvalidItemError extends PackageError {
  readonly code = 'INVALID_ITEM';
}

/** A request body is not well-formed JSON. */
export class MalformedJsonError extends PackageError {
  readonly code = 'MALFORMED_JSON';
}

/** An item breaks the dataset's JSON schema; `violations` lists every error. */
export class SchemaViolationError extends PackageError {
  readonly code = 'SCHEMA_VIOLATION';
  constructor(
    message: string,
    readonly violations: Array<{ path: string; message: string }>,
  ) {
    super(message);
  }
}

/** A write to a package whose metadata declares `readOnly: true`. */
export class ReadOnlyError extends PackageError {
  readonly code = 'READ_ONLY';
}

/** An item operation on a dataset whose data is not a list of items. */
export class NotACollectionError extends PackageError {
  readonly code = 'NOT_A_COLLECTION';
}

/** A content write whose body is not text. */
export class NotTextError extends PackageError {
  readonly code = 'NOT_TEXT';
}

/** A content file the reference scanner cannot read to its end (nesting deeper than its parser goes): its references are not all known. */
export class UnscannableContentError extends PackageError {
  readonly code = 'UNSCANNABLE_CONTENT';
}

/** A dataset schema that cannot check a value: it refers to itself without ever descending into the value. */
export class UnusableSchemaError extends PackageError {
  readonly code = 'UNUSABLE_SCHEMA';
}

/** The overlay in the workdir could not be read or written. */
export class OverlayError extends PackageError {
  readonly code = 'OVERLAY';
}

/** A content write to a name the overlay reserves for itself. */
export class ContentPathError extends PackageError {
  readonly code = 'BAD_CONTENT_PATH';
}

/** A content write to a route that does not serve a content file (a package file outside content/, a remapped path). */
export class RouteNotWritableError extends PackageError {
  readonly code = 'ROUTE_NOT_WRITABLE';
}

/** A content delete of a path no layer serves. */
export class ContentNotFoundError extends PackageError {
  readonly code = 'NOT_FOUND';
}

/** A key or certificate that cannot be used: not a key, too weak, or not matching its certificate. */
export class KeyError extends PackageError {
  readonly code = 'KEY';
}

/** A request that needs an identity came without a valid one (401). */
export class UnauthenticatedError extends PackageError {
  readonly code = 'UNAUTHENTICATED';
}

/**
 * As many password checks as one password file allows are already under way: another
 * would wait behind them, so it is refused at once (503, try again shortly).
 */
export class PasswordChecksBusyError extends PackageError {
  readonly code = 'PASSWORD_CHECKS_BUSY';
}

/** The identity lacks every role the route accepts (403). */
export class ForbiddenError extends PackageError {
  readonly code = 'FORBIDDEN';
}

/** A write carried only the session cookie and did not come from this reactor's origin (403). */
export class CrossSiteWriteError extends PackageError {
  readonly code = 'CROSS_SITE_WRITE';
}

/** An OAuth2 callback whose state is missing, tampered, foreign, expired or replayed (401). */
export class OAuth2StateError extends PackageError {
  readonly code = 'OAUTH2_STATE';
}

/** An OAuth2 callback that is not a provider answer: no code and no error (400). */
export class OAuth2CallbackError extends PackageError {
  readonly code = 'OAUTH2_CALLBACK';
}

/** The OAuth2 provider refused, failed, answered nonsense or did not answer (502). */
export class OAuth2ProviderError extends PackageError {
  readonly code = 'OAUTH2_PROVIDER';
}

/**
 * A request to a name that is not one of the reactor's (its `Host`), where the answer would
 * have to name the reactor's own address, as an OAuth2 login's redirect URI does (421).
 */
export class MisdirectedRequestError extends PackageError {
  readonly code = 'MISDIRECTED_REQUEST';
}

/** A content write where a file and a directory would meet: `a.txt` written while `a.txt/b.txt` is there, or the reverse (409). */
export class ContentConflictError extends PackageError {
  readonly code = 'CONTENT_CONFLICT';
}

/** Another reactor holds the workdir: two processes appending to one overlay would lose writes. */
export class WorkdirLockedError extends PackageError {
  readonly code = 'WORKDIR_LOCKED';
}

/** An archive that would expand past the limits: too large, too compressed, too many entries, or entries sharing bytes. */
export class ArchiveLimitError extends PackageError {
  readonly code = 'ARCHIVE_LIMIT';
}

/** A route of a kind this reactor does not run (a `handler` route, code of another implementation): 501. */
export class HandlerNotSupportedError extends PackageError {
  readonly code = 'HANDLER_NOT_SUPPORTED';
}

/**
 * A request body in a transfer coding besides chunked (`Transfer-Encoding: gzip, chunked`):
 * read as it is, its bytes would be taken for the body itself. RFC 9112 §6.1: 501.
 */
export class UnsupportedTransferCodingError extends PackageError {
  readonly code = 'UNSUPPORTED_TRANSFER_CODING';
}

/** A request that is not well-formed HTTP/1.1 though node's parser took it (two Host headers, none in HTTP/1.1): 400. */
export class MalformedRequestError extends PackageError {
  readonly code = 'BAD_REQUEST';
}

/** A request path that any spelling would take outside the package (`..`, an encoded `/`, a NUL byte): 400. */
export class BadRequestPathError extends PackageError {
  readonly code = 'BAD_PATH';
}

/** A request path longer than the reactor reads: 414. */
export class RequestPathTooLongError extends PackageError {
  readonly code = 'BAD_PATH';
}

/** Nothing is mounted at a path, or no route or file answers it: 404. */
export class ResourceNotFoundError extends PackageError {
  readonly code = 'NOT_FOUND';
}

/**
 * A lazily verified package (`--verify lazy`) whose bytes failed a check, on a first read
 * or in the background pass: it is out of service, and every request to its mount is 503.
 */
export class PackageOutOfServiceError extends PackageError {
  readonly code = 'PACKAGE_OUT_OF_SERVICE';
  constructor(
    message: string,
    readonly reasons: readonly string[],
  ) {
    super(message);
  }
}
