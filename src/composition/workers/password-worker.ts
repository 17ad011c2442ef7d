// Worker thread entry: checks passwords against htpasswd hashes off the reactor's event loop (see WorkerThreadPasswordHashes).
import { parentPort } from 'node:worker_threads';
import { HtpasswdPasswordHashes } from '../../adapters/crypto/htpasswd-password-hashes.js';
import type { PasswordAnswer, PasswordTask } from '../../adapters/crypto/worker-thread-password-hashes.js';

const hashes = new HtpasswdPasswordHashes();
const port = parentPort!;
port.on('message', (task: PasswordTask) => {
  const answer = task.op === 'verify' ? hashes.verify(task.password, task.hash) : hashes.decoyLike(task.like);
  answer.then(
    (value) => port.postMessage({ value } satisfies PasswordAnswer),
    (error: unknown) => port.postMessage({ error: error instanceof Error ? error.message : String(error) } satisfies PasswordAnswer),
  );
});
