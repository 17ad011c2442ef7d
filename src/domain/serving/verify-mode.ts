/**
 * When a package is checked against its security.json: `eager` before anything of it is
 * served, `lazy` each file on its first read, with the whole package checked in the
 * background after start.
 */
export type VerifyMode = 'eager' | 'lazy';

export const VERIFY_MODES: readonly VerifyMode[] = ['eager', 'lazy'];

export function isVerifyMode(value: unknown): value is VerifyMode {
  return VERIFY_MODES.includes(value as VerifyMode);
}
