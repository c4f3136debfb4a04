/**
 * The subscribe reply for a stream, as the centrifuge Go library builds it (subscribeCmd): position
 * for positioned subscriptions, recovered publications when the history covers the gap. Pure.
 */
import type { ChannelStream, StreamPublication } from './stream.js';
import { encodeFields, type RawJson, type SubscribeRequest } from './wire.js';

/** Subscribe flag bit 2 (centrifuge-js `getState`): answer 112 instead of `recovered: false`. */
const REJECT_UNRECOVERED = 2;

export type SubscribeOutcome = { type: 'ok'; resultJson: string } | { type: 'unrecoverable' };

/** The length of `publicationsJson(publications)`, without building it. */
export function publicationsBytes(publications: readonly StreamPublication[]): number {
  if (publications.length === 0) return 0;
  let bytes = publications.length + 1;
  for (const publication of publications) bytes += publication.json.length;
  return bytes;
}

export function publicationsJson(publications: readonly StreamPublication[]): RawJson | undefined {
  return publications.length > 0 ? { raw: `[${publications.map((p) => p.json).join(',')}]` } : undefined;
}

/**
 * What a recovery may return: at most `maxPublications`, and at most `maxBytes` of them encoded (what
 * the connection may still be sent). More missed than that is `recovered: false`: the client reseeds.
 */
export type RecoveryLimit = { readonly maxPublications: number; readonly maxBytes: number };

export function subscribeResult(
  stream: ChannelStream,
  req: SubscribeRequest,
  limit: RecoveryLimit,
  now: number,
): SubscribeOutcome {
  const positioned = stream.hasHistory && (req.positioned === true || req.recoverable === true);
  if (!positioned) return { type: 'ok', resultJson: '{}' };
  const recoverable = stream.settings.recoverable && req.recoverable === true;
  const wasRecovering = recoverable && req.recover === true;
  let offset = stream.top;
  let recovered = false;
  let publications: readonly StreamPublication[] = [];
  if (wasRecovering) {
    const since = { offset: Number(req.offset ?? 0), epoch: typeof req.epoch === 'string' ? req.epoch : '' };
    const result = stream.recover(since, limit.maxPublications, now);
    if (result.recovered && publicationsBytes(result.publications) <= limit.maxBytes) {
      recovered = true;
      publications = result.publications;
      // The client's position moves with each recovered publication it processes.
      offset = since.offset;
    } else if ((Number(req.flag ?? 0) & REJECT_UNRECOVERED) !== 0) {
      return { type: 'unrecoverable' };
    }
  }
  return {
    type: 'ok',
    resultJson: encodeFields({
      recoverable,
      epoch: stream.epoch,
      publications: publicationsJson(publications),
      recovered,
      offset,
      positioned,
      was_recovering: wasRecovering,
    }),
  };
}
