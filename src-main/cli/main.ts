import { Command, CommanderError, Option } from 'commander';
import { BASE_STRATEGIES } from '../docker/base-image.ts';
import { DockerUnavailableError } from '../docker/client.ts';
import { listPresets } from '../presets/presets.ts';
import { rightsizeVersion } from '../util/paths.ts';
import { appsCommands } from './apps-program.ts';
import { baselineCommands } from './baseline-program.ts';
import { doctorCommand } from './commands/doctor.ts';
import { imagesBuildCommand } from './commands/images.ts';
import { deleteCommand, exportCommand, runsCommand, showCommand } from './commands/history.ts';
import { reportCommand } from './commands/report.ts';
import { RUN_JSON_SCHEMA_VERSION, runCommand } from './commands/run.ts';
import { DRY_RUN_JSON_SCHEMA_VERSION, dryRunCommand } from './commands/run-dry.ts';
import { serveCommand } from './commands/serve.ts';
import {
  targetsAddCommand,
  targetsCheckCommand,
  targetsListCommand,
  targetsRemoveCommand,
  type TargetAddOptions,
} from './commands/targets.ts';
import { SIZE_EXIT_HELP, SIZE_JSON_SCHEMA_VERSION, sizeCommand } from './commands/size.ts';
import { VERIFY_EXIT_HELP, VERIFY_JSON_SCHEMA_VERSION, verifyCommand } from './commands/verify.ts';
import { CliError, EXIT, EXIT_HELP } from './exit-codes.ts';
import { addPriceOptions } from './prices-option.ts';
import { table } from './format.ts';
import { scopeLabels } from '../docker/labels.ts';

/** The end of a command's --help: what --json prints, and the exit codes. */
const jsonAndExitHelp = (schemaVersion: number, exitCodes: string): string =>
  `With --json, stdout is one JSON document with "schemaVersion": ${schemaVersion} (progress goes to stderr).\n\n` +
  `Exit codes:\n${exitCodes}\n`;

/** What `run --dry-run` prints and exits with (its --json document has its own version). */
const DRY_RUN_HELP =
  "With --dry-run nothing is started or stored: the matrix is checked where it would run (this machine's " +
  'cores and memory when Docker does not answer, said so) and its cells, counts and estimate are listed; exit ' +
  `${EXIT.ok} when valid, else the run's own refusal (${EXIT.usage}, or ${EXIT.targetNotReady} for --target). ` +
  `With --json: one document {"schemaVersion": ${DRY_RUN_JSON_SCHEMA_VERSION}, "dryRun": true, "valid", ` +
  '"problems", "cells", "counts", "phases", "estimateSec", "cellsAtOnce", "notes", "forecast", …}.\n\n';

