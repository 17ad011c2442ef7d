import { PackageFormatError } from '../../domain/errors.js';

/**
 * Why a file cannot be verified when its bytes cannot even be read back (a corrupt
 * deflate stream, a truncated archive): a verification failure like a changed checksum,
 * said of the package and not of where the server keeps it, since the reason reaches
 * clients. Any other error is not a verdict on the bytes, and is thrown on.
 */
export function unreadableReason(error: unknown, location: string): string {
  if (!(error instanceof PackageFormatError)) throw error;
  const prefix = `${location}: `;
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}
