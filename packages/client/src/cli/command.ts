import type { Output } from './context.js';

export type CommandIo = Output & {
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** Whether stdout is a terminal (`book` redraws in place there). */
  isTTY?: boolean;
};

/** One `oddsbook-client <name>` command. */
export type Command = {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The whole `--help` text. */
  usage: string;
  /** Runs it; resolves with the exit code. */
  run(args: readonly string[], io: CommandIo): Promise<number>;
};
