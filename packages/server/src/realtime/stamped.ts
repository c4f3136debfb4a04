/**
 * A publication numbered where it was made (the leading sequencer, ADR 0018), not by the hub that serves
 * it: every realtime node fed the same stamped publications holds the same (channel, offset, epoch)
 * history, so a client recovers on any node from the position another gave it.
 */
export type StampedPublication = {
  channel: string;
  /** The user of a per-user channel (`account:fills_v3`). */
  user?: string;
  messageId: string;
  /** The data as `encodeData` encodes it (an object carries its `messageId`). */
  dataJson: string;
  /** The state it replaces on a channel recovered in cache mode (a book: its market). */
  key?: string;
  /** Its offset in the channel's numbering; 0 on a channel without history (never kept, never recovered). */
  offset: number;
  /** The numbering's epoch; '' on a channel without history. */
  epoch: string;
};
