import type { Got, OptionsInit, RequestError } from 'got';
import { isLoopbackHost, redactMessage, type RegistryReference } from '../../domain/dependencies/registry-reference.js';
import { parseRegistryIndex, REGISTRY_INDEX_FILE, type RegistryIndex, type RegistryVersion } from '../../domain/dependencies/registry-index.js';
import { FetchError, InvalidRegistryError } from '../../domain/errors.js';
import type { RegistryClient } from '../../application/ports/registry-client.js';

/** Transient failures: worth another try, a few times, with a short back-off. */
const RETRY = {
  limit: 2,
  methods: ['GET' as const],
  statusCodes: [408, 429, 500, 502, 503, 504],
  errorCodes: ['ETIMEDOUT', 'ECONNRESET', 'EADDRINUSE', 'ECONNREFUSED', 'EPIPE', 'ENOTFOUND', 'ENETUNREACH', 'EAI_AGAIN'],
  calculateDelay: ({ computedValue }: { computedValue: number }) => (computedValue === 0 ? 0 : Math.min(computedValue, 1000)),
};
const TIMEOUT = { lookup: 5_000, connect: 10_000, secureConnect: 10_000, socket: 30_000, send: 30_000, response: 30_000 };
const INSECURE_REDIRECT = 'ERR_PKG_INSECURE_REDIRECT';
/**
 * The index is read whole into memory: a registry that sends more than this (a million
 * versions' worth), or keeps sending a byte at a time, is refused rather than waited on.
 */
export const MAX_INDEX_BYTES = 64 * 1024 * 1024;
export const INDEX_WITHIN_MS = 300_000;
/**
 * A download slower than this is stopped, as curl's --speed-limit stops one: a package
 * may take long to arrive, but a registry that sends a byte now and then (each within the
 * socket's idle time) would otherwise hold an install, or a reactor's start, for ever.
 */
export const SLOWEST_DOWNLOAD = { bytes: 16 * 1024, withinMs: 60_000 };

/** got costs start-up time every command would pay; only a registry over HTTP needs it. */
let loading: Promise<Got> | undefined;
function loadGot(): Promise<Got> {
  loading ??= import('got').then((module) => module.default);
  return loading;
}

/**
 * A static registry over https (or http on loopback): `index.json` and the files it
 * names, relative to the base URL. Credentials in the URL are sent as Basic auth and
 * appear nowhere else. Redirects are followed only to https (or loopback http).
 */
export class GotRegistryClient implements RegistryClient {
  readonly display: string;
  private readonly base: string;
  private readonly credentials: { username: string; password: string } | undefined;

  constructor(
    reference: Extract<RegistryReference, { kind: 'url' }>,
    private readonly progress: { isTTY?: boolean; write(text: string): unknown } = process.stderr,
    private readonly slowest = SLOWEST_DOWNLOAD,
    private readonly indexWithinMs = INDEX_WITHIN_MS,
  ) {
    this.display = reference.display;
    this.base = reference.base;
    this.credentials = reference.credentials;
  }

  async index(): Promise<RegistryIndex> {
    const url = new URL(REGISTRY_INDEX_FILE, this.base);
    const where = `${this.display}${REGISTRY_INDEX_FILE}`;
    const got = await loadGot();
    let text: string;
    let tooLarge = false;
    try {
      // An index still arriving when its time is up is refused, not asked for again (for as long once more).
      const retry = { ...RETRY, calculateDelay: (attempt: { error: unknown; computedValue: number }) => (tookTooLong(attempt.error) ? 0 : RETRY.calculateDelay(attempt)) };
      const request = got(url, { ...this.options(), timeout: { ...TIMEOUT, request: this.indexWithinMs }, retry });
      request.on('downloadProgress', ({ transferred, total }: { transferred: number; total?: number }) => {
        if (transferred <= MAX_INDEX_BYTES && (total ?? 0) <= MAX_INDEX_BYTES) return;
        tooLarge = true;
        request.cancel();
      });
      text = await request.text();
    } catch (error) {
      if (tooLarge) throw new InvalidRegistryError(`${where} is larger than ${MAX_INDEX_BYTES / 1024 / 1024} MiB; refused`);
      if (tookTooLong(error)) throw new InvalidRegistryError(`${where} was still arriving after ${this.indexWithinMs / 1000} s; refused`);
      if (refusedStatus(error) === 404) throw new InvalidRegistryError(`registry ${this.display} has no ${REGISTRY_INDEX_FILE} (404)`);
      throw this.fetchError(`cannot read ${where}`, error);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new InvalidRegistryError(`${where}: invalid JSON: ${(error as Error).message}`);
    }
    return parseRegistryIndex(raw, where);
  }

