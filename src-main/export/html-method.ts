// The HTML report's last section: how the cells were measured (containers, placement, latency,
// warm-up, steady state, contention, flags), how the answer was decided, and the limits of it all.
import type { Recommendation } from '../analysis/index.ts';
import { HOST_BUSY_PCT, UNSTABLE_ALPHA, UNSTABLE_CHANGE, WARM_RANGE_Q95, WARM_SPREAD } from '../common/thresholds.ts';
import { JIT_WARM_CPU_SEC, WARM_WINDOW_SEC, warmupBounds, warmupCapSec } from '../load/warmup.ts';
import type { RunDetail } from '../model/stored.ts';
import { esc, section } from './html-parts.ts';

/** How the warm-up adapts, with this run's cap. */
function adaptiveText(warmupSec: number | undefined): string {
  if (warmupSec === 0) return 'A warm-up of 0 s is taken as asked: measurement starts at once.';
  const cap =
    warmupSec === undefined
      ? 'three times the configured warm-up and at least 10 s more'
      : `${warmupCapSec(warmupSec)} s (three times the configured warm-up and at least 10 s more)`;
  return (
    `The configured warm-up is a minimum, and so is the time each serving process takes to get ` +
    `${JIT_WARM_CPU_SEC} CPU-second under the cell's cap (until then V8 has not optimized its hot code, and a ` +
    'JavaScript-bound server runs at a fraction of its speed while looking flat): 16 processes on half a CPU ' +
    `warm up at least ${warmupBounds(1, 16, 0.5).minSec} s (${warmupBounds(1, 16, 0.5, true).minSec} s where their ` +
    `cap can be raised to one CPU for it). Then it goes on until the last ${WARM_WINDOW_SEC} ` +
    `seconds of throughput span no more than ${Math.round(WARM_SPREAD * 100)} % of their mean (no ramp, no step), ` +
    `or ${WARM_RANGE_Q95} × the host’s per-second noise this run where that is wider (read off the run’s own ` +
    'steady cells once two have measured: at a busy hour three steady seconds span more than ' +
    `${Math.round(WARM_SPREAD * 100)} %), ` +
    `for at most ${cap}, or 10 s past the processes’ minimum where that is longer.`
  );
}

/** Where cells under one CPU warmed up at one (load/warmup.ts), when the run has any. */
function raisedText(run: RunDetail): string {
  const n = run.cells.filter((c) => c.load?.warmupRaise).length;
  return n
    ? ` ${n} cell${n === 1 ? '' : 's'} under one CPU warmed up at one until each process had its CPU-second (by ` +
        "the container's CPU readings; on a host too busy to give it that, until where the floor at the cell's own " +
        'cap would have ended, less 2 s), then measured at their own cap, from the second after the one it came back ' +
        'in (<code>warmup_raised_cpu_m</code>, ' +
        '<code>warmup_raised_s</code>).'
    : '';
}

/** How TLS cells opened their connections, when the run has any: a full handshake each, or resumed on reconnects. */
function tlsItems(run: RunDetail): string[] {
  const tls = run.cells.filter((c) => c.config.load.tls);
  if (!tls.length) return [];
  const resumed = tls.some((c) => c.config.load.tlsResume);
  return [
    '<b>TLS.</b> The load never verifies the certificate. ' +
      (resumed
        ? 'A connection the server closed (<code>load.tlsResume</code>) offers, when it is opened again, the ' +
          'session (a TLS 1.3 ticket) it last got, as a returning browser does; whether it is resumed is the ' +
          'server’s. Each second counts connections opened and, apart, the handshakes resumed (CSV ' +
          '<code>connections_opened</code>, <code>tls_resumed</code>).'
        : 'It offers no session when it opens a connection, so each pays a full handshake as a new client’s ' +
          'does; each second counts them (CSV <code>connections_opened</code>).'),
  ];
}

