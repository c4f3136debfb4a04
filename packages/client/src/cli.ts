import { main } from './cli/main.js';

// Ctrl-C stops a long-running command cleanly (book, watch); a second one ends the process.
const controller = new AbortController();
process.once('SIGINT', () => {
  controller.abort();
  process.once('SIGINT', () => process.exit(130));
});
process.once('SIGTERM', () => controller.abort());

main(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  signal: controller.signal,
  isTTY: process.stdout.isTTY === true,
}).then((code) => {
  process.exitCode = code;
  // The realtime connection and timers of a finished command must not hold the process.
  if (controller.signal.aborted || code !== 0) setTimeout(() => process.exit(code), 100).unref();
});
