import { unreadableReason } from '../integrity/unreadable-bytes.js';
import { ConfigValidationError, MountConflictError, OverlayError, PackageError, ReadOnlyError, UsageError } from '../../domain/errors.js';
import { canonicalChecksumJson, describeIntegrity, isIntact } from '../../domain/integrity/security.js';
import { MountTable, normalizePrefix } from '../../domain/serving/mount-table.js';
import { hiddenByMountsWarnings } from '../../domain/serving/hidden-by-mounts.js';
import type { IntrospectionPath } from '../../domain/serving/reactor-paths.js';
import { overlayKey } from '../../domain/serving/overlay-key.js';
import type { TrustedKeys } from '../signing/trusted-keys.js';
import type { SourceWatcher } from '../ports/source-watcher.js';
import type { MountFailure, MountRequest, ReactorSettings } from '../ports/reactor-host.js';
import { redactCredentials } from '../../domain/dependencies/registry-reference.js';
import { ROUTES_FILE, sortPaths } from '../../domain/package/package-paths.js';
import { CoalescedRuns } from './coalesced-runs.js';
import { reactorPathRouteWarnings } from '../../domain/validation/reactor-path-routes.js';
import { lockedRouteWarning } from '../../domain/validation/locked-routes.js';
import { coveredPaths, digestEntries } from '../integrity/digest-entries.js';
import type { Clock } from '../ports/clock.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageVerifier } from '../ports/package-verifier.js';
import { PackageDatasets, type DatasetReaders } from '../data/package-datasets.js';
import type { SavedPackage, SavePackage } from '../use-cases/save-package.js';
import { ContentWrites } from './content-writes.js';
import type { SignatureCheck } from '../signing/signature-check.js';
import type { LoadOptions, LoadPackage } from './load-package.js';
import { RequestLog } from './request-log.js';
import { ReactorAuth, signInPaths, type AuthDependencies, type MountAuth } from '../auth/reactor-auth.js';
import { routeReach } from '../auth/dataset-access.js';
import type { Identity } from '../../domain/auth/access.js';
import type { ServedPackage } from './served-package.js';
import type { OverlayBackend, OverlayBackends } from '../ports/overlay-store.js';
import { OverlaySync, type FollowedMount } from './overlay-sync.js';
import type { ReactorProcesses } from '../ports/reactor-processes.js';
import { ReactorLog } from './process-reports.js';

/** 1 MB: a write body beyond it answers 413, unless the reactor is told otherwise. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** How long a stop waits for the requests in flight (ms), unless the reactor is told otherwise. */
export const DEFAULT_SHUTDOWN_TIMEOUT = 10_000;

export interface Mount extends FollowedMount {
  prefix: string;
  location: string;
  content: ContentWrites;
  /** Absent when the package neither enables authentication nor restricts a route. */
  auth?: MountAuth;
  /** Origins allowed to write here: the reactor's `--cors` and the mount's own. */
  cors: readonly string[];
}

/** One route in `/api/v1/introspect/routes`; a handler route is listed with `served: false` (it answers 501). */
export interface RouteReport {
  method: string;
  path: string;
  requestHeaders?: Record<string, string>;
  handler?: string;
  served?: false;
}

/**
 * What the operator hears of: a mount served in its new version, or an edit that no longer
 * loads (`--watch`); a lazily verified package taken out of service (`--verify lazy`).
 */
export type ReactorEvent = { kind: 'reloaded'; mount: Mount } | { kind: 'reload-failed'; mount: Mount; problem: string } | { kind: 'out-of-service'; mount: Mount; problem: string };

export interface Validity {
  package: string;
  valid: boolean;
  lastChecked: string;
  reason?: string[];
  signed: boolean;
  encrypted: boolean;
  signatureValid?: boolean;
}

export interface ReactorDependencies {
  loader: LoadPackage;
  verifier: PackageVerifier;
  hasher: Hasher;
  clock: Clock;
  readers: DatasetReaders;
  saver: SavePackage;
  signatures: SignatureCheck;
  auth: AuthDependencies;
  /** For `--watch`; without one, nothing is watched. */
  watcher?: SourceWatcher;
  /** Where writes and logouts are kept: the workdir, or the database `--overlay` names. */
  stores: OverlayBackends;
  /** The other processes of this reactor when it runs as several (`--workers`): its reports are theirs too. */
  processes?: ReactorProcesses;
}

