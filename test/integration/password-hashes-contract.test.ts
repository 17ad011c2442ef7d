import aprMd5 from 'apache-md5';
import bcrypt from 'bcryptjs';
import { encrypt as shaCrypt } from 'unixcrypt';
import { HtpasswdPasswordHashes } from '../../src/adapters/crypto/htpasswd-password-hashes.js';
import { describePasswordHashesContract } from '../contracts/password-hashes.contract.js';
import { ReversedPasswordHashes } from '../fakes/reversed-password-hashes.js';

describePasswordHashesContract('ReversedPasswordHashes (fake)', () => ({ hashes: new ReversedPasswordHashes(), hash: async (password) => ReversedPasswordHashes.hash(password) }));

// The schemes htpasswd writes, each as its own subject: a decoy must imitate each.
describePasswordHashesContract('HtpasswdPasswordHashes, bcrypt', () => ({ hashes: new HtpasswdPasswordHashes(), hash: (password) => bcrypt.hash(password, 4) }));
describePasswordHashesContract('HtpasswdPasswordHashes, apr1', () => ({ hashes: new HtpasswdPasswordHashes(), hash: async (password) => aprMd5(password, '$apr1$saltsalt$') }));
describePasswordHashesContract('HtpasswdPasswordHashes, SHA-512 crypt', () => ({ hashes: new HtpasswdPasswordHashes(), hash: async (password) => shaCrypt(password, '$6$rounds=5000$saltsalt') }));
