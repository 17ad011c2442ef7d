import { availableParallelism } from 'node:os';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import type { Argv } from 'yargs';
import { UsageError } from '../../domain/errors.js';
import { decodeUtf8, parseDocument } from '../../domain/package/documents.js';
import { HTTP_FIELD_VALUE } from '../../domain/package/field-rules.js';
import { urlPathOf } from '../../domain/serving/request-path.js';
import { normalizeMountConfig, parseMountOption } from '../../domain/serving/mount-config.js';
import { VERIFY_MODES, type VerifyMode } from '../../domain/serving/verify-mode.js';
import { isPackageUrl } from '../../domain/dependencies/package-url.js';
import { normalizeOrigin } from '../../domain/auth/same-origin.js';
import { parseWorkers } from '../../domain/serving/workers.js';
import type { ReactorHost } from '../../application/ports/reactor-host.js';
import { DEFAULT_BODY_LIMIT } from '../../application/serving/reactor.js';
import type { MountRequest, RunningReactor } from '../../application/ports/reactor-host.js';
import { INFO, WARN, jsonLogLine } from '../shared/json-log-line.js';
import { unfinished } from '../shared/unfinished-paths.js';
import { keepRunningUnread, type CliOutput } from './cli-output.js';
import { PASSPHRASE_OPTIONS } from './passphrase-option.js';
import { TRUST_OPTION, readTrustFiles } from './trust-option.js';
import { readDecryptionKeys } from './signing-commands.js';
import { readUserFile } from './user-files.js';
import type { Lazy } from './lazy.js';
import type { CopyOverlays } from '../../application/use-cases/copy-overlays.js';
import { overlayCommands } from './overlay-commands.js';
import { checkedConstraint } from './registry-commands.js';

export const DEFAULT_PORT = 8864;
export const DEFAULT_CACHE_CONTROL = 'public, max-age=31536000';
const WATCHED_CACHE_CONTROL = 'no-cache';