/**
 * The reactor's state: its mounts (matched by longest prefix), its request log and
 * metrics, and the introspection reports SPEC.md defines, aggregated across mounts.
 */
export class Reactor {
  /** This process's access log and counts. */
  readonly log = new RequestLog();
  /** The reactor's, summed over its processes when it runs as several. */
  private readonly reports: ReactorLog;
  readonly mounts = new MountTable<Mount>();
  private readonly ordered: Mount[] = [];
  private readonly startedAt: Date;
  private readonly contentHashes = new Map<Mount, Promise<string>>();
  private readonly validations = new Map<Mount, Promise<Validity>>();
  /** The outcome of each package's latest verification; loading verified it first. */
  private readonly lastValid = new Map<Mount, boolean>();
  /** How each mount was loaded, to load it again when its source changes (`--watch`). */
  private readonly recipes = new Map<Mount, { options: LoadOptions; lock: string | undefined }>();
  /** Why a mount's source, edited while served, no longer loads: the last good version keeps serving. */
  private readonly reloadProblems = new Map<Mount, string>();
  private readonly reloads = new CoalescedRuns<Mount, void>();
  /** Mounts whose source changed since they were last loaded (`--watch`). */
  private readonly stale = new Set<Mount>();
  /** Each save packs the whole package: a flood of requests to save costs two packs, not one each. */
  private readonly saves = new CoalescedRuns<Mount, SavedPackage>();
  private readonly listeners: Array<(event: ReactorEvent) => void> = [];
  private readonly watchers: Array<{ close(): void }> = [];
  /** Sources that did not load at start: the reactor serves the others, and is not ready. */
  private failures: readonly MountFailure[] = [];
  /** The port the server bound: `--port 0` asks the system for any free one, and the config reports which. */
  private boundPort: number | undefined;

  private readonly sync = new OverlaySync();

  private constructor(
    readonly settings: ReactorSettings,
    private readonly dependencies: ReactorDependencies,
    readonly auth: ReactorAuth,
    private readonly trusted: TrustedKeys | undefined,
    /** Where this reactor keeps writes; closed with it. */
    readonly backend: OverlayBackend,
  ) {
    this.startedAt = dependencies.processes?.started ?? dependencies.clock.now();
    this.reports = new ReactorLog(this.log, dependencies.processes);
  }

  /** The processes this reactor runs as, when several (`--workers`). */
  get processes(): ReactorProcesses | undefined {
    return this.dependencies.processes;
  }

