import { ContentNotFoundError, RouteNotWritableError, type PackageError } from '../../domain/errors.js';
import { CONTENT_DIR } from '../../domain/package/package-paths.js';
import { checkNoFileDirectoryClash, checkOneSpelling, checkTextBody, checkWritableContentPath } from '../../domain/serving/content-write.js';
import { RouteTable } from '../../domain/serving/route-table.js';
import type { ServedPackage } from './served-package.js';

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
  async put(path: string, body: Uint8Array, contentType: string | undefined): Promise<{ path: string; resource: string }> {
    const contentPath = this.target(path);
    checkTextBody(body, contentType);
    await this.exclusive(async ({ files }) => {
      checkNoFileDirectoryClash(contentPath, this.pkg.layers);
      checkOneSpelling(contentPath, this.pkg.layers);
      await files.writeContent(contentPath, body);
      this.pkg.overlayWritten(contentPath, body.length);
    });
    return { path, resource: CONTENT_DIR + contentPath };
  }

  /** Tombstones the path: it answers 404 from now on, even where a lower layer has the file. */
  async delete(path: string): Promise<void> {
    const contentPath = this.target(path);
    await this.exclusive(async ({ files }) => {
      if (!this.pkg.layers.resolve(contentPath)) throw new ContentNotFoundError(`no file at ${path}`);
      await files.deleteContent(contentPath);
      this.pkg.overlayDeleted(contentPath);
    });
  }

  /** Runs `use` between writes, so the overlay's files and tombstones hold still meanwhile (save). */
  quiet<T>(use: () => Promise<T>): Promise<T> {
    const run = this.queue.then(use);
    this.queue = run.catch(() => undefined);
    return run;
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
