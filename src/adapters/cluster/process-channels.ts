import type { Worker } from 'node:cluster';
import { isOurs, type PrimaryChannel, type PrimaryMessage, type WorkerChannel, type WorkerMessage } from './channel.js';

/** This worker process's line to its primary: node:cluster's IPC channel. */
export function processChannel(): WorkerChannel {
  return {
    send: (message) => new Promise((resolve) => (process.send ? process.send(message, undefined, undefined, () => resolve()) : resolve())),
    onMessage: (listener) => void process.on('message', (message) => isOurs<PrimaryMessage>(message) && listener(message)),
    onClose: (listener) => void process.once('disconnect', listener),
    close: () => {
      if (process.connected) process.disconnect();
    },
  };
}

/** The primary's line to one forked worker. */
export function workerChannel(worker: Worker): PrimaryChannel {
  return {
    // A worker that is exiting cannot be written to: what it was told no longer matters.
    send: (message) => new Promise((resolve) => (worker.isConnected() ? worker.send(message, undefined, () => resolve()) : resolve())),
    onMessage: (listener) => void worker.on('message', (message) => isOurs<WorkerMessage>(message) && listener(message)),
    onClose: (listener) => void worker.once('exit', listener),
    close: () => worker.disconnect(),
  };
}
