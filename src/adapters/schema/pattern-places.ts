/** Keywords whose values are data, not schemas: a `pattern` in an `enum` is no pattern. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);
/** Keywords whose keys are names (of properties, definitions), each holding a schema. */
const NAMED_SCHEMAS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);

const pointerToken = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The JSON pointers at which `schema` spells `pattern`: as a `pattern` (of a property, of
 * `propertyNames`...) or as a key of `patternProperties`. ajv says which pattern it could
 * not compile, not where; this says where, for the author to find it.
 */
export function patternPlaces(schema: unknown, pattern: string, at = '', names = false): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const places: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    const here = `${at}/${pointerToken(key)}`;
    const keyword = !names && !Array.isArray(schema);
    if (keyword && DATA_KEYWORDS.has(key)) continue;
    if (keyword && key === 'pattern' && value === pattern) places.push(here);
    if (keyword && key === 'patternProperties' && typeof value === 'object' && value !== null && Object.hasOwn(value, pattern)) places.push(`${here}/${pointerToken(pattern)}`);
    places.push(...patternPlaces(value, pattern, here, keyword && NAMED_SCHEMAS.has(key)));
  }
  return places;
}
