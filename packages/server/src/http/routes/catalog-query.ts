import { Type } from 'typebox';
import { badRequest } from '../../errors/app-error.js';

/** Query-string helpers shared by the catalog routes. */

/** A comma-separated list of positive integers, e.g. `sportIds=1,5`. */
export const IntegerList = Type.String({
  pattern: '^[0-9]{1,9}(,[0-9]{1,9})*$',
  description: 'comma-separated integers',
});

/** A comma-separated list of event ids, e.g. `sportXEventIds=L1000001,L1000002`. */
export const EventIdList = Type.String({
  minLength: 1,
  maxLength: 8192,
  description: 'comma-separated event ids',
});

export const EventId = Type.String({ minLength: 1, maxLength: 64 });

export const parseIntegerList = (text: string): number[] => [...new Set(text.split(',').map(Number))];

/** The distinct ids of a comma-separated list; 400 when empty, over `max`, or an id is malformed. */
export function parseEventIds(text: string, options: { field: string; max: number }): string[] {
  const ids = [...new Set(text.split(',').map((id) => id.trim()))];
  if (ids.some((id) => id.length === 0 || id.length > 64))
    throw badRequest('BAD_EVENT_IDS', `${options.field} must be a comma-separated list of event ids`);
  if (ids.length > options.max)
    throw badRequest('TOO_MANY_EVENT_IDS', `${options.field} takes at most ${options.max} event ids`);
  return ids;
}