export function methodSection(run: RunDetail, rec: Recommendation): string {
  const first = run.cells[0]?.config;
  const placement = (run.matrix as { placement?: unknown } | null)?.placement === 'off' ? 'off' : 'auto';
  const timing = first
    ? ` In this run each cell measured ${first.durationSec} s after a ${first.warmupSec} s warm-up that is ` +
      'excluded from every number.'
    : '';
  const items = [
    '<b>Containers and caps.</b> Each cell runs in a fresh Docker container. The CPU cap is Docker’s ' +
      '<code>NanoCpus</code> (1000 millicores = one core of CFS quota); memory is capped with swap disabled ' +
      '(<code>MemorySwap = Memory</code>). Worker counts are passed explicitly, because inside a capped ' +
      'container <code>os.cpus()</code> still reports every host core.',
    '<b>Placement.</b> With cores to spare, the container is pinned to its own cores and the load generator ' +
      'to another, so they do not compete; when the host cannot keep them apart, the run says so and results ' +
      `are pessimistic. This run: placement <code>${placement}</code>.`,
    '<b>Addressing.</b> On Linux the load goes straight to the container’s bridge IP: a published port goes ' +
      'through docker-proxy, which halved hello-world throughput in our measurements. Docker Desktop and ' +
      'remote engines fall back to a published port.',
    '<b>Latency.</b> autocannon’s HTTP clients run in a worker thread; Rightsize records latency in its own ' +
      'HDR histogram with microsecond resolution. Closed loop (N connections, each sending as soon as the ' +
      'previous answer arrives) measures from the actual send and finds peak throughput. Constant rate paces ' +
      'each connection to its own schedule and measures from the <em>intended</em> send time, so a stalled ' +
      'server shows up as latency instead of a silently lower rate (coordinated omission).',
    '<b>Warm-up.</b> The first seconds of each cell warm the JIT and the connections and are not ' +
      `measured.${timing} ${adaptiveText(first?.warmupSec)} The warm-up each cell used is in the cells table ` +
      'and the CSV (<code>warmup_used_s</code>, and the noise it was judged by, <code>warmup_noise_pct</code>).' +
      raisedText(run),
    '<b>Steady state.</b> The measured seconds of every cell are tested for a drift (least-squares trend, ' +
      't-test) and a level shift (the strongest stretch of seconds against the rest, Bonferroni-corrected over ' +
      `every cut), each at p &lt; ${UNSTABLE_ALPHA}. A cell whose throughput moved by ` +
      `${Math.round(UNSTABLE_CHANGE * 100)} % or more that way is flagged <code>unstable</code>, with what ` +
      'moved and by how much: its mean does not describe one steady state.',
    '<b>Host contention.</b> On Linux, CPU time on the cores the target and the load ran on is read from ' +
      '<code>/proc/stat</code> every second; the target’s own (its container’s accounting) and Rightsize’s ' +
      '(its threads on those cores) are subtracted. What remains — other processes, a browser drawing the UI, ' +
      `hypervisor steal — flags a cell <code>host-busy</code> when it exceeds ${HOST_BUSY_PCT} % of those ` +
      `cores over the measurement, or ${2 * HOST_BUSY_PCT} % in two seconds or more. Daemons (dockerd, ` +
      'containerd) take 1–3 % during a normal cell.',
    '<b>Flags.</b> <code>unstable</code> and <code>host-busy</code> as above. <code>client-bound</code>: a ' +
      'load thread was busy ≥ 90 % of the time — the load generator, not the server, may have set the pace. A ' +
      'constant-rate cell that got less than 95 % of its rate is put on the side that was the bottleneck: the ' +
      'server when every connection was waiting on it, the client when a load thread was saturated. ' +
      '<code>oom-killed</code> (from Docker’s OOM events, so a killed worker is caught even when its primary ' +
      'survives), <code>errors</code>, <code>throttled</code> (CPU quota throttling more than 5 % of the ' +
      'time), <code>restarts</code> (workers replaced or recycled).',
    ...tlsItems(run),
    // The analysis states its own method, so the report and the answer can never disagree on it.
    `<b>The answer.</b> ${esc(rec.method.replace(/^How this was decided: /, ''))} Cells that failed, were ` +
      `OOM-killed, cancelled or interrupted are left out and listed; cancelled cells' partial seconds are ` +
      'never a result.',
    '<b>Limits.</b> One machine runs both the target and the load generator: on a small host the ' +
      'generator’s ceiling caps what can be measured (the <code>client-bound</code> flag says when). A single ' +
      'repetition is one sample; use repetitions and a shuffled order before trusting a difference of a few ' +
      'percent. Results describe this host’s CPU, kernel and Docker, not the production machine. cgroup v1 and ' +
      'v2 report memory slightly differently. Loopback networking hides what a real network adds.',
  ];
  const list = `<ul class="method">${items.map((i) => `<li>${i}</li>`).join('')}</ul>`;
  return section('method', 'How this was measured, and its limits', list);
}