  /**
   * Streams the file. A transient failure before the first byte is retried (got retries
   * only whole responses, not streams); after it, the caller has bytes it cannot take
   * back, so the failure is final.
   */
  async *fetch(version: RegistryVersion): AsyncIterable<Uint8Array> {
    const url = new URL(version.file, this.base);
    const where = `${this.display}${version.file}`;
    const got = await loadGot();
    for (let attempt = 0; ; attempt++) {
      let received = 0;
      let window = { from: Date.now(), bytes: 0 };
      const stream = got.stream(url, { ...this.options(), retry: { limit: 0 } });
      if (this.progress.isTTY) stream.on('downloadProgress', ({ transferred, total }: { transferred: number; total?: number }) => this.showProgress(version.file, transferred, total ?? version.size));
      try {
        for await (const chunk of stream) {
          received += (chunk as Buffer).length;
          window.bytes += (chunk as Buffer).length;
          if (Date.now() - window.from >= this.slowest.withinMs) {
            if (window.bytes < this.slowest.bytes) throw new Error(`fewer than ${this.slowest.bytes} bytes came in ${this.slowest.withinMs / 1000} s; stopped`);
            window = { from: Date.now(), bytes: 0 };
          }
          yield chunk as Buffer;
        }
        if (this.progress.isTTY) this.progress.write('\n');
        return;
      } catch (error) {
        stream.destroy();
        if (received === 0 && attempt < RETRY.limit && isTransient(error)) continue;
        throw this.fetchError(`cannot download ${where}`, error);
      }
    }
  }

  private options(): OptionsInit & { isStream?: undefined } {
    return {
      timeout: TIMEOUT,
      followRedirect: true,
      maxRedirects: 5,
      ...(this.credentials ? { username: this.credentials.username, password: this.credentials.password } : {}),
      hooks: {
        beforeRedirect: [
          (options: { url?: string | URL }) => {
            const target = new URL(options.url!);
            if (target.protocol === 'https:' || (target.protocol === 'http:' && isLoopbackHost(target.hostname))) return;
            throw Object.assign(new Error(`refused a redirect to ${target.protocol}//${target.host}: registries are reached over https only`), { code: INSECURE_REDIRECT });
          },
        ],
      },
    };
  }

  private showProgress(file: string, transferred: number, total: number): void {
    const percent = total > 0 ? Math.min(100, Math.floor((transferred / total) * 100)) : 0;
    this.progress.write(`\r${file}: ${percent}% of ${total} bytes`);
  }

  /** Every message is redacted: a library may quote the URL it was given. */
  private fetchError(what: string, error: unknown): FetchError {
    const failure = error as RequestError;
    const status = refusedStatus(error);
    const reason =
      failure.code === INSECURE_REDIRECT
        ? failure.message
        : status !== undefined
          ? `HTTP ${status}${failure.response?.statusMessage ? ` ${failure.response.statusMessage}` : ''}`
          : `${failure.code ? `${failure.code}: ` : ''}${failure.message}`;
    return new FetchError(redactMessage(`${what}: ${reason}`));
  }
}

/**
 * The status the server refused with. Only an HTTPError is a refusal: a body cut off after
 * a 200, or a redirect that went nowhere, carries the response it began with too, and its
 * status says nothing of why it failed.
 */
function refusedStatus(error: unknown): number | undefined {
  const failure = error as RequestError;
  return failure.name === 'HTTPError' ? failure.response?.statusCode : undefined;
}

/** The index's whole-request deadline passed: the registry answers, too slowly to wait for. */
function tookTooLong(error: unknown): boolean {
  const failure = error as { name?: string; event?: string };
  return failure.name === 'TimeoutError' && failure.event === 'request';
}

function isTransient(error: unknown): boolean {
  const failure = error as RequestError;
  const status = refusedStatus(error);
  if (status !== undefined) return RETRY.statusCodes.includes(status);
  return failure.code !== undefined && (RETRY.errorCodes.includes(failure.code) || failure.name === 'TimeoutError');
}