  /**
   * Loads every source and mounts it: the first positional source at `/`, each further
   * one at `/<metadata.name>/`. A source that fails to load is reported and left out;
   * when none loads, the first failure is thrown. Two mounts on one prefix always stop
   * start-up with MountConflictError.
   */
  static async start(requests: MountRequest[], settings: ReactorSettings, dependencies: ReactorDependencies): Promise<{ reactor: Reactor; failures: MountFailure[]; warnings: string[] }> {
    const trusted = settings.trust?.length ? await dependencies.signatures.trust(settings.trust) : undefined;
    const backend = await dependencies.stores.open(settings.overlay);
    let reactor: Reactor;
    try {
      reactor = new Reactor(settings, dependencies, await ReactorAuth.open(settings.deploy, settings.workdir, dependencies.auth, backend.revocations), trusted, backend);
    } catch (error) {
      await backend.close();
      throw error;
    }
    const failures: MountFailure[] = [];
    const warnings: string[] = [];
    let positional = 0;
    try {
      for (const [index, request] of requests.entries()) {
        const first = request.prefix === undefined && positional++ === 0;
        const label = request.prefix !== undefined ? `mount ${request.prefix}` : `source ${index + 1}`;
        let pkg: ServedPackage;
        const options: LoadOptions = {
          cacheControl: settings.cacheControl,
          ...(settings.liveReload ? { liveReload: true } : {}),
          workdir: settings.workdir,
          overlays: backend.overlays,
          keys: settings.keys,
          mountPath: (name) => normalizePrefix(request.prefix ?? (first ? '/' : name)),
          ...(trusted ? { trusted } : {}),
          ...packageSources(request, settings),
          verify: request.verify ?? settings.verify ?? 'eager',
        };
        try {
          pkg = await dependencies.loader.execute(request.source, options);
        } catch (error) {
          if (!(error instanceof PackageError)) throw error;
          failures.push({ source: request.source, error, label });
          continue;
        }
        const prefix = normalizePrefix(request.prefix ?? (first ? '/' : pkg.name));
        warnings.push(...pkg.model.warnings.map((warning) => `${request.source}: ${warning}`));
        const shadowed = reactorPathRouteWarnings(pkg.model.routes, { root: prefix === '/', datasets: Object.keys(pkg.model.storage?.dataSets ?? {}).length > 0 });
        warnings.push(...[...shadowed, ...lockedRouteWarning(pkg.model.routes, pkg.model.authentication)].map((warning) => `${request.source}: ${warning}`));
        let datasets: PackageDatasets | undefined;
        try {
          const lock = settings.readOnly ? 'this reactor was started with --read-only' : request.writable === false ? `its mount ${prefix} says "writable": false` : undefined;
          const refusal = writeRefusal(pkg, lock);
          const loaded = await PackageDatasets.load(pkg.source, pkg.model, pkg.overlay?.files, refusal, dependencies.readers);
          datasets = loaded.datasets;
          warnings.push(...loaded.warnings);
          const auth = await reactor.auth.forPackage(pkg, prefix);
          const cors = [...(settings.cors ?? []), ...(request.cors ?? [])];
          const mount: Mount = { prefix, location: request.source, pkg, datasets, content: new ContentWrites(pkg, refusal), cors, ...(auth ? { auth } : {}) };
          reactor.mount(mount);
          reactor.recipes.set(mount, { options, lock });
          reactor.sync.follow(mount);
          reactor.followVerification(mount);
        } catch (error) {
          await datasets?.close();
          await pkg.close();
          if (error instanceof MountConflictError || !(error instanceof PackageError)) throw error;
          failures.push({ source: request.source, error, label });
        }
      }
    } catch (error) {
      await reactor.close();
      throw error;
    }
    if (reactor.ordered.length === 0) {
      await reactor.close();
      throw failures[0]?.error ?? new UsageError('nothing to serve: name a package directory or .cap, or use --mount or --config');
    }
    if (settings.watch && dependencies.watcher) {
      // Only directories change while served; a .cap is read in place and never edited under the reactor.
      for (const mount of reactor.ordered) {
        if (mount.pkg.source.kind !== 'directory') continue;
        const changes = { touched: () => void reactor.stale.add(mount), settled: () => void (reactor.stale.has(mount) && reactor.reload(mount)) };
        reactor.watchers.push(dependencies.watcher.watch(mount.location, changes));
      }
    }
    reactor.failures = failures;
    warnings.push(...hiddenByMountsWarnings(reactor.ordered.map((mount) => ({ prefix: mount.prefix, label: `${mount.location} (${mount.pkg.name})`, datasets: mount.datasets.all().length > 0 }))));
    if (backend.overlays.shared && reactor.authEnabled() && reactor.auth.deploy.sessionSecret === undefined) {
      warnings.push(`the overlay store (${backend.overlays.description}) is shared with other reactors, and deploy.json sets no sessionSecret: a session made here is refused by the others; set one in deploy.json`);
    }
    return { reactor, failures, warnings };
  }

  /**
   * What keeps the reactor from being ready (`/readyz`), by component name only: a source
   * that did not load, a package whose latest verification failed or whose edit does not
   * load, an explicitly configured store or a shared overlay store that cannot be reached.
   * Empty when ready.
   */
  async unready(): Promise<string[]> {
    const failing = this.failures.map((failure) => failure.label);
    for (const mount of this.ordered) if (!(this.lastValid.get(mount) ?? true) || this.reloadProblems.has(mount)) failing.push(`package ${mount.pkg.name}`);
    if (this.settings.store !== undefined && (await this.dependencies.auth.files.version(this.settings.store)) === undefined) failing.push('store');
    if (!(await this.backend.overlays.reachable())) failing.push('overlay store');
    return failing;
  }

