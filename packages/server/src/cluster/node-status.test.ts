import { describe, expect, it } from 'vitest';
import { nodeStatusOf, type RoleStatus } from './node-status.js';

const role = (name: string, state: string, epoch: number | null = null, lastSeq = 0): RoleStatus => ({
  role: name,
  state,
  epoch,
  lastSeq,
});

describe('the status of a process running several roles', () => {
  it('is serving for api and realtime alone, at the API replica’s seq', () => {
    expect(nodeStatusOf([role('api', 'serving', null, 12), role('realtime', 'serving')])).toEqual({
      state: 'serving',
      epoch: null,
      lastSeq: 12,
    });
  });

  it('is the sequencer’s beside api and realtime: leader with its epoch, or standby', () => {
    const leading = [
      role('api', 'serving', null, 40),
      role('sequencer', 'leader', 3, 41),
      role('realtime', 'serving'),
    ];
    expect(nodeStatusOf(leading)).toEqual({ state: 'leader', epoch: 3, lastSeq: 41 });
    expect(nodeStatusOf([role('api', 'serving', null, 7), role('sequencer', 'standby', null, 9)])).toEqual({
      state: 'standby',
      epoch: null,
      lastSeq: 9,
    });
    expect(nodeStatusOf([role('api', 'serving'), role('sequencer', 'starting')]).state).toBe('starting');
  });

  it('names each leased role’s state when they differ, and the common one when they agree', () => {
    expect(
      nodeStatusOf([role('projector', 'leader', 2, 5), role('chain', 'standby'), role('api', 'serving')]),
    ).toEqual({ state: 'chain:standby,projector:leader', epoch: 2, lastSeq: 5 });
    expect(nodeStatusOf([role('chain', 'leader', 4, 5), role('projector', 'leader', 2, 6)])).toEqual({
      state: 'leader',
      epoch: 4,
      lastSeq: 6,
    });
  });

  it('is deposed, or stopped, as soon as one role is (the process is ending)', () => {
    expect(nodeStatusOf([role('projector', 'leader', 2), role('chain', 'deposed')]).state).toBe('deposed');
    expect(nodeStatusOf([role('api', 'serving'), role('sequencer', 'stopped', 1)]).state).toBe('stopped');
  });
});
