/** The reactor's own cookies (SPEC.md names the session one): a package's routes may not set them. */
export const SESSION_COOKIE = 'pkg_session';
export const STATE_COOKIE = 'pkg_oauth_state';
export const REACTOR_COOKIES: ReadonlySet<string> = new Set([SESSION_COOKIE, STATE_COOKIE]);