export function reactorCommands(yargs: Argv, host: Lazy<ReactorHost>, copyOverlays: Lazy<CopyOverlays>, output: CliOutput): Argv {
  return yargs
    .command('overlay', 'Work with the overlays that keep a reactor\'s writes: copy', (y) => overlayCommands(y, copyOverlays, output))
    .command(
      'serve [sources..]',
      'Serve packages over HTTP: the first source at /, each further one at /<name>/',
      (y) =>
        y
          .positional('sources', { type: 'string', array: true, default: [], describe: 'package directories, .cap files or pkg://<guid> (installed from the registry)' })
          .option('port', { type: 'string', default: process.env.PORT || String(DEFAULT_PORT), defaultDescription: `$PORT, else ${DEFAULT_PORT}`, describe: 'TCP port (0 picks a free one)' })
          .option('host', { type: 'string', default: process.env.HOST || '127.0.0.1', defaultDescription: '$HOST, else 127.0.0.1', describe: 'address to listen on' })
          .option('workdir', { type: 'string', describe: 'directory for overlays and saved packages (default: a fresh temporary directory, removed at exit)' })
          .option('overlay', { type: 'string', default: process.env.PKG_OVERLAY, defaultDescription: '$PKG_OVERLAY, else files in the workdir', describe: 'postgres://user@host:port/database: keep writes and logouts in this PostgreSQL database, shared by every reactor given the same URL' })
          .option('cache-control', { type: 'string', defaultDescription: `${DEFAULT_CACHE_CONTROL}; no-cache with --watch`, describe: 'Cache-Control of static resources' })
          .option('mount', { type: 'string', array: true, default: [], describe: 'PATH=SOURCE, repeatable' })
          .option('config', { type: 'string', describe: 'mounts file: {"mounts": [{"path", "source", "store"?, "writable"?, "cors"?, "verify"?}]}' })
          .option('store', { type: 'string', default: process.env.PKG_STORE, defaultDescription: '$PKG_STORE', describe: 'package store directory' })
          .option('registry', { type: 'string', default: process.env.PKG_REGISTRY, defaultDescription: '$PKG_REGISTRY', describe: 'registry directory or URL' })
          .option('constraint', { type: 'string', describe: 'semver range for pkg:// sources' })
          .option('deploy', { type: 'string', default: process.env.PKG_DEPLOY, defaultDescription: '$PKG_DEPLOY', describe: 'deploy.json with secrets and roles' })
          .option('body-limit', { type: 'number', default: DEFAULT_BODY_LIMIT, describe: 'largest write body in bytes (413 beyond)' })
          .option('private-key', { type: 'string', describe: 'RSA private key PEM for encrypted packages (RSA-OAEP envelopes)' })
          .option('key', { type: 'string', describe: 'OpenPGP secret key for encrypted packages (OpenPGP envelopes)' })
          .options(PASSPHRASE_OPTIONS)
          .options(TRUST_OPTION)
          .option('cors', { type: 'string', array: true, default: [], describe: 'origin (like https://app.example) whose pages may write to the reactor, with CORS answers; repeatable. Writes from other sites are refused (403)' })
          .option('verify', { choices: VERIFY_MODES, default: 'eager' as VerifyMode, describe: 'when packages are checked against security.json: eager, all of it before serving; lazy, serve at once, each file checked on its first read before any of its bytes are sent, the whole package (and signature) in the background; any mismatch takes the package out of service (503)' })
          .option('watch', { type: 'boolean', default: false, describe: 'serve each change to a directory source on the next request (content, data, configuration); an edit that does not load is reported and the last good version keeps serving' })
          .option('live-reload', { type: 'boolean', default: false, describe: 'with --watch: HTML pages reload themselves after each change' })
          .option('read-only', { type: 'boolean', default: false, describe: 'refuse every write (403), save included, whatever the packages say; a mount of the --config file can also say "writable": false' })
          .option('log-format', { choices: ['text', 'json'] as const, default: 'text' as const, describe: 'access lines as text, or as JSON objects with latency, client, mount, bytes and a request id (also sent as X-Request-Id)' })
          .option('quiet', { type: 'boolean', default: false, describe: 'no access lines on stdout (/package/<name>/logs keeps them)' })
          .option('trust-proxy', { type: 'boolean', default: false, describe: 'take the client address of log lines from X-Forwarded-For (its last address, the peer your proxy saw) and, without deploy.json baseUrl, the scheme of OAuth2 redirect URIs and Secure cookies from X-Forwarded-Proto; without either, from Forwarded (RFC 7239) (behind a proxy you run)' })
          .option('metrics-public', { type: 'boolean', default: false, describe: 'answer /metrics without authentication when a mount enables it' })
          .option('workers', { type: 'string', default: '1', describe: 'processes serving behind the one port: a number, or auto for one per core; they share writes, logouts, metrics and logs' })
          .option('shutdown-timeout', { type: 'number', default: 10, describe: 'seconds a stop waits for requests in flight before closing their connections' }),
      async (argv) => {
        // Read as text: an empty --port "$P" or PORT=" " read as a number is 0, a random port.
        const port = /^\d{1,5}$/.test(argv.port) ? Number(argv.port) : Number.NaN;
        if (!(port <= 65535)) throw new UsageError(`--port (or $PORT) must be a whole number from 0 to 65535, not ${JSON.stringify(argv.port)}`);
        // An empty --host "$H" would listen on every interface.
        if (argv.host.trim() === '') throw new UsageError('--host is empty: give the address to listen on (0.0.0.0 for every IPv4 interface, :: for every one)');
        if (!Number.isFinite(argv['shutdown-timeout']) || argv['shutdown-timeout'] < 0) throw new UsageError(`--shutdown-timeout must be a number of seconds, 0 or more (got ${argv['shutdown-timeout']})`);
        if (!Number.isInteger(argv['body-limit']) || argv['body-limit'] < 1) throw new UsageError(`--body-limit must be a positive whole number of bytes (got ${argv['body-limit']})`);
        // Sent on every static answer: a value node cannot send made each of them a 500.
        // Under --watch a browser that kept a file for a year would never see its edits: each use is revalidated instead (a 304 while unchanged).
        const cacheControl = argv['cache-control'] ?? (argv.watch ? WATCHED_CACHE_CONTROL : DEFAULT_CACHE_CONTROL);
        if (!HTTP_FIELD_VALUE.test(cacheControl)) throw new UsageError(`--cache-control must be text an HTTP header can carry (tab, space, visible ASCII or Latin-1 characters; no line break), not ${JSON.stringify(cacheControl)}`);
        const workers = parseWorkers(argv.workers, availableParallelism());
        const requests: MountRequest[] = (argv.sources as string[]).map((source) => ({ source }));
        for (const option of argv.mount as string[]) {
          const mount = parseMountOption(option);
          if (!mount) throw new UsageError(`--mount takes PATH=SOURCE with PATH starting with "/" (got ${JSON.stringify(option)})`);
          requests.push({ prefix: mount.path, source: mount.source });
        }
        if (argv.config) requests.push(...(await readMountsFile(argv.config)));
        if (requests.length === 0) throw new UsageError('nothing to serve: name a package directory or .cap, or use --mount or --config');
        if (argv.workdir) {
          // Its overlays, lock and saved packages would become files of the package: each save packing the last one.
          const workdir = resolve(argv.workdir);
          const holder = requests.find(({ source }) => !isPackageUrl(source) && (workdir === resolve(source) || workdir.startsWith(resolve(source) + sep)));
          if (holder) throw new UsageError(`--workdir ${argv.workdir} is inside the package directory ${holder.source}: its overlays and saved packages would become files of the package; give a workdir outside it`);
        }
        const settings = {
          port,
          host: argv.host,
          cacheControl,
          bodyLimit: argv['body-limit'],
          keys: await readDecryptionKeys(argv),
          ...(argv.workdir ? { workdir: argv.workdir } : {}),
          ...(argv.overlay ? { overlay: argv.overlay } : {}),
          ...(argv.store ? { store: argv.store } : {}),
          ...(argv.registry ? { registry: argv.registry } : {}),
          ...(argv.deploy ? { deploy: argv.deploy } : {}),
          ...(argv.constraint !== undefined ? { constraint: checkedConstraint(argv.constraint) } : {}),
          trust: await readTrustFiles(argv.trust),
          ...(argv['read-only'] ? { readOnly: true } : {}),
          verify: argv.verify,
          ...(argv.watch ? { watch: true } : {}),
          ...(argv['live-reload'] ? { liveReload: true } : {}),
          logFormat: argv['log-format'],
          ...(argv.quiet ? { quiet: true } : {}),
          ...(argv['trust-proxy'] ? { trustProxy: true } : {}),
          ...(argv['metrics-public'] ? { metricsPublic: true } : {}),
          shutdownTimeout: argv['shutdown-timeout'] * 1000,
          ...(workers > 1 ? { workers } : {}),
          cors: (argv.cors as string[]).map((origin) => normalizeOrigin(origin) ?? usage(`--cors takes an origin like https://app.example (scheme, host and port only), not ${JSON.stringify(origin)}`)),
        };
        if (argv['live-reload'] && !argv.watch) throw new UsageError('--live-reload reloads pages after changes that --watch serves: give --watch too');
        // Listening for signals before the banner: a client may act on the banner at once.
        const signals = untilSignal();
        keepRunningUnread();
        let started = false;
        // A signal while the reactor starts (a slow registry download of its source, say) ends
        // it then, not once the start is done: nothing serves yet, so no answer is owed.
        void signals.signalled.then((signal) => {
          if (started) return;
          unfinished.removeAll();
          process.exit(signal === 'SIGINT' ? 130 : 143);
        });
        const log = argv['log-format'] === 'json' ? jsonLifecycle(output) : textLifecycle(output);
        // A start that failed leaves the signals to their defaults: SIGTERM ends the process.
        const running = await host().start(requests, settings, { warn: log.warn }).catch((error: unknown) => {
          signals.release();
          throw error;
        });
        started = true;
        const signalled = signals.signalled;
        if (running.stopRequested) {
          // A worker: its primary printed the banner, hears the signals and says when to stop.
          await running.stopRequested;
          return running.stop();
        }
        for (const warning of running.warnings) log.warn(warning);
        for (const failure of running.failures) log.warn(`not mounted: ${failure.source}: ${(failure.error as Error).name}: ${(failure.error as Error).message}`);
        log.started(running);
        await signalled;
        log.stopping();
        await running.stop();
      },
    )
    .demandCommand(1, 'name a reactor command')
    .strictCommands()
    .strict();
}