  /**
   * `--verify lazy`: the whole-package pass of every lazily verified mount, checksums and
   * signature, off the request path (the host starts it once it listens). A package that
   * fails it goes out of service; so does one whose pass cannot finish, since nothing
   * else would ever vouch for its unread files.
   */
  verifyInBackground(): void {
    for (const mount of this.ordered) void this.backgroundPass(mount);
  }

  private async backgroundPass(mount: Mount): Promise<void> {
    const { pkg } = mount;
    if (!pkg.verification || pkg.verification.options.checkedWhole) return;
    try {
      await this.validity(mount);
    } catch (error) {
      // The reason reaches clients: the error's kind, not its message, which may name server paths.
      if (mount.pkg === pkg && this.ordered.includes(mount)) pkg.verification.guard.withdraw([`the whole-package verification could not finish (${error instanceof Error ? error.name : 'unknown error'})`]);
    }
  }

  /** Hears a lazily verified package go out of service, whichever check found it. */
  private followVerification(mount: Mount): void {
    const { pkg } = mount;
    pkg.verification?.guard.onWithdraw((reasons) => {
      if (mount.pkg !== pkg) return;
      this.lastValid.set(mount, false);
      const problem = `package ${pkg.name} (${mount.location}) at ${mount.prefix} is out of service, every request to it answers 503: ${reasons.join('; ')}`;
      for (const listener of this.listeners) listener({ kind: 'out-of-service', mount, problem });
    });
  }

  private mount(mount: Mount): void {
    const describe = (m: Mount) => `${m.location} (${m.pkg.name})`;
    this.mounts.add(mount.prefix, mount, describe);
    // Requests reach a sign-in path's one mount: another's, on the same path, would be silently unreachable.
    for (const [path, endpoint] of signInPaths(mount.auth)) {
      for (const other of this.ordered) {
        const taken = signInPaths(other.auth).find(([otherPath]) => otherPath === path);
        if (taken) throw new MountConflictError(`two mounts' OAuth2 endpoints are both ${path}: the ${taken[1]} of ${describe(other)} at ${other.prefix} and the ${endpoint} of ${describe(mount)} at ${mount.prefix}; give one of them another redirectPath in its authentication.json, or another mount path`);
      }
    }
    this.ordered.push(mount);
  }

  all(): readonly Mount[] {
    return this.ordered;
  }

  /** The mounts of the package of that name, in mount order: one package may be mounted at several paths, each with its own overlay. */
  mountsNamed(name: string): Mount[] {
    return this.ordered.filter((mount) => mount.pkg.name === name);
  }

  uptime(): number {
    return Math.floor((this.dependencies.clock.now().getTime() - this.startedAt.getTime()) / 1000);
  }

  status(): { status: 'running'; uptime: number; packagesLoaded: number } {
    return { status: 'running', uptime: this.uptime(), packagesLoaded: this.ordered.length };
  }

  /** Told by the server once it listens. */
  listeningOn(port: number): void {
    this.boundPort = port;
  }

  config(): { port: number; storeDir: string | null; cacheControl: string; authEnabled: boolean; registry: string | null } {
    return {
      port: this.boundPort ?? this.settings.port,
      storeDir: reactorStore(this.settings) ?? null,
      cacheControl: this.settings.cacheControl,
      authEnabled: this.authEnabled(),
      registry: this.settings.registry === undefined ? null : redactCredentials(this.settings.registry),
    };
  }

  authEnabled(): boolean {
    return this.ordered.some((mount) => mount.auth?.enabled === true);
  }

  async metrics(): Promise<{ uptime: number; requestsTotal: number; requestsByStatus: Record<string, number> }> {
    return { uptime: this.uptime(), ...(await this.reports.counts()) };
  }

  metadataReport(): { packages: Array<{ name: string; version: string; author: string | null; description: string }> } {
    return { packages: this.ordered.map(({ pkg: { model } }) => ({ name: model.metadata.name, version: model.metadata.version, author: model.metadata.author ?? null, description: model.metadata.description })) };
  }

