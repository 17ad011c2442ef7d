/** Views a mount keeps built at once: each is a set of its datasets some requester may read, a handful in practice. */
const VIEWS_MAX = 64;

/**
 * What is built per view of a mount's datasets (`DatasetView.key`): an OpenAPI document, a
 * GraphQL schema. Kept for the version of the datasets it was built from; a reload under
 * `--watch`, which brings new datasets, starts afresh. Past `VIEWS_MAX` views the oldest
 * is dropped, so no run of role sets grows it without end.
 */
export class ViewCache<T> {
  private of: object | undefined;
  private readonly built = new Map<string, T>();

  get(of: object, key: string, build: () => T): T {
    if (this.of !== of) {
      this.of = of;
      this.built.clear();
    }
    let value = this.built.get(key);
    if (value === undefined) {
      if (this.built.size >= VIEWS_MAX) this.built.delete(this.built.keys().next().value!);
      value = build();
      this.built.set(key, value);
    }
    return value;
  }
}
