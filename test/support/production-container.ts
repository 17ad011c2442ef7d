import type { Container, ServiceIdentifier } from 'inversify';
import type { PackageOpener } from '../../src/application/ports/package-source.js';
import { createContainer } from '../../src/composition/container.js';
import { PORT } from '../../src/composition/service-ids.js';

/** A test's stand-in for what production binds to `id`. */
export interface Swap<T = unknown> {
  readonly id: ServiceIdentifier<T>;
  readonly value: T;
}

/** `value` in place of what production binds to `id`; a value of another type does not compile. */
export function swap<T>(id: ServiceIdentifier<T>, value: NoInfer<T>): Swap<T> {
  return { id, value };
}

/**
 * The production container, with only what a test swaps rebound (an in-memory archive
 * writer, a fake registry, a fixed clock...). Everything else is wired as `pkg` wires it,
 * so a test exercises the same services, built the same way. Later swaps of the same
 * identifier win.
 */
export function productionContainer(...swaps: Swap[]): Container {
  const container = createContainer();
  for (const { id, value } of swaps) container.rebind(id).toConstantValue(value);
  return container;
}

/** Production's opener: directories, and `.cap` files read in place within the archive limits. */
export function productionOpener(): PackageOpener {
  return createContainer().get(PORT.PackageOpener);
}
