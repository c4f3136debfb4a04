/** A cluster's NATS names, derived from its name (`CLUSTER`; `oddsbook` gives the defaults of ADR 0018). */
export type ClusterNames = {
  /** Request/reply to the leading sequencer. */
  submit: string;
  /** Request/reply to the leader's other services: its chain, multisig, resolutions, reconciliation. */
  leader: string;
  /** The JetStream stream of committed batches, and its subject. */
  stream: string;
  subject: string;
  /** The JetStream stream of stamped realtime publications (realtime nodes follow it), and its subject. */
  publicationsStream: string;
  publications: string;
  /** Catalog changes, from the node that made each to every other (core NATS: whoever listens now). */
  catalog: string;
};

export function clusterNames(cluster: string): ClusterNames {
  return {
    submit: `${cluster}.sequencer.submit`,
    leader: `${cluster}.leader.rpc`,
    stream: `${cluster.toUpperCase().replaceAll('-', '_')}_COMMITTED`,
    subject: `${cluster}.committed`,
    publicationsStream: `${cluster.toUpperCase().replaceAll('-', '_')}_PUBLICATIONS`,
    publications: `${cluster}.publications`,
    catalog: `${cluster}.catalog`,
  };
}
