import { describe, expect, it } from 'vitest';
import { clusterNames } from './cluster-names.js';
import { COMMITTED_STREAM, COMMITTED_SUBJECT } from './committed-stream.js';
import { LEADER_SUBJECT } from './leader-services.js';
import { SUBMIT_SUBJECT } from './sequencer-intake.js';

describe('a cluster’s NATS names', () => {
  it('are the ADR’s defaults for the cluster oddsbook, and a stream name NATS accepts for others', () => {
    expect(clusterNames('oddsbook')).toEqual({
      submit: SUBMIT_SUBJECT,
      leader: LEADER_SUBJECT,
      stream: COMMITTED_STREAM,
      subject: COMMITTED_SUBJECT,
      publicationsStream: 'ODDSBOOK_PUBLICATIONS',
      publications: 'oddsbook.publications',
      catalog: 'oddsbook.catalog',
    });
    expect(clusterNames('eu-2')).toEqual({
      submit: 'eu-2.sequencer.submit',
      leader: 'eu-2.leader.rpc',
      stream: 'EU_2_COMMITTED',
      subject: 'eu-2.committed',
      publicationsStream: 'EU_2_PUBLICATIONS',
      publications: 'eu-2.publications',
      catalog: 'eu-2.catalog',
    });
  });
});
