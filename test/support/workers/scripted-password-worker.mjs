// A stand-in for dist/password-worker.js that speaks its protocol (PasswordTask in,
// PasswordAnswer out) with scripted behaviour: a password is "right" when it equals the
// hash; "block:<ms>" holds the thread that long without yielding; "crash" ends the thread.
import { parentPort, threadId } from 'node:worker_threads';

parentPort.on('message', (task) => {
  if (task.op === 'decoyLike') return parentPort.postMessage({ value: `decoy-of:${task.like}` });
  if (task.password === 'crash') process.exit(3);
  if (task.password === 'fail') return parentPort.postMessage({ error: 'scripted failure' });
  const block = /^block:(\d+)$/.exec(task.password);
  if (block) {
    const until = Date.now() + Number(block[1]);
    while (Date.now() < until);
  }
  if (task.password === 'thread') return parentPort.postMessage({ value: String(threadId) });
  parentPort.postMessage({ value: task.password === task.hash });
});
