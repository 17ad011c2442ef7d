import type { PrimaryChannel, PrimaryMessage, WorkerChannel, WorkerMessage } from '../../src/adapters/cluster/channel.js';

/**
 * A worker's line to its primary inside one process, as node:cluster's `advanced`
 * serialization carries it: each message a structured clone, delivered on a later turn,
 * in order. `cut` is the worker's process dying.
 */
export function channelPair(): { worker: WorkerChannel; primary: PrimaryChannel; cut(): void } {
  const toWorker = new Set<(message: PrimaryMessage) => void>();
  const toPrimary = new Set<(message: WorkerMessage) => void>();
  const closed = new Set<() => void>();
  let open = true;
  const deliver = <T>(listeners: Set<(message: T) => void>, message: T): Promise<void> => {
    if (!open) return Promise.resolve();
    const copy = structuredClone(message);
    return new Promise((resolve) =>
      setImmediate(() => {
        if (open) for (const listener of listeners) listener(copy);
        resolve();
      }),
    );
  };
  const cut = () => {
    if (!open) return;
    open = false;
    for (const listener of closed) listener();
  };
  const end = <Out, In>(out: Set<(message: Out) => void>, into: Set<(message: In) => void>) => ({
    send: (message: Out) => deliver(out, message),
    onMessage: (listener: (message: In) => void) => void into.add(listener),
    onClose: (listener: () => void) => void closed.add(listener),
    close: cut,
  });
  return {
    worker: end<WorkerMessage, PrimaryMessage>(toPrimary, toWorker),
    primary: end<PrimaryMessage, WorkerMessage>(toWorker, toPrimary),
    cut,
  };
}
