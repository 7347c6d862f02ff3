'use strict';
// The runtime probe: preloaded into every Node.js process of a cell (NODE_OPTIONS=--require
// /opt/rightsize/launchers/probe.js), it writes one line a second on the process's stdout:
//   rightsize:probe {"at":…,"pid":…,"role":"worker","elu":0.42,…}
// (src-main/model/probe.ts ProbeReport). The engine reads these lines from the container's log.
// It must never disturb the app: timers that never keep a process alive, one write(2)
// per line (well under PIPE_BUF, so lines of several processes never interleave), and every step
// in try/catch: a failure turns the probe off in that process, with one line saying why.
(function probe() {
  const KEY = Symbol.for('rightsize.probe');
  if (global[KEY]) return; // required twice (NODE_OPTIONS and an inherited execArgv)
  global[KEY] = true;
  let fs;
  try {
    // Worker threads get the preload too: only the process's main thread is the server.
    if (!require('node:worker_threads').isMainThread) return;
    fs = require('node:fs');
    const perf = require('node:perf_hooks');
    const v8 = require('node:v8');
    const cluster = require('node:cluster');
    const path = require('node:path');
    const { performance } = perf;

    // The probe's own timers stay out of Node's timers module. A server under load calls it on
    // every request (each response re-arms its socket's timeout), and V8 optimizes that code for
    // the server's own timers. The first probe timer to fire there deoptimized it (a `setTimeout`
    // started 5 s into a cell cost 15 % of that second's goodput, side by side in Docker;
    // BENCHMARKS.md, probe). V8 resolves Atomics.waitAsync with a native, unref'd platform timer:
    // no Timeout object, no timer list, never keeps a process alive. setTimeout where it is missing.
    const slot = waitSlot();
    function waitSlot() {
      try {
        return typeof Atomics.waitAsync === 'function' ? new Int32Array(new SharedArrayBuffer(4)) : null;
      } catch {
        return null; // SharedArrayBuffer switched off
      }
    }
    /** Runs `fn` in `ms`; `cancel()` of what it returns stops that. */
    function later(ms, fn) {
      const t = { live: true, h: null };
      const run = () => {
        if (!t.live) return;
        try {
          fn();
        } catch (err) {
          off(err); // from a promise or a microtask, a throw would end the app
        }
      };
      if (!slot) (t.h = setTimeout(run, ms)).unref();
      else {
        const w = Atomics.waitAsync(slot, 0, 0, ms);
        if (w.async) w.value.then(run);
        else queueMicrotask(run); // already timed out (ms 0): settled at once, no promise
      }
      return t;
    }
    function cancel(t) {
      if (!t) return;
      t.live = false;
      if (t.h) clearTimeout(t.h);
    }

    // A `gc` observer delivers its entries through setImmediate, which the probe cannot avoid, and an
    // Immediate runs the same initAsyncResource as the server's socket Timeouts. V8 optimizes that for
    // the Timeout alone in a server that makes no Immediates, and the first GC delivery under load then
    // deoptimized it, with the hot code it was inlined in (a trace in 2 of 8 runs of a json server;
    // never in 8 with this). Immediates made now, once V8 keeps feedback for it (from 11 to 20 calls
    // here), make that code expect both from the start. 200: ten times that, about 0.1 ms, once.
    const noop = () => {};
    for (let i = 0; i < 200; i++) setImmediate(noop);

    // Set by the first probed process and inherited: a descendant that is neither a cluster worker
    // nor a PM2 instance is some other process the app started.
    const PARENT_VAR = 'RIGHTSIZE_PROBE_PID';
    const descendant = Boolean(process.env[PARENT_VAR]);
    process.env[PARENT_VAR] = String(process.pid);
    const script = path.basename(process.argv[1] || '');
    let forked = false;
    cluster.on('fork', () => (forked = true));
    // Known at start but for a first fork: worked out once, not each second (every step of a
    // once-a-second report runs cold, 0.03–0.2 ms each here; see tick()).
    const fixedRole =
      process.env.pm_id !== undefined
        ? 'worker' // a PM2 instance
        : /pm2|God|Daemon/i.test(script)
          ? 'pm2-daemon' // pm2-runtime (launchers/pm2.js) or PM2's daemon
          : cluster.isWorker
            ? 'worker'
            : null;
    const role = () => fixedRole || (forked ? 'primary' : descendant ? 'other' : 'single');

    // 50 ms: 20 samples a second, each timed to the microsecond. Every wake-up costs a process that was
    // waiting about 0.1 ms here (idle at 20 ms: 5–7 ms of CPU a second; BENCHMARKS.md, probe).
    // A process that serves no request (the cluster primary, PM2's daemon) turns it off once it knows its role:
    // there these wake-ups were most of the probe's cost, and its delay is then the report timer's own
    // lateness, one sample a second.
    const RESOLUTION_MS = 50;
    const delay = perf.monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    delay.enable();
    let delayOn = true;
    // V8's heap limit is set at start (--max-old-space-size): read once, not every second.
    const HEAP_LIMIT = v8.getHeapStatistics().heap_size_limit;
    let lastElu = performance.eventLoopUtilization();
    seen();

    // What this process believes about its box, once at start (src-main/model/runtime.ts RuntimeReading):
    // the values a runtime or a library sizes itself by, so the engine can tell where they mislead.
    function seen() {
      const os = require('node:os');
      const pool = Number.parseInt(process.env.UV_THREADPOOL_SIZE || '', 10);
      const cgroup = fs.existsSync('/sys/fs/cgroup/cgroup.controllers') ? 2 : fs.existsSync('/sys/fs/cgroup/cpu') ? 1 : 0;
      const record = {
        pid: process.pid,
        node: process.versions.node,
        cpus: os.cpus().length,
        parallelism: typeof os.availableParallelism === 'function' ? os.availableParallelism() : null,
        constrainedMemory: typeof process.constrainedMemory === 'function' ? process.constrainedMemory() || null : null,
        heapLimitBytes: HEAP_LIMIT,
        // libuv reads the variable when the pool first starts, clamped to 1–1024; anything unreadable is its 4.
        threadpool: Number.isFinite(pool) && pool > 0 ? Math.min(pool, 1024) : 4,
        cgroup: cgroup || null,
        // Whether this Node.js takes the heap limit as a share of the container's memory (22.21, 24.8 on).
        heapPercentFlag: process.allowedNodeEnvironmentFlags.has('--max-old-space-size-percentage'),
      };
      write(`rightsize:probe-runtime ${JSON.stringify(record)}\n`);
    }

    // GC pauses are sampled. While a `gc` PerformanceObserver listens, every pause costs the process
    // 1–2 ms of CPU (side by side in Docker, listening whole seconds cost 8 % of goodput; BENCHMARKS.md,
    // probe). So it listens at the start of each second for a window sized from the pause rate heard so
    // far to hold about GC_TARGET pauses (GC_MIN_WINDOW_MS to GC_WINDOW_MS): a fixed 200 ms heard up to 8
    // a second. The window is fixed when it opens, which keeps gcMs ÷ gcWindowMs unbiased (one that ended
    // at its Nth pause read high); GC_EVENTS pauses end it early, where the last one ended. Listening
    // every other second measured no cheaper (goodput with ÷ without, 2026-11-27: 0.990, against 0.989
    // every second and 0.992 never): what the probe costs is not in its GC windows.
    // v8.GCProfiler, which records natively, cost more still: heap statistics before and after every pause.
    const GC_WINDOW_MS = 200;
    const GC_MIN_WINDOW_MS = 20;
    const GC_TARGET = 1;
    const GC_EVENTS = 3;
    const gcSource = sampledGc();
    function emptyGc() {
      return { ms: 0, max: 0, scavenge: 0, markSweepCompact: 0, incremental: 0, weakCallbacks: 0, windowMs: 0 };
    }
    function sampledGc() {
      const KINDS = perf.constants;
      let gc = emptyGc();
      let heard = 0;
      let listening = false;
      let windowStart = Date.now();
      let windowEnd = windowStart;
      let closer;
      let windowStartPerf = performance.now();
      // Pauses and listening time heard so far, halved each window: the rate the next window is sized by.
      let rateHeard = 0;
      let rateMs = 0;
      // Counts pauses up to GC_EVENTS; the one that reaches it ends the window where it ended.
      const count = (entries) => {
        for (const e of entries) {
          if (heard >= GC_EVENTS) return;
          const kind = e.detail ? e.detail.kind : e.kind;
          gc.ms += e.duration;
          if (e.duration > gc.max) gc.max = e.duration;
          if (kind === KINDS.NODE_PERFORMANCE_GC_MINOR) gc.scavenge++;
          else if (kind === KINDS.NODE_PERFORMANCE_GC_MAJOR) gc.markSweepCompact++;
          else if (kind === KINDS.NODE_PERFORMANCE_GC_INCREMENTAL) gc.incremental++;
          else if (kind === KINDS.NODE_PERFORMANCE_GC_WEAKCB) gc.weakCallbacks++;
          if (++heard >= GC_EVENTS) capEnd = windowStart + Math.max(0, e.startTime + e.duration - windowStartPerf);
        }
      };
      let capEnd = 0;
      const close = () => {
        if (!listening) return;
        cancel(closer);
        count(observer.takeRecords()); // pauses already queued belong to the window
        observer.disconnect();
        listening = false;
        windowEnd = heard >= GC_EVENTS ? capEnd : Date.now();
      };
      const observer = new perf.PerformanceObserver((list) => {
        try {
          if (!listening) return;
          count(list.getEntries());
          if (heard >= GC_EVENTS) close();
        } catch (err) {
          off(err);
        }
      });
      const listen = (at) => {
        const windowLength =
          rateHeard > 0
            ? Math.min(GC_WINDOW_MS, Math.max(GC_MIN_WINDOW_MS, Math.round((GC_TARGET * rateMs) / rateHeard)))
            : GC_WINDOW_MS;
        windowStart = at;
        windowStartPerf = performance.now();
        if (!listening) observer.observe({ entryTypes: ['gc'] });
        listening = true;
        cancel(closer);
        closer = later(windowLength, () => {
          try {
            close();
          } catch (err) {
            off(err);
          }
        });
      };
      listen(Date.now());
      return {
        take(at, more) {
          if (listening) close();
          const out = gc;
          out.windowMs = Math.max(0, Math.round(windowEnd - windowStart));
          if (out.windowMs > 0) {
            rateHeard = rateHeard / 2 + heard;
            rateMs = rateMs / 2 + out.windowMs;
          }
          gc = emptyGc();
          heard = 0;
          if (more) listen(at);
          else windowStart = windowEnd = at;
          return out;
        },
        stop() {
          cancel(closer);
          observer.disconnect();
          listening = false;
        },
      };
    }

    /**
     * Context switches of the process (all its threads) so far: getrusage, one syscall instead of a
     * /proc file formatted and parsed each second; null where the runtime lacks it.
     */
    const switches = () => {
      if (typeof process.resourceUsage !== 'function') return null;
      const u = process.resourceUsage();
      return { voluntary: u.voluntaryContextSwitches, involuntary: u.involuntaryContextSwitches };
    };
    let lastSwitches = switches();
    let lastAt = Date.now();

    const round = (x, d) => Math.round(x * d) / d;
    // The histogram records each timer interval; what the loop added beyond the resolution is the delay.
    const late = (ns) => (Number.isFinite(ns) && ns > 0 ? round(Math.max(0, ns / 1e6 - RESOLUTION_MS), 1000) : 0);

    let quietGc = false;
    let timer;
    let due = 0;
    function schedule() {
      // At the next whole wall-clock second: every process reports at the same instants, and the
      // engine places each report in its second without drift.
      const wait = 1000 - (Date.now() % 1000) + 2;
      due = performance.now() + wait;
      timer = later(wait, tick);
    }

    function tick() {
      try {
        const at = Date.now();
        const tardy = round(Math.max(0, performance.now() - due), 1000);
        const eluNow = performance.eventLoopUtilization();
        const elu = performance.eventLoopUtilization(eluNow, lastElu); // the difference, with no second read
        lastElu = eluNow;
        const mem = process.memoryUsage();
        const sw = switches();
        const active = typeof process.getActiveResourcesInfo === 'function' ? process.getActiveResourcesInfo().length : null;
        // A process that serves no request (the cluster primary, PM2's daemon) stops listening for GC
        // once it knows what it is: its GC share is then unknown (gcWindowMs 0), never a guess.
        const r = role();
        if (r === 'primary' || r === 'pm2-daemon') quietGc = true;
        const gc = gcSource.take(at, !quietGc);
        const monitored = delayOn;
        if (quietGc && delayOn) {
          delay.disable();
          delayOn = false;
        }
        const record = {
          at,
          pid: process.pid,
          ppid: process.ppid,
          role: r,
          elu: round(elu.utilization, 10000),
          delayP50Ms: monitored ? late(delay.percentile(50)) : tardy,
          delayP99Ms: monitored ? late(delay.percentile(99)) : tardy,
          delayMaxMs: monitored ? late(delay.max) : tardy,
          gcMs: round(gc.ms, 1000),
          gcCounts: {
            scavenge: gc.scavenge,
            markSweepCompact: gc.markSweepCompact,
            incremental: gc.incremental,
            weakCallbacks: gc.weakCallbacks,
          },
          gcMaxPauseMs: round(gc.max, 1000),
          gcWindowMs: gc.windowMs,
          heapUsedBytes: mem.heapUsed,
          heapTotalBytes: mem.heapTotal,
          heapLimitBytes: HEAP_LIMIT,
          rssBytes: mem.rss,
          externalBytes: mem.external,
          arrayBuffersBytes: mem.arrayBuffers,
          activeResources: active,
          voluntaryCtxSwitches: sw && lastSwitches ? sw.voluntary - lastSwitches.voluntary : null,
          involuntaryCtxSwitches: sw && lastSwitches ? sw.involuntary - lastSwitches.involuntary : null,
          ms: at - lastAt,
        };
        lastSwitches = sw;
        lastAt = at;
        if (delayOn) delay.reset();
        write(`rightsize:probe ${JSON.stringify(record)}\n`);
        schedule();
      } catch (err) {
        off(err);
      }
    }

    let dropped = 0;
    function write(line) {
      try {
        fs.writeSync(1, line); // one write(2): atomic on a pipe, and past any logger the app put on process.stdout
      } catch (err) {
        // A full pipe (EAGAIN) loses this second only; anything else (stdout closed) turns the probe off.
        if (err && err.code === 'EAGAIN' && ++dropped < 60) return;
        throw err;
      }
    }

    let stopped = false;
    function off(err) {
      if (stopped) return;
      stopped = true;
      try {
        cancel(timer);
        gcSource.stop();
        delay.disable();
      } catch {
        // already half gone: nothing more to undo
      }
      const why = String((err && err.message) || err).replace(/\s+/g, ' ').slice(0, 200);
      try {
        fs.writeSync(2, `rightsize:probe-off pid=${process.pid} ${why}\n`);
      } catch {
        // no stderr either: stay silent
      }
    }

    schedule();
  } catch (err) {
    try {
      const why = String((err && err.message) || err).replace(/\s+/g, ' ').slice(0, 200);
      (fs || require('node:fs')).writeSync(2, `rightsize:probe-off pid=${process.pid} ${why}\n`);
    } catch {
      // nothing to report with
    }
  }
})();
