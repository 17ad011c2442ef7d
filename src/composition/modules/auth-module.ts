import { ContainerModule } from 'inversify';
import { HtpasswdPasswordHashes } from '../../adapters/crypto/htpasswd-password-hashes.js';
import { WorkerThreadPasswordHashes } from '../../adapters/crypto/worker-thread-password-hashes.js';
import { NodeAuthCrypto } from '../../adapters/crypto/node-auth-crypto.js';
import { FsLocalFiles } from '../../adapters/fs/fs-local-files.js';
import { FsSessionRevocationStore } from '../../adapters/fs/fs-session-revocations.js';
import { FetchOAuth2Provider } from '../../adapters/oauth2/fetch-oauth2-provider.js';
import { PORT } from '../service-ids.js';

/**
 * The worker thread entry that checks passwords: bundled, this module is part of
 * dist/pkg.js and password-worker.js is its sibling; run from source there is none, and
 * passwords are checked in process.
 */
const PASSWORD_WORKER = new URL('./password-worker.js', import.meta.url);

/** htpasswd checks on worker threads: `threads` of them, or as many as the machine spares. */
export function threadPasswordHashes(threads?: number): WorkerThreadPasswordHashes {
  return new WorkerThreadPasswordHashes(new HtpasswdPasswordHashes(), PASSWORD_WORKER, threads);
}

/** What the reactor's authentication needs: deploy.json and password files, HMACs, password hashes (checked on worker threads), the OAuth2 provider, revoked sessions. */
export const authModule = new ContainerModule(({ bind }) => {
  bind(PORT.LocalFiles).toDynamicValue(() => new FsLocalFiles()).inSingletonScope();
  bind(PORT.AuthCrypto).toDynamicValue(() => new NodeAuthCrypto()).inSingletonScope();
  bind(PORT.PasswordHashes).toDynamicValue(() => threadPasswordHashes()).inSingletonScope();
  bind(PORT.OAuth2Provider).toDynamicValue(() => new FetchOAuth2Provider()).inSingletonScope();
  bind(PORT.SessionRevocationStore).toDynamicValue(() => new FsSessionRevocationStore()).inSingletonScope();
});
