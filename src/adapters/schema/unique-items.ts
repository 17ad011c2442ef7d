import type { Ajv, SchemaValidateFunction } from 'ajv';

/**
 * `uniqueItems` in time linear in the array. ajv compares every pair of items unless the
 * schema types them as scalars: an item holding 60,000 small objects under
 * `{"type": "array", "uniqueItems": true}` took 1.8 billion deep comparisons, and one
 * POST held the reactor's event loop for minutes. Here each item is keyed by its
 * canonical JSON (object keys sorted), equal exactly when JSON Schema's equality holds.
 */
export function lineariseUniqueItems(engine: Ajv): void {
  engine.removeKeyword('uniqueItems');
  engine.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: uniqueItems });
}

const uniqueItems: SchemaValidateFunction = (unique: boolean, data: unknown[]): boolean => {
  const found = unique ? firstRepeat(data) : undefined;
  // ajv's own words and params for the same finding.
  uniqueItems.errors = found === undefined ? [] : [{ keyword: 'uniqueItems', params: found, message: `must NOT have duplicate items (items ## ${found.j} and ${found.i} are identical)` }];
  return found === undefined;
};

function firstRepeat(items: readonly unknown[]): { i: number; j: number } | undefined {
  const seen = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    const key = canonical(items[i]);
    const j = seen.get(key);
    if (j !== undefined) return { i, j };
    seen.set(key, i);
  }
  return undefined;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  // -0 and 0 are one number to JSON Schema, as to JSON.stringify.
  return JSON.stringify(value) ?? 'undefined';
}
