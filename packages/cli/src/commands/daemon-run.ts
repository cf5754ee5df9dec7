// `hub daemon run`: the daemon itself, until SIGINT or SIGTERM.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { DaemonMetrics, HubClient, runDaemon, type HubError } from '@hub/daemon';
import { parseOptions, type Command } from '../command.js';
import { configDir } from '../config-dir.js';
import { configFilePath, loadDaemonConfig } from '../daemon/config.js';
import { identityPath, readIdentities, selectIdentity, type DaemonIdentity } from '../daemon/identity.js';
import { DEFAULT_METRICS_HOST, metricsAddress, serveMetrics } from '../daemon/metrics-server.js';
import { CliError } from '../errors.js';
import { CONFIG_HELP, exitCodes, FILES_HELP } from '../help.js';
import { explicitOrigin } from '../origin.js';

const COMMAND = 'hub daemon run';
/** The hub refuses signatures outside ±60 s; past half of that, a wrong clock is the likely cause of a 401. */
const CLOCK_SUSPECT_MS = 30_000;

const help = `${COMMAND}: run agents for a hub, until stopped.

Usage: ${COMMAND} [origin] [--config FILE] [--metrics-port PORT [--metrics-host HOST]]

Uses the identity that "hub daemon enroll" stored for the hub. The daemon sends a heartbeat
every 10 s and waits for assignments (long polls). It runs each assignment with the command that
the config maps the step's agent provider to:
  - in the step's working directory (a leading ~ is the home directory);
  - with the rendered prompt on standard input, which is then closed;
  - with the daemon's environment, the provider's env, and
      HUB_INPUT_<NAME>    each input; the name uppercased, other characters than letters
                          and digits as _
      HUB_INPUTS          all inputs, as a JSON object
      HUB_EXECUTION_ID, HUB_TRIGGER_RUN_ID, HUB_STEP_ID, HUB_ACTOR, HUB_AGENT_PROVIDER,
      HUB_AGENT_MODE and HUB_AGENT_MODEL (these two when the step names them);
  - as the leader of a process group of its own: when the agent exits, whatever it left
    running in that group is stopped too.
The agent's output goes to the daemon's standard error, each line prefixed with [execution id],
and to the hub, which keeps it with the run ("hub logs RUN"): in batches of up to 64 KiB, one
request at a time, at most every 100 ms unless 64 KiB wait; a partial line goes after 250 ms
as it is; all of it before the execution's status. While the hub cannot be reached, up to
8 MiB of each execution's output waits for it; past that the oldest is dropped, and a line in
the output and in the daemon's log say how much.

Exit code 0 is reported as succeeded, any other as failed. At the step's maximum runtime, or its
idle timeout (no output for that long), the agent's process group is stopped (SIGTERM, then
SIGKILL 5 s later) and the execution reported timed_out. At most "concurrency" assignments run
at once; the daemon asks for more only when one is free, and meanwhile keeps listening for
cancellations: a run cancelled at the hub ("hub cancel RUN") has its agent's process group
stopped the same way, and is reported cancelled.

When the hub is unreachable the daemon retries with backoff (0.5 s doubling to 30 s) and
delivers the output and statuses it still owes once the hub is back. SIGINT or SIGTERM stops
it: it takes no more work, stops the running agents, reports them cancelled, tells the hub that
it is offline (so that dispatches to it are refused at once), and exits 0.

With --metrics-port, the daemon serves its own Prometheus metrics at GET /metrics on that port
(0: any free one; the log says which), on --metrics-host (default ${DEFAULT_METRICS_HOST}, this
machine only; no credential is asked, so choose the host with care):
  hub_daemon_assignments_taken_total          assignments taken from the hub
  hub_daemon_executions_total{outcome}        executions finished: succeeded, failed,
                                              timed_out, cancelled
  hub_daemon_output_bytes_sent_total          bytes of the agents' output the hub took
  hub_daemon_hub_request_duration_seconds{kind}
                                              round trips to the hub, by kind: heartbeat,
                                              next_assignment (a long poll, with its wait),
                                              status, output, offline
  hub_daemon_process_*, hub_daemon_nodejs_*   Node's process metrics (CPU, memory, event loop)

Arguments:
  origin          The hub (default: $HUB_URL; without either, the one hub this machine has an
                  identity for)

Options:
  --config FILE        The daemon config (default: daemon.yml in the config dir)
  --metrics-port PORT  Serve the daemon's Prometheus metrics at http://HOST:PORT/metrics
  --metrics-host HOST  The address they are served on (default: ${DEFAULT_METRICS_HOST}); an IP address
                       or localhost; 0.0.0.0 for every interface
  -h, --help           Show this help

${FILES_HELP}
${CONFIG_HELP}
Environment:
  HUB_URL          The hub, when no origin argument is given
  HUB_CONFIG_DIR   The config dir

${exitCodes(
  'stopped by SIGINT or SIGTERM',
  `the hub refused the daemon's identity: it was retired (by an enrollment of its name with
     --replace), or this machine's clock is off by more than 60 s`,
  ',\n     no identity stored for the hub, the metrics port in use',
)}`;

export const run: Command = {
  name: 'run',
  summary: 'Run agents for a hub until stopped',
  async run(args, io) {
    const { values, positionals } = parseOptions(
      COMMAND,
      args,
      { config: { type: 'string' }, 'metrics-port': { type: 'string' }, 'metrics-host': { type: 'string' } },
      1,
    );
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    const metricsAt = metricsAddress(COMMAND, values['metrics-port'], values['metrics-host']);
    const dir = configDir(io.env);
    const configFile = configFilePath(values.config, dir);
    const config = await loadDaemonConfig(configFile);
    const identity = selectIdentity(await readIdentities(dir), explicitOrigin(positionals[0], io.env), dir);
    const metrics = metricsAt === undefined ? undefined : new DaemonMetrics();
    const client = new HubClient(
      identity.origin,
      { daemonId: identity.daemonId, privateKey: privateKeyOf(identity, dir) },
      metrics,
    );

    const log = (message: string) => io.stderr.write(`${new Date().toISOString()} ${message}\n`);
    const providers = [...config.providers.keys()].join(', ');
    log(
      `Daemon ${identity.name} (id ${identity.daemonId}) for ${identity.origin}: providers ${providers}; up to ${config.concurrency} at once.`,
    );
    const server =
      metrics === undefined || metricsAt === undefined ? undefined : await serveMetrics(metrics, metricsAt);
    if (server !== undefined) log(`Metrics at ${server.url}.`);
    let refused: HubError | undefined;
    try {
      ({ refused } = await runDaemon({
        client,
        config,
        configFile,
        signal: io.stopSignal(),
        log,
        env: io.env,
        output: io.stderr,
        ...(metrics === undefined ? {} : { metrics }),
      }));
    } finally {
      await server?.close();
    }
    if (refused !== undefined) throw new CliError(refusal(refused, identity));
    log('Stopped.');
    return 0;
  },
};

function privateKeyOf(identity: DaemonIdentity, dir: string): KeyObject {
  try {
    return createPrivateKey(identity.privateKey);
  } catch (error) {
    throw new CliError(
      `The private key stored for ${identity.origin} in ${identityPath(dir)} is unreadable (${(error as Error).message}); enroll again.`,
      2,
    );
  }
}

function refusal(error: HubError, identity: DaemonIdentity): string {
  const skew = error.serverDate === undefined ? 0 : Date.now() - error.serverDate;
  const cause =
    Math.abs(skew) > CLOCK_SUSPECT_MS
      ? `This machine's clock is ${Math.round(Math.abs(skew) / 1_000)} s ${skew > 0 ? 'ahead of' : 'behind'} the hub's, and signed requests must be within 60 s: set the clock right.`
      : `The daemon may have been retired (an enrollment of the name "${identity.name}" with --replace retires it). Enroll again: hub daemon enroll ${identity.origin} --name ${identity.name}`;
  return `The hub refused this daemon's identity (${error.message}). ${cause}`;
}
