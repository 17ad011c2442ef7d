import type { OverlayBackend, OverlayChange, OverlayMount } from '../../application/ports/overlay-store.js';
import type { ProcessReport } from '../../application/ports/reactor-processes.js';
import type { LogPlace } from '../../domain/data/log-place.js';
import { sendError, type PrimaryCall, type PrimaryChannel, type WorkerMessage, type WorkerSummary } from './channel.js';
import { OverlayWriter, type WorkerId } from './overlay-writer.js';

/** How long a gather waits for a worker that does not answer (it may be stuck, or dying): the others' answers go back. */
const GATHER_TIMEOUT_MS = 5000;

/**
 * How the last answers of workers that are gone fold into one, for the reports that count
 * from the reactor's start (request counts, the Prometheus counters): a worker that dies
 * (and the one started in its place counts from zero) leaves them as they were last
 * gathered, and what it counted after that is lost with it. Reports without one (the
 * access log) hear from live workers only.
 */
export type DepartedFolds = Partial<Record<ProcessReport, (answers: unknown[]) => Promise<unknown>>>;

export interface WorkerEvents {
  ready(worker: WorkerId, summary: WorkerSummary): void;
  failed(worker: WorkerId, error: { name: string; message: string }): void;
}

/**
 * The primary's end of every worker's line: it answers their calls (the overlay writer
 * when the primary is the one writer; gathering reports always), passes on what one
 * worker changed to the others, and hears when they are ready or could not start.
 */
export class PrimaryLink {
  private readonly workers = new Map<WorkerId, PrimaryChannel>();
  /** Workers that listen: only they have reports to give (one still loading would not answer). */
  private readonly serving = new Set<WorkerId>();
  private readonly writer: OverlayWriter | undefined;
  private readonly gathers = new Map<number, { report: ProcessReport; waiting: Set<WorkerId>; values: unknown[]; done: () => void }>();
  private nextGather = 1;
  /** Each live worker's last answer to each report that outlives it (see DepartedFolds). */
  private readonly lastAnswers = new Map<WorkerId, Map<ProcessReport, unknown>>();
  /** What the workers that are gone last answered, folded into one per report. */
  private readonly departed = new Map<ProcessReport, Promise<unknown>>();

  /** `backend`: the files the primary writes for the workers; none when they share a database themselves. */
  constructor(
    backend: OverlayBackend | undefined,
    private readonly events: WorkerEvents,
    private readonly folds: DepartedFolds = {},
  ) {
    this.writer = backend && new OverlayWriter(backend, { change: (from, location, change) => this.changed(from, location, change), revoked: (from, workdir, id) => this.others(from, { pkg: 'revoked', workdir, id }) });
  }

  attach(worker: WorkerId, channel: PrimaryChannel): void {
    this.workers.set(worker, channel);
    channel.onMessage((message) => this.heard(worker, channel, message));
    channel.onClose(() => void this.detach(worker));
  }

  /** A worker that exited: its holds let go, its last counts kept, and no gather waits for it. */
  async detach(worker: WorkerId): Promise<void> {
    this.serving.delete(worker);
    if (!this.workers.delete(worker)) return;
    for (const [report, answer] of this.lastAnswers.get(worker) ?? []) this.fold(report, answer);
    this.lastAnswers.delete(worker);
    for (const gather of this.gathers.values()) if (gather.waiting.delete(worker) && gather.waiting.size === 0) gather.done();
    await this.writer?.gone(worker);
  }

  stopAll(): void {
    for (const worker of this.workers.keys()) this.stop(worker);
  }

  stop(worker: WorkerId): void {
    void this.workers.get(worker)?.send({ pkg: 'stop' });
  }

  close(): Promise<void> {
    return this.writer?.close() ?? Promise.resolve();
  }

