/**
 * What a command runs, built when the command runs it: the composition root passes one
 * per use case, so a start builds only the command it was asked for (and `--version` or
 * `--help` builds nothing).
 */
export type Lazy<T> = () => T;

/** Each field of T, built on first call. */
export type LazyFields<T> = { [K in keyof T]: Lazy<T[K]> };
