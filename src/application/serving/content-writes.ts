import { ContentNotFoundError, PreconditionFailedError, RouteNotWritableError, type PackageError } from '../../domain/errors.js';
import { CONTENT_DIR } from '../../domain/package/package-paths.js';
import { checkFitsAmong, checkNoFileDirectoryClash, checkOneSpelling, checkTextBody, checkWritableContentPath } from '../../domain/serving/content-write.js';
import { evaluatePreconditions, type Preconditions } from '../../domain/serving/entity-tags.js';
import { RouteTable } from '../../domain/serving/route-table.js';
import type { OverlayEntry } from '../ports/overlay-store.js';
import { representationTags, type ServedPackage } from './served-package.js';

/**
 * `PUT /<route>` and `DELETE /<route>` of one writable package: files and tombstones in
 * its overlay, the topmost layer. Each change is made durable in the workdir before it
 * is applied and acknowledged; changes to one package happen one at a time, so the
 * tombstone list is never written by two requests at once.
 */
export class ContentWrites {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private pkg: ServedPackage,
    /** Why writes are refused (a read-only package, which has no overlay), when they are. */
    private refusal: PackageError | undefined,
  ) {}

  /** The package was loaded again (`--watch`, inside `quiet`): later writes go to its new version. */
  replace(pkg: ServedPackage, refusal: PackageError | undefined): void {
    this.pkg = pkg;
    this.refusal = refusal;
  }

  get writable(): boolean {
    return this.refusal === undefined;
  }

  /** Throws the reason this package takes no writes, if there is one: before a body is read. */
  assertWritable(): void {
    if (this.refusal) throw this.refusal;
  }

  /** Creates or overwrites the content file a route path names; the route exists from then on. */
  async put(path: string, body: Uint8Array, contentType: string | undefined, conditions?: Preconditions): Promise<{ path: string; resource: string }> {
    const contentPath = this.target(path);
    checkTextBody(body, contentType);
    await this.exclusive(async ({ files }) => {
      const expected = await this.checkPreconditions(path, contentPath, conditions);
      checkNoFileDirectoryClash(contentPath, this.pkg.layers);
      checkOneSpelling(contentPath, this.pkg.layers);
      if (!(await files.writeContent(contentPath, body, expected, (overlayFiles) => checkFitsAmong(contentPath, overlayFiles)))) throw changedElsewhere(path);
      this.pkg.overlayWritten(contentPath, body.length);
    });
    return { path, resource: CONTENT_DIR + contentPath };
  }

  /** Tombstones the path: it answers 404 from now on, even where a lower layer has the file. */
  async delete(path: string, conditions?: Preconditions): Promise<void> {
    const contentPath = this.target(path);
    await this.exclusive(async ({ files }) => {
      const expected = await this.checkPreconditions(path, contentPath, conditions);
      if (!this.pkg.layers.resolve(contentPath)) throw new ContentNotFoundError(`no file at ${path}`);
      if (!(await files.deleteContent(contentPath, expected))) throw changedElsewhere(path);
      this.pkg.overlayDeleted(contentPath);
    });
  }

  /**
   * Runs `use` between writes, so the overlay's files and tombstones hold still meanwhile
   * (save), those of the reactor's other processes too.
   */
  quiet<T>(use: () => Promise<T>): Promise<T> {
    const overlay = this.pkg.overlay?.files;
    const run = this.queue.then(() => (overlay ? overlay.exclusive(use) : use()));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Refuses a write whose If-Match names none of the tags GET of the path would now send
   * (or there is no file), or whose If-None-Match names one (`*`: there is a file). Checked
   * between writes, so of two writes naming one tag only the first can pass; returns what
   * the overlay held at the path when it passed, which a store shared with other reactors
   * makes the write on only while it still holds.
   */
  private async checkPreconditions(path: string, contentPath: string, conditions: Preconditions | undefined): Promise<OverlayEntry | undefined> {
    if (conditions === undefined) return undefined;
    const expected = await this.pkg.overlayEntry(contentPath);
    const found = await this.pkg.lookup(path);
    const failed = evaluatePreconditions(conditions, found.kind === 'hit' ? representationTags(found.file) : undefined, false);
    if (failed === 'proceed') return expected;
    throw new PreconditionFailedError(failed === 'If-None-Match' ? `${path} exists with a tag If-None-Match names` : found.kind === 'hit' ? `${path} has changed: If-Match names none of its entity tags` : `no file at ${path}: If-Match needs one`);
  }

  /** The content path a route path writes: the route's file, or the path mirrored below content/. */
  private target(path: string): string {
    this.assertWritable();
    const target = this.pkg.routes.lookup(path);
    let contentPath: string;
    if (target === undefined) contentPath = RouteTable.mirrored(path);
    else if (target.kind === 'content') contentPath = target.contentPath;
    else throw new RouteNotWritableError(`${path} is not a content route (${target.kind === 'moved' ? `it was remapped to ${target.route.remap}` : `it serves ${target.kind === 'file' ? target.packagePath : target.kind === 'dependency' ? `${target.guid}/content/${target.contentPath}, a dependency's file` : 'a dataset'}`}); it cannot be written`);
    checkWritableContentPath(contentPath);
    return contentPath;
  }

  private exclusive<T>(work: (overlay: NonNullable<ServedPackage['overlay']>) => Promise<T>): Promise<T> {
    return this.quiet(() => work(this.pkg.overlay!));
  }
}

/** A conditional write another reactor overtook: the tags the client named describe what is no longer there. */
function changedElsewhere(path: string): PreconditionFailedError {
  return new PreconditionFailedError(`${path} has changed: another reactor wrote it since its entity tags were checked`);
}
