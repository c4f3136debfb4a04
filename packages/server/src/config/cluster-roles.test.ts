import { describe, expect, it } from 'vitest';
import { clusterRolesOf } from './cluster-roles.js';
import { ConfigError, loadConfig } from './config.js';

const CLUSTER = { DATABASE_URL: 'postgres://127.0.0.1/x', NATS_URL: 'nats://127.0.0.1:4222' };

describe('ROLE / --role', () => {
  it('is all by default, the single process', () => {
    expect(loadConfig([], {}).roles).toBe('all');
    expect(loadConfig(['--role', 'all'], {}).roles).toBe('all');
  });

  it.each([
    ['sequencer,api', ['api', 'sequencer']],
    ['api,realtime', ['api', 'realtime']],
    ['api,projector', ['api', 'projector']],
    ['sequencer,projector,chain,api,realtime', ['api', 'chain', 'projector', 'realtime', 'sequencer']],
    [' chain , projector ,chain', ['chain', 'projector']],
  ])('takes any mix of the cluster roles: %s', (raw, roles) => {
    expect(clusterRolesOf(loadConfig(['--role', raw], CLUSTER))).toEqual(roles);
  });

  it.each([
    ['', /--role is empty: it must be all or a comma list of sequencer, api, projector, realtime, chain/],
    [' , ', /--role is empty/],
    ['api,', /--role "api," names an empty role/],
    ['all,api', /--role all runs every role in one process and is not combined with others, got "all,api"/],
    ['sequencer,all', /not combined with others/],
    ['matcher', /--role must be all or a comma list of .*, got "matcher"/],
    ['api,Sequencer', /got "Sequencer"/],
  ])('refuses %j with a clear ConfigError', (raw, message) => {
    expect(() => loadConfig(['--role', raw], CLUSTER)).toThrow(ConfigError);
    expect(() => loadConfig(['--role', raw], CLUSTER)).toThrow(message);
  });

  it('names the variable when the role came from the environment', () => {
    expect(() => loadConfig([], { ...CLUSTER, ROLE: 'api,all' })).toThrow(/^ROLE all runs every role/);
  });

  it('needs DATABASE_URL and NATS_URL for any cluster role, named as given', () => {
    expect(() => clusterRolesOf(loadConfig(['--role', 'api'], { NATS_URL: CLUSTER.NATS_URL }))).toThrow(
      /--role other than all needs DATABASE_URL/,
    );
    expect(() =>
      clusterRolesOf(loadConfig(['--role', 'api', '--database-url', CLUSTER.DATABASE_URL], {})),
    ).toThrow(/--role other than all needs NATS_URL/);
    expect(() => clusterRolesOf(loadConfig([], CLUSTER))).toThrow(ConfigError);
  });
});
