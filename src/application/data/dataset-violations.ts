import { isCollectionSchema } from '../../domain/data/dataset-schema.js';
import type { SchemaValidator } from '../ports/schema-validator.js';

/**
 * A data file against its dataset schema, as `validate` and package tests check it: a
 * collection schema validates the whole list once (paths name the row: `/1/title`), an
 * item schema validates each row of a list, or the document when it is not one.
 */
export async function datasetViolations(schemas: SchemaValidator, schema: unknown, schemaFile: string, data: unknown, dataFile: string): Promise<{ violations: string[]; items: number }> {
  const validate = await schemas.compile(schema, schemaFile);
  if (isCollectionSchema(schema)) {
    return { violations: validate(data).map((v) => `${dataFile} ${v.path || '(the collection)'} ${v.message}`), items: Array.isArray(data) ? data.length : 1 };
  }
  const rows = Array.isArray(data) ? data : [data];
  const violations = rows.flatMap((row, index) => validate(row).map((v) => `${dataFile} ${Array.isArray(data) ? `row ${index + 1}` : 'document'}${v.path} ${v.message}`));
  return { violations, items: rows.length };
}