  private heard(worker: WorkerId, channel: PrimaryChannel, message: WorkerMessage): void {
    switch (message.pkg) {
      case 'ready':
        this.serving.add(worker);
        return this.events.ready(worker, message.summary);
      case 'failed':
        return this.events.failed(worker, message.error);
      case 'report': {
        const gather = this.gathers.get(message.gather);
        if (!gather?.waiting.delete(worker)) return;
        gather.values.push(message.value);
        if (this.folds[gather.report]) {
          if (!this.lastAnswers.has(worker)) this.lastAnswers.set(worker, new Map());
          this.lastAnswers.get(worker)!.set(gather.report, message.value);
        }
        if (gather.waiting.size === 0) gather.done();
        return;
      }
      case 'call':
        this.call(worker, message.call, message.args).then(
          (value) => channel.send({ pkg: 'reply', id: message.id, value }),
          (error: unknown) => channel.send({ pkg: 'reply', id: message.id, error: sendError(error) }),
        );
    }
  }

  private call(worker: WorkerId, call: PrimaryCall, args: unknown[]): Promise<unknown> {
    if (call === 'gather') return this.gather(args[0] as ProcessReport, args[1] as number);
    const writer = this.writer;
    if (!writer) return Promise.reject(new Error(`${call}: this reactor's workers keep their writes in a shared database, not through the primary`));
    const [a, b, c] = args as [never, never, never];
    switch (call) {
      case 'open':
        return writer.open(a as string, b as OverlayMount);
      case 'list':
        return writer.list(a);
      case 'contentFiles':
        return writer.contentFiles(a);
      case 'readContent':
        return writer.readContent(a, b);
      case 'writeContent':
        return writer.writeContent(worker, a, b, c as Uint8Array);
      case 'deleteContent':
        return writer.deleteContent(worker, a, b);
      case 'tombstones':
        return writer.tombstones(a);
      case 'holdContent':
        return writer.holdContent(worker, a);
      case 'releaseContent':
        return writer.releaseContent(worker, a);
      case 'readLog':
        return writer.readLog(a, b);
      case 'readLogFrom':
        return writer.readLogFrom(a, b, c as LogPlace);
      case 'logs':
        return writer.logs(a);
      case 'openLog':
        return writer.openLog(worker, a, b, c);
      case 'hold':
        return writer.hold(worker, a);
      case 'commit':
        return writer.commit(worker, a, b as Uint8Array);
      case 'release':
        return writer.release(worker, a);
      case 'catchUp':
        return writer.catchUp(worker, a);
      case 'closeLog':
        return writer.closeLog(worker, a);
      case 'revoke':
        return writer.revoke(worker, a, b, c);
      case 'claim':
        return writer.claim(worker, a, b, c);
    }
  }

  /**
   * Every serving worker's answer to `report`; a worker that does not answer in time is
   * left out, or, for a report that outlives workers, counted as it last answered. With
   * those, the folded answers of the workers that are gone come last.
   */
  private gather(report: ProcessReport, argument: number): Promise<unknown[]> {
    const id = this.nextGather++;
    const values: unknown[] = [];
    const waiting = new Set(this.serving);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.gathers.delete(id);
        if (!this.folds[report]) return resolve(values);
        for (const worker of waiting) if (this.lastAnswers.get(worker)?.has(report)) values.push(this.lastAnswers.get(worker)!.get(report));
        const departed = this.departed.get(report);
        resolve(departed ? departed.then((answer) => [...values, answer]) : values);
      };
      const timer = setTimeout(done, GATHER_TIMEOUT_MS);
      this.gathers.set(id, { report, waiting, values, done });
      for (const worker of waiting) void this.workers.get(worker)!.send({ pkg: 'gather', gather: id, report, argument });
      if (waiting.size === 0) done();
    });
  }

  /** A gone worker's last answer to `report`, folded into those of the workers gone before it; a fold that fails keeps what was. */
  private fold(report: ProcessReport, answer: unknown): void {
    const fold = this.folds[report];
    if (!fold) return;
    const before = this.departed.get(report);
    this.departed.set(
      report,
      (async () => {
        const earlier = before && (await before);
        return fold(earlier === undefined ? [answer] : [earlier, answer]).catch(() => earlier ?? answer);
      })(),
    );
  }

  private changed(from: WorkerId, location: string, change: OverlayChange): void {
    this.others(from, { pkg: 'change', location, change });
  }

  private others(from: WorkerId, message: Parameters<PrimaryChannel['send']>[0]): void {
    for (const [worker, channel] of this.workers) if (worker !== from) void channel.send(message);
  }
}
