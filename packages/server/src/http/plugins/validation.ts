import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

const shared: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

/**
 * Bodies are validated strictly: a number where a string belongs is a 400, never silently coerced.
 * Query strings and path parameters arrive as text, so they are coerced to the schema's types.
 */
export function registerValidation(app: FastifyInstance): void {
  const strict = addFormats.default(new Ajv({ ...shared, coerceTypes: false }));
  const coercing = addFormats.default(new Ajv({ ...shared, coerceTypes: 'array' }));
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? strict.compile(schema) : coercing.compile(schema),
  );
}