  /**
   * `identityAt`: the requester's identity at each mount, when the report is for one
   * requester: a route it may not use, and a route to a dataset it may not read, is left
   * out. Without it, every route.
   */
  routesReport(identityAt?: (mount: Mount) => Identity | undefined): { routes: Array<{ package: string; routes: RouteReport[] }> } {
    return {
      routes: this.ordered.map((mount) => {
        const base = mount.prefix.slice(0, -1);
        const routes: RouteReport[] = [];
        const declared = new Set<string>();
        const reaches = identityAt && mount.auth ? routeReach(mount.auth, mount.pkg.routes, identityAt(mount)) : undefined;
        for (const [path, target] of mount.pkg.routes.declared()) {
          if (target.kind === 'moved') continue;
          declared.add(path);
          if (reaches && !reaches(path, target)) continue;
          const entry: RouteReport = {
            method: target.kind === 'handler' ? (target.route.method ?? 'GET') : 'GET',
            path: base + path,
            ...(target.route?.requestHeaders ? { requestHeaders: target.route.requestHeaders } : {}),
            ...(target.kind === 'handler' ? { handler: target.route.handler!, served: false } : {}),
          };
          routes.push(entry);
        }
        for (const path of sortPaths(mount.pkg.layers.visiblePaths())) if (!declared.has(`/${path}`) && (!reaches || reaches(`/${path}`))) routes.push({ method: 'GET', path: `${base}/${path}` });
        return { package: mount.pkg.name, routes };
      }),
    };
  }

  async contentHashesReport(): Promise<{ contentHashes: Array<{ package: string; hash: string }> }> {
    return { contentHashes: await Promise.all(this.ordered.map(async (mount) => ({ package: mount.pkg.name, hash: await this.contentHash(mount) }))) };
  }

  /**
   * `.cap` sources: the SHA-256 of the archive. Directories: the SHA-256 of the compact
   * sorted-key JSON of the content checksums. Computed once: the base never changes.
   */
  contentHash(mount: Mount): Promise<string> {
    let hash = this.contentHashes.get(mount);
    if (!hash) {
      const { source, model } = mount.pkg;
      const { hasher } = this.dependencies;
      hash = (async () => {
        if (source.archiveBytes) {
          const digest = hasher.createSha256();
          for await (const chunk of source.archiveBytes()) digest.update(chunk);
          return digest.digest();
        }
        const checksums = model.security?.checksums ?? Object.fromEntries(await digestEntries(source, hasher, coveredPaths(source)));
        return hasher.sha256(canonicalChecksumJson(checksums));
      })();
      this.contentHashes.set(mount, hash);
    }
    return hash;
  }

  async contentValidityReport(): Promise<{ contentValidity: Validity[] }> {
    return { contentValidity: await Promise.all(this.ordered.map((mount) => this.validity(mount))) };
  }

  /** Re-verified on every request; concurrent requests for one package share one verification. */
  validity(mount: Mount): Promise<Validity> {
    const running = this.validations.get(mount);
    if (running) return running;
    const check: Promise<Validity> = this.verify(mount).finally(() => {
      if (this.validations.get(mount) === check) this.validations.delete(mount);
    });
    this.validations.set(mount, check);
    return check;
  }

  /** The reactor's own reports, by the path that asks for each; `identityAt` as `routesReport` takes it. */
  introspect(report: IntrospectionPath, identityAt?: (mount: Mount) => Identity | undefined): unknown {
    switch (report) {
      case '/api/v1/introspect/metadata':
        return this.metadataReport();
      case '/api/v1/introspect/routes':
        return this.routesReport(identityAt);
      case '/api/v1/introspect/content-hashes':
        return this.contentHashesReport();
      case '/api/v1/introspect/content-validity':
        return this.contentValidityReport();
      case '/introspect/status':
        return this.status();
      case '/introspect/config':
        return this.config();
      case '/introspect/metrics':
        return this.metrics();
    }
  }

  /** `/package/<name>/status`: loaded, and the latest verification's verdict without hashing anything (true since load unless a check failed). */
  packageStatus(mount: Mount): { package: string; version: string; status: 'loaded'; valid: boolean } {
    return { package: mount.pkg.name, version: mount.pkg.model.metadata.version, status: 'loaded', valid: this.lastValid.get(mount) ?? true };
  }

