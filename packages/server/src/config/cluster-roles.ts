import { type ClusterRole, type Config, ConfigError } from './config.js';

/**
 * The cluster roles a `serve` runs (any mix of them in one process, ADR 0018), in name order, once its
 * settings allow a cluster node: `DATABASE_URL` and `NATS_URL` are needed by every role but `all`.
 */
export function clusterRolesOf(config: Config): ClusterRole[] {
  const { role, databaseUrl, natsUrl } = config.settingNames;
  if (config.roles === 'all') throw new ConfigError(`${role} all is the single process, not a cluster node`);
  if (!config.databaseUrl)
    throw new ConfigError(`${role} other than all needs ${databaseUrl} (postgres://…)`);
  if (!config.natsUrl) throw new ConfigError(`${role} other than all needs ${natsUrl} (nats://…)`);
  return [...config.roles].sort();
}
