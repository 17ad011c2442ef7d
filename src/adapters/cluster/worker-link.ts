import { OverlayError } from '../../domain/errors.js';
import type { OverlayChange } from '../../application/ports/overlay-store.js';
import type { ProcessReport, ReactorProcesses } from '../../application/ports/reactor-processes.js';
import { receivedError, sendError, type PrimaryCall, type PrimaryMessage, type WorkerChannel, type WorkerSummary } from './channel.js';

/**
 * A worker's end of its line to the primary: calls that the primary answers, what other
 * workers changed, the primary's requests for this worker's reports, and its word to stop.
 * It is also the worker's ReactorProcesses: gathering goes through the primary.
 */
export class WorkerLink implements ReactorProcesses {
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private readonly changeListeners = new Map<string, Set<(change: OverlayChange) => void>>();
  private readonly revokeListeners = new Set<(workdir: string, id: string) => void>();
  private readonly answers = new Map<ProcessReport, (argument: number) => unknown>();
  private closed = false;
  /** Resolves when the primary says stop, or is gone. */
  readonly stopRequested: Promise<void>;

  constructor(
    private readonly channel: WorkerChannel,
    readonly started: Date = new Date(),
  ) {
    let stop!: () => void;
    this.stopRequested = new Promise((resolve) => (stop = resolve));
    channel.onMessage((message) => this.heard(message, stop));
    channel.onClose(() => {
      this.closed = true;
      for (const { reject } of this.pending.values()) reject(new OverlayError('the reactor\'s primary process is gone'));
      this.pending.clear();
      stop();
    });
  }

  call<T>(call: PrimaryCall, ...args: unknown[]): Promise<T> {
    if (this.closed) return Promise.reject(new OverlayError('the reactor\'s primary process is gone'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      void this.channel.send({ pkg: 'call', id, call, args });
    });
  }

  ready(summary: WorkerSummary): void {
    void this.channel.send({ pkg: 'ready', summary });
  }

  /** Resolves once the primary has it. */
  failed(error: unknown): Promise<void> {
    return this.channel.send({ pkg: 'failed', error: sendError(error) });
  }

  /** Lets go of the line: a worker that stopped has nothing more to say, and its process may end. */
  close(): void {
    this.closed = true;
    this.channel.close();
  }

  /** Hears what other workers change in the overlay at `location`, until the returned function is called. */
  onChange(location: string, listener: (change: OverlayChange) => void): () => void {
    let listeners = this.changeListeners.get(location);
    if (!listeners) this.changeListeners.set(location, (listeners = new Set()));
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  onRevoked(listener: (workdir: string, id: string) => void): void {
    this.revokeListeners.add(listener);
  }

  /** A worker with nothing to say on `report` (it was never asked before) answers null, and is left out. */
  async gather(report: ProcessReport, argument: number): Promise<unknown[]> {
    return (await this.call<unknown[]>('gather', report, argument)).filter((value) => value !== null);
  }

  answer(report: ProcessReport, answer: (argument: number) => unknown): void {
    this.answers.set(report, answer);
  }

  private heard(message: PrimaryMessage, stop: () => void): void {
    switch (message.pkg) {
      case 'reply': {
        const pending = this.pending.get(message.id);
        if (!pending) return;
        this.pending.delete(message.id);
        return message.error ? pending.reject(receivedError(message.error)) : pending.resolve(message.value);
      }
      case 'change':
        for (const listener of this.changeListeners.get(message.location) ?? []) listener(message.change);
        return;
      case 'revoked':
        for (const listener of this.revokeListeners) listener(message.workdir, message.id);
        return;
      case 'gather':
        return void this.report(message.report, message.argument).then((value) => this.channel.send({ pkg: 'report', gather: message.gather, value }));
      case 'stop':
        return stop();
    }
  }

  private async report(report: ProcessReport, argument: number): Promise<unknown> {
    try {
      return (await this.answers.get(report)?.(argument)) ?? null;
    } catch {
      return null;
    }
  }
}