  /** `/package/<name>/metadata`. */
  packageMetadata(mount: Mount): { name: string; version: string; description: string; author: string | null; guid: string | undefined } {
    const { metadata } = mount.pkg.model;
    return { name: metadata.name, version: metadata.version, description: metadata.description, author: metadata.author ?? null, guid: metadata.guid };
  }

  /** `/package/<name>/logs`: the reactor's last access-log lines. */
  async packageLogs(mount: Mount, lines: number): Promise<{ package: string; logs: string[] }> {
    return { package: mount.pkg.name, logs: await this.reports.last(lines) };
  }

  private async verify(mount: Mount): Promise<Validity> {
    const { pkg } = mount;
    const { model, verification } = pkg;
    // A lazily verified package is hashed here as it is, not through its first-read checks.
    const source = verification?.unverified ?? pkg.source;
    const signed = model.security?.digitalSignatures !== undefined;
    const result: Validity = { package: pkg.name, valid: true, lastChecked: '', signed, encrypted: pkg.encrypted };
    const reasons: string[] = [];
    const problem = this.reloadProblems.get(mount);
    if (problem) reasons.push(problem);
    try {
      if (signed) {
        // One read checks the checksums and the signature: the signed payload is every covered file.
        const verdict = await this.dependencies.signatures.check(source, model.security, this.trusted ? { trusted: this.trusted } : {});
        result.signatureValid = verdict.valid;
        if (verdict.integrity) reasons.push(...describeIntegrity(verdict.integrity));
        if (!verdict.valid && !(verdict.integrity && !isIntact(verdict.integrity))) reasons.push(verdict.reason!);
      } else if (model.security) {
        const report = await this.dependencies.verifier.verify(source, model.security);
        reasons.push(...describeIntegrity(report));
      }
    } catch (error) {
      reasons.push(unreadableReason(error, source.location));
      if (signed) result.signatureValid = false;
    }
    // Out of service stays so even when the bytes read back intact now: what was found once is not forgotten.
    for (const reason of verification?.guard.outOfService?.reasons ?? []) if (!reasons.includes(reason)) reasons.push(reason);
    if (reasons.length > 0) {
      result.valid = false;
      result.reason = reasons;
    }
    result.lastChecked = this.dependencies.clock.now().toISOString();
    // A verdict on a version that a reload has replaced is not the mount's.
    if (mount.pkg === pkg) this.lastValid.set(mount, result.valid);
    // An edit that does not load (`--watch`) leaves the last good version serving; only what its bytes fail takes it out.
    const failed = reasons.filter((reason) => reason !== problem);
    if (failed.length > 0 && mount.pkg === pkg) verification?.guard.withdraw(failed);
    return result;
  }

  /** Folds a package's base and overlay into a new versioned `.cap` in the workdir. */
  save(mount: Mount): Promise<SavedPackage> {
    mount.content.assertWritable();
    const { workdir } = this.settings;
    if (workdir === undefined) throw new OverlayError('this reactor has no workdir to save into');
    const { name } = mount.pkg;
    const mountKey = this.mountsNamed(name).length > 1 ? overlayKey(mount.prefix, name) : undefined;
    return this.saves.run(mount, () => this.dependencies.saver.execute({ pkg: mount.pkg, datasets: mount.datasets, content: mount.content, workdir, ...(mountKey ? { mountKey } : {}) }));
  }

  /** Hears reloads of sources edited while served (`--watch`). */
  onEvent(listener: (event: ReactorEvent) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Loads a mount's source again, as at start (routes and manifest generated again, every
   * cache dropped), and serves the new version from the next request; one reload at a time
   * per mount. A source that no longer loads is reported, and the last good version keeps
   * serving.
   */
  reload(mount: Mount): Promise<void> {
    return this.reloads.run(mount, () => this.reloadNow(mount));
  }

  /**
   * What a request waits for before it is resolved, under `--watch`: the reload of every
   * source changed since it was loaded, begun now rather than once the edits settle, and
   * any reload under way. So a request sent after an edit sees it, even one sent at once.
   * None (the usual case) when nothing changed.
   */
  upToDate(): Promise<void> | undefined {
    if (this.stale.size === 0 && !this.reloads.busy) return undefined;
    for (const mount of this.stale) void this.reload(mount);
    return this.reloads.all();
  }