function program(): Command {
  const p = new Command('rightsize')
    .description(
      'Size Node.js servers: run a matrix of CPU caps × memory caps × workers × launch modes in Docker, under load.',
    )
    .version(rightsizeVersion())
    .option('--db <file>', 'history database (default: the per-user data folder, or $RIGHTSIZE_DB)')
    .option('--data-dir <dir>', 'data folder (default: $RIGHTSIZE_DATA_DIR or the OS per-user data folder)')
    .option('--json', 'machine-readable output on stdout')
    .showHelpAfterError()
    .exitOverride();
  const globals = () => p.opts<{ db?: string; dataDir?: string; json?: boolean }>();

  addPriceOptions(p.command('run'), 'to cost the answer at, stored with the run')
    .description('run a sizing matrix from a preset or a JSON file, with live progress')
    .option('-p, --preset <name>', 'a preset (see `rightsize presets`)')
    .option('-c, --config <file>', 'a matrix JSON file')
    .option('-n, --name <name>', 'name the run')
    .option('-y, --yes', `confirm a matrix of more than 500 cells`)
    .option('-v, --verbose', 'also print image build output')
    .option(
      '--slo <objective>',
      'also find the cheapest configuration meeting it, e.g. "p99<=20ms,rps>=1000,errors<=1%"; ' +
        `exits ${EXIT.sloNotMet} when none does (a CI gate)`,
    )
    .option(
      '--wait',
      'if another run or build holds this Docker engine, queue behind it (default: exit ' +
        EXIT.labBusy +
        ' naming the holder)',
    )
    .option(
      '-t, --target <name>',
      'where cells run: a saved target (see `rightsize targets`); default local, this machine',
    )
    .option(
      '--load-threads <n>',
      'load threads per cell, over the matrix\'s "load.threads" ' +
        "(default: one per core the target leaves free; 1 to the host's cores, at most the connections)",
    )
    .option(
      '--tls-resume',
      'a TLS connection the server closed offers its last session when it is opened again, so its handshake ' +
        'is resumed, as a returning browser\'s (the matrix\'s "load.tlsResume"; default: a full handshake each)',
    )
    .option(
      '--settle-budget <pct>',
      'when the answer is undecided after the grid, repeat only the contenders ' +
        "for up to this % of the grid's measured time (default 50; 0 turns settling off)",
    )
    .option('--explain', 'print every sentence of the answer and how it was decided, not only its summary')
    .option(
      '--baseline <run|name>',
      'compare goodput, p99 and peak memory with a baseline run (its id, or a name saved with --save-baseline); ' +
        `exits ${EXIT.regressed} when something regressed`,
    )
    .option(
      '--threshold <pct>',
      'with --baseline: the noise threshold, a change smaller than this never regresses (default 5)',
    )
    .option('--save-baseline <name>', "save this run as each of its apps' baseline under this name (when it completes)")
    .option(
      '--no-verify',
      'do not run the picked configuration exactly as its deploy snippets deploy it ' +
        '(rightsize verify RUN does it later)',
    )
    .option(
      '--no-probe',
      "no runtime probe in the cells' Node.js processes (it records event loop, GC and heap per second; on by default)",
    )
    .option(
      '--dry-run',
      'check the matrix where it would run (every problem at once) and list its cells and the estimate; ' +
        'start and store nothing',
    )
    .addOption(
      new Option('--base <strategy>', 'base image: official Node image, offline (from this machine), or auto').choices(
        BASE_STRATEGIES,
      ),
    )
    .addHelpText('after', `\n${DRY_RUN_HELP}${jsonAndExitHelp(RUN_JSON_SCHEMA_VERSION, EXIT_HELP)}`)
    .action(async (o: { dryRun?: boolean }) => {
      const options = { ...globals(), ...o };
      process.exitCode = o.dryRun ? await dryRunCommand(options) : await runCommand(options);
    });

  addPriceOptions(p.command('size'), 'to cost (and with --cheapest, search) at, stored with the run')
    .description(
      'auto-size: find the cheapest configuration (CPU, memory, workers) ' +
        'that meets an objective at a constant rate, adaptively',
    )
    .option('--app <name>', 'the app to size (see `rightsize apps`)')
    .option('--slo <objective>', 'the objective, e.g. "p99<=50ms,errors<=0.1%"')
    .option('--rate <req/s>', 'the constant request rate it must hold, e.g. 2000')
    .option('--cheapest', 'the lowest price per hour at the prices (--cpu-price …), not the smallest CPU')
    .option('--cpu <min-max>', 'CPU cap bounds in millicores (default 250-<cores×1000>)')
    .option('--memory <min-max>', 'memory cap bounds in MB (default 128-1024)')
    .option('--workers <min-max>', 'worker count bounds (default 1-<cores>)')
    .option('--modes <list>', 'launch modes, comma-separated (default cluster)')
    .option('--max-cells <n>', 'never run more cells than this (default 12): the answer is then "undecided"')
    .option('--duration <sec>', 'measured seconds per cell (default 8)')
    .option('--warmup <sec>', 'warm-up seconds per cell (default 2; extended until steady)')
    .option('--cpu-step <millicores>', 'CPU step of the bisection and of the grid it replaces (default 125)')
    .option('--memory-step <mb>', "memory step (default 32, the memory rule's rounding)")
    .option('--no-probe', "no runtime probe in the cells' Node.js processes (on by default)")
    .option('-n, --name <name>', 'name the run')
    .option('-v, --verbose', 'also print image build output')
    .option(
      '--wait',
      'if another run or build holds this Docker engine, queue behind it (default: exit ' +
        EXIT.labBusy +
        ' naming the holder)',
    )
    .option(
      '-t, --target <name>',
      'where cells run: a saved target (see `rightsize targets`); default local, this machine',
    )
    .addOption(
      new Option('--base <strategy>', 'base image: official Node image, offline (from this machine), or auto').choices(
        BASE_STRATEGIES,
      ),
    )
    .addHelpText(
      'after',
      '\nEvery cell is stored as a cell of one run (show, report, export work on it); ' +
        'the path is kept with the run.\n' +
        jsonAndExitHelp(SIZE_JSON_SCHEMA_VERSION, SIZE_EXIT_HELP),
    )
    .action(async (o) => {
      process.exitCode = await sizeCommand({ ...globals(), ...o });
    });

  p.command('runs')
    .description('list past runs')
    .option('--limit <n>', 'how many (default 50)')
    .option('--status <status>', 'only runs with this status')
    .option('--search <text>', 'name or preset contains')
    .option('--sort <field>', 'started_at | name | status | cells | duration')
    .action(async (o) => {
      process.exitCode = await runsCommand({ ...globals(), ...o });
    });

  p.command('show <run>')
    .description("a run's host, matrix and cells")
    .action(async (id: string) => {
      process.exitCode = await showCommand(id, globals());
    });

  p.command('export <run>')
    .description("write a run's cells (and per-second samples) as CSV")
    .option('--csv <file>', 'cells CSV')
    .option('--samples <file>', 'per-second samples CSV')
    .option('--configurations <file>', "one row per configuration: the answer's goodput and cost at the run's prices")
    .action(async (id: string, o) => {
      process.exitCode = await exportCommand(id, { ...globals(), ...o });
    });

  addPriceOptions(p.command('report <run>'), "for this report, over the run's stored prices")
    .description('the sizing answer of a run: text, --json, or a self-contained HTML report')
    .option('--html <file>', 'write a self-contained HTML report (answer, charts, cells, host, method)')
    .option('--slo <objective>', 'service-level objective, e.g. "p99<=20ms,rps>=1000,errors<=1%"')
    .option('--margin <pct>', 'knee: the fewest workers within this % of the best req/s (default 5)')
    .option('--emit <kind>', 'print a deploy snippet of the recommended configuration: pm2, kubernetes or compose')
    .option('--explain', 'every sentence of the answer and how it was decided (default: the headline and 4 bullets)')
    .option(
      '--cell <n>',
      'with --emit: the snippet of this cell (its # in `rightsize show RUN`) instead of the recommendation',
    )
    .action(async (id: string, o) => {
      process.exitCode = await reportCommand(id, { ...globals(), ...o });
    });

  p.command('verify <run>')
    .description(
      "run the answer (or cell N's configuration) exactly as its PM2, Kubernetes and Compose snippets deploy it; " +
        'step the memory limit up until it passes; store the cells with the run',
    )
    .option('--cell <n>', 'verify the configuration of this cell (its # in `rightsize show RUN`) instead of the answer')
    .option('-t, --target <name>', 'where the cells run: a saved target (default: where the run was measured)')
    .option('--slo <objective>', 'the answer as `report --slo` gives it, e.g. "p99<=20ms,errors<=1%"')
    .option('--margin <pct>', 'the answer as `report --margin` gives it (default 5)')
    .option(
      '--wait',
      'if another run or build holds this Docker engine, queue behind it (default: exit ' +
        EXIT.labBusy +
        ' naming the holder)',
    )
    .option('-v, --verbose', 'also print image build output')
    .addOption(
      new Option('--base <strategy>', 'base image: official Node image, offline (from this machine), or auto').choices(
        BASE_STRATEGIES,
      ),
    )
    .addHelpText(
      'after',
      "\nPass: no OOM kill, no restart, failed requests within the answer's limit, " +
        "goodput not significantly below 95 % of the matrix's; then report --emit carries exactly what ran.\n" +
        jsonAndExitHelp(VERIFY_JSON_SCHEMA_VERSION, VERIFY_EXIT_HELP),
    )
    .action(async (id: string, o) => {
      process.exitCode = await verifyCommand(id, { ...globals(), ...o });
    });

  p.command('delete <run>')
    .description('delete a run and its samples')
    .option('-y, --yes', 'confirm')
    .action(async (id: string, o) => {
      process.exitCode = await deleteCommand(id, { ...globals(), ...o });
    });

  p.command('serve')
    .description('serve the UI and the engine to a browser (token-protected, this machine only by default)')
    .option('--host <host>', 'address to listen on (default 127.0.0.1; anything else exposes it)')
    .option('--port <port>', 'port (default 5180; 0 = any free port)')
    .action(async (o) => {
      process.exitCode = await serveCommand({ ...globals(), ...o });
    });

  p.command('presets')
    .description('list the presets')
    .action(() => {
      const ps = listPresets();
      if (globals().json) process.stdout.write(`${JSON.stringify(ps, null, 2)}\n`);
      else
        process.stdout.write(
          `${table(
            ['name', 'what it reproduces'],
            ps.map((x) => [x.name, x.description]),
          )}\n`,
        );
    });

  appsCommands(p, globals);
  baselineCommands(p, globals);

  const targets = p
    .command('targets')
    .description('where cells run: this machine (local), remote Docker engines, a Swarm, a Kubernetes context');
  targets
    .command('ls', { isDefault: true })
    .alias('list')
    .description('list local and the saved targets')
    .action(async () => {
      process.exitCode = await targetsListCommand(globals());
    });
  targets
    .command('add <name>')
    .description(
      'save a target (only URLs and file paths are stored, never keys or tokens); ' +
        'every problem is reported, nothing saved until all are fixed',
    )
    .option('--docker <url>', 'a Docker engine: tcp://host:2375, tcp://host:2376 with --tls, ssh://user@host')
    .option('--tls <dir>', 'a folder holding ca.pem, cert.pem and key.pem (tcp with TLS)')
    .option('--ssh-key <file>', 'a private key file for ssh:// (default: the ssh agent)')
    .option('--swarm <manager-url>', "a Swarm manager's engine URL")
    .option(
      '--node <node=url>',
      "a Swarm node's own engine URL (repeat for each node)",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--kubernetes', 'a Kubernetes cluster, from a kubeconfig')
    .option('--kubeconfig <file>', 'the kubeconfig (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'a context of the kubeconfig (default: its current context)')
    .option('--namespace-prefix <prefix>', 'Kubernetes: a prefix for the per-run namespaces')
    .option(
      '--registry <host/path>',
      'Kubernetes: the registry the cluster pulls from; Rightsize pushes the app and load-agent images there',
    )
    .option(
      '--registry-auth <file>',
      "Kubernetes: a Docker config.json holding the registry's login (a path; the login is never stored)",
    )
    .action(async (name: string, o: TargetAddOptions) => {
      process.exitCode = await targetsAddCommand(name, { ...globals(), ...o });
    });
  targets
    .command('rm <name>')
    .description('remove a saved target (its files are left as they are)')
    .action(async (name: string) => {
      process.exitCode = await targetsRemoveCommand(name, globals());
    });
  targets
    .command('check <name>')
    .description('connect and check: nodes, CPUs, memory, which are free, and every problem in words')
    .addHelpText(
      'after',
      `\nExit codes: ${EXIT.ok} ready, ${EXIT.targetNotReady} not ready ` +
        `(unreachable, TLS, permissions, no nodes free), ${EXIT.usage} unknown target.\n`,
    )
    .action(async (name: string) => {
      process.exitCode = await targetsCheckCommand(name, globals());
    });

  p.command('images')
    .description("the images an app's dependencies run where no registry answers")
    .command('build <name...>')
    .description(
      'build PostgreSQL (postgres) or Redis (redis) from Debian packages, offline; prints the tag to use as the ' +
        "dependency's image (a machine with registry access can use postgres:16 or redis:7 instead)",
    )
    .option('--wait', 'wait for the lab when another run or build holds it')
    .action(async (names: string[], o: { wait?: boolean }) => {
      process.exitCode = await imagesBuildCommand(names, { ...globals(), ...o });
    });

  p.command('doctor')
    .description('check the Docker engine and remove containers left by stopped Rightsize processes')
    .action(doctorCommand);
  return p;
}

export async function main(argv: string[]): Promise<void> {
  try {
    scopeLabels(); // a malformed RIGHTSIZE_LABELS is refused before anything starts, not at the first container
  } catch (e) {
    process.stderr.write(`rightsize: ${(e as Error).message}\n`);
    process.exitCode = EXIT.usage;
    return;
  }
  try {
    await program().parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    } else if (e instanceof CliError) {
      process.stderr.write(`rightsize: ${e.message}\n`);
      process.exitCode = e.exitCode;
    } else if (e instanceof DockerUnavailableError) {
      process.stderr.write(`rightsize: ${e.message}\n`);
      process.exitCode = EXIT.docker;
    } else {
      process.stderr.write(`rightsize: unexpected error: ${(e as Error).stack ?? String(e)}\n`);
      process.exitCode = EXIT.error;
    }
  }
}