/** What serve says as it starts and stops: SPEC.md's banner, or with `--log-format json` pino-shaped lines beside the access lines. */
interface Lifecycle {
  warn(warning: string): void;
  started(running: RunningReactor): void;
  stopping(): void;
}

function textLifecycle(output: CliOutput): Lifecycle {
  return {
    warn: (warning) => output.err(`warning: ${warning}`),
    started: (running) => {
      const width = Math.max(...running.mounts.map((m) => m.prefix.length));
      const lines = running.mounts.map((mount) => `  ${mount.prefix.padEnd(width)}  ${mount.name} ${mount.version}  from ${mount.source}  ${running.url}${urlPathOf(mount.prefix)}`);
      const overlay = running.sharedOverlay ? [`Overlays: ${running.sharedOverlay}`] : [];
      const workers = running.workers ? [`Workers: ${running.workers} processes`] : [];
      output.out([`Reactor listening on ${running.url}`, ...lines, `Workdir: ${running.workdir}${running.temporaryWorkdir ? ' (temporary)' : ''}`, ...overlay, ...workers].join('\n'));
    },
    stopping: () => output.out('Shutting down'),
  };
}

/** Every stdout line is one JSON object, so a log collector never meets a banner. */
function jsonLifecycle(output: CliOutput): Lifecycle {
  return {
    warn: (warning) => output.out(jsonLogLine(WARN, warning)),
    started: (running) =>
      output.out(
        jsonLogLine(INFO, `Reactor listening on ${running.url}`, {
          url: running.url,
          workdir: running.workdir,
          temporaryWorkdir: running.temporaryWorkdir,
          ...(running.sharedOverlay ? { overlay: running.sharedOverlay } : {}),
          ...(running.workers ? { workers: running.workers } : {}),
          mounts: running.mounts.map((mount) => ({ prefix: mount.prefix, name: mount.name, version: mount.version, source: mount.source })),
        }),
      ),
    stopping: () => output.out(jsonLogLine(INFO, 'Shutting down')),
  };
}

/** Sources in a mounts file are relative to the file. */
async function readMountsFile(file: string): Promise<MountRequest[]> {
  const text = decodeUtf8(await readUserFile(file, 'mounts file'), file);
  const base = dirname(resolve(file));
  return normalizeMountConfig(parseDocument(text, file), file).map((mount) => ({
    prefix: mount.path,
    source: isAbsolute(mount.source) || isPackageUrl(mount.source) ? mount.source : resolve(base, mount.source),
    ...(mount.store ? { store: resolve(base, mount.store) } : {}),
    ...(mount.writable === false ? { writable: false } : {}),
    ...(mount.cors ? { cors: mount.cors } : {}),
    ...(mount.verify ? { verify: mount.verify } : {}),
  }));
}

/** The first SIGINT or SIGTERM; `release` gives both back to their defaults. */
function untilSignal(): { signalled: Promise<NodeJS.Signals>; release: () => void } {
  let stop: (signal: NodeJS.Signals) => void = () => undefined;
  const release = () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  };
  const signalled = new Promise<NodeJS.Signals>((resolveSignal) => {
    stop = (signal) => {
      release();
      resolveSignal(signal);
    };
  });
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return { signalled, release };
}

function usage(message: string): never {
  throw new UsageError(message);
}