  private async reloadNow(mount: Mount): Promise<void> {
    // What changes from here on is read by the next reload: this one may have read before it.
    this.stale.delete(mount);
    const recipe = this.recipes.get(mount);
    if (!recipe || !this.ordered.includes(mount)) return;
    try {
      // Writes wait while the package and its overlay are read again, then go on against the
      // new version: it holds every acknowledged write.
      await mount.content.quiet(async () => {
        const pkg = await this.dependencies.loader.execute(mount.location, recipe.options);
        if (!mount.auth && pkg.routes.restricted) {
          // The request pipeline was set up at start for a mount without rules: it would serve them unchecked.
          await pkg.close();
          throw new ConfigValidationError(`${mount.location}/${ROUTES_FILE}`, ['a route now has accessControl, which a package served without authentication or route rules takes in at a restart only']);
        }
        const refusal = writeRefusal(pkg, recipe.lock);
        const old = { pkg: mount.pkg, datasets: mount.datasets };
        await old.datasets.pause();
        let datasets: PackageDatasets;
        try {
          datasets = (await PackageDatasets.load(pkg.source, pkg.model, pkg.overlay?.files, refusal, this.dependencies.readers)).datasets;
        } catch (error) {
          old.datasets.resume();
          await pkg.close();
          throw error;
        }
        mount.pkg = pkg;
        mount.datasets = datasets;
        // The dataset routes' rules are the new routes.json's, as every other route's are.
        if (mount.auth) mount.auth.datasetRules = pkg.routes.datasetRules;
        mount.content.replace(pkg, refusal);
        this.sync.follow(mount);
        for (const cache of [this.contentHashes, this.validations, this.lastValid, this.reloadProblems]) cache.delete(mount);
        // The new version is checked lazily like the first: on reads, and whole in the background.
        this.followVerification(mount);
        void this.backgroundPass(mount);
        await Promise.all([old.datasets.handOver(datasets), old.pkg.close()]).catch(() => undefined);
      });
      for (const listener of this.listeners) listener({ kind: 'reloaded', mount });
    } catch (error) {
      // Whatever stopped it (a typed error, or the file system), the reactor keeps serving.
      const { name, message } = error instanceof Error ? error : new Error(String(error));
      const problem = `${mount.location} changed and no longer loads: ${name}: ${message}; the last good version keeps serving`;
      this.reloadProblems.set(mount, problem);
      this.lastValid.set(mount, false);
      this.validations.delete(mount);
      for (const listener of this.listeners) listener({ kind: 'reload-failed', mount, problem });
    }
  }

  async close(): Promise<void> {
    for (const watcher of this.watchers.splice(0)) watcher.close();
    this.sync.close();
    await Promise.all(this.ordered.map((mount) => Promise.all([mount.pkg.close(), mount.datasets.close()]).catch(() => undefined)));
    this.ordered.length = 0;
    await this.backend.close();
  }
}

/** Store and registry for a mount's dependencies and `pkg://` sources: without a store, one inside the workdir. */
function packageSources(request: MountRequest, settings: ReactorSettings): Pick<LoadOptions, 'packages' | 'constraint'> {
  const store = request.store ?? reactorStore(settings);
  return { packages: { store, registry: settings.registry }, constraint: settings.constraint };
}

/** The reactor's package store: the one it was given, else one inside the workdir. */
function reactorStore(settings: ReactorSettings): string | undefined {
  return settings.store ?? (settings.workdir === undefined ? undefined : `${settings.workdir}/store`);
}

/** Why a package takes no writes: it declares itself read-only, or there is no overlay to keep them. */
function writeRefusal(pkg: ServedPackage, locked: string | undefined): PackageError | undefined {
  const { metadata } = pkg.model;
  if (locked) return new ReadOnlyError(`package ${metadata.name} is read-only here (${locked}); it accepts no writes`);
  if (metadata.readOnly === true) return new ReadOnlyError(`package ${metadata.name} is read-only (its metadata.json declares "readOnly": true); it accepts no writes`);
  if (!pkg.overlay) return new OverlayError(`package ${metadata.name} has no overlay: this reactor was started without a workdir`);
  return undefined;
}
