/**
 * A JSON schema of `levels` definitions, each an anyOf of two references to the next: ajv
 * checks one value 2^levels times (half a second an item at 18 levels; 24 did not finish).
 */
export function doublingSchema(levels: number): { definitions: Record<string, unknown>; $ref: string } {
  const definitions: Record<string, unknown> = { [`d${levels}`]: { type: 'string' } };
  for (let level = 0; level < levels; level++) definitions[`d${level}`] = { anyOf: [{ $ref: `#/definitions/d${level + 1}` }, { $ref: `#/definitions/d${level + 1}` }] };
  return { definitions, $ref: '#/definitions/d0' };
}
