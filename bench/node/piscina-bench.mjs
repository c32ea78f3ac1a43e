// Piscina on the shapes of moroutine's JMH benchmarks, with warm-up and medians.
//
//   node piscina-bench.mjs [--mode=quick|full] [--out=FILE]
//
// Installs Piscina (the version in package.json) into ./node_modules first if it is missing. Writes
// its results as Java properties (key=value lines) to FILE, which dev.moroutine.bench.BenchMain
// reads; when Piscina cannot be installed, FILE says so (available=false, reason=...) and the
// exit status is still 0, so that the JVM side of the comparison runs on.
//
// Shapes (the JMH benchmark each mirrors):
//   pingPong     1 thread, one noop task at a time, µs per round trip   (PingPongBenchmark)
//   pipelined64  1 thread, 64 tasks in flight, tasks/s                  (PipelinedBenchmark, inFlight=64)
//   parallel     2 threads, batches of 100,000 tasks awaited together  (ParallelBenchmark)
//   Pipelined and parallel run twice: with Piscina's defaults (a worker gets its next task only
//   when it has returned the last: concurrentTasksPerWorker 1), and with concurrentTasksPerWorker
//   64 (prefixes pipelined64.tuned, parallel.tuned), which lets tasks queue at the worker as they
//   do in the JVM pools.
//   cpu          isPrime(999_999_937) x 2 per CPU: the main thread one after the other, vs
//                Piscina with one thread per CPU, all at once           (CpuBoundBenchmark)

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isPrime } from './tasks.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).map((a) => {
  const m = /^--([^=]+)=(.*)$/.exec(a);
  if (!m) throw new Error(`unknown argument "${a}"; expected --mode= or --out=`);
  return [m[1], m[2]];
}));
const modeName = args.mode ?? 'quick';
const MODES = {
  // warm-up time per shape, measured rounds, time per round (ms). Quick: 2 parallel batches, since one of
  // 100,000 tasks takes Piscina about 4 s on 2 cores (3 made its part of a quick run 42 s).
  quick: { warmupMs: 1000, rounds: 5, roundMs: 400, parallelBatches: 2, cpuRounds: 5 },
  full: { warmupMs: 3000, rounds: 15, roundMs: 1000, parallelBatches: 10, cpuRounds: 15 },
};
const mode = MODES[modeName];
if (!mode) throw new Error(`unknown mode "${modeName}"; use quick or full`);
const out = args.out ?? join(here, 'piscina-result.properties');

const PRIME = 999_999_937;
const CPUS = availableParallelism();
const PARALLEL_TASKS = 100_000;
const PARALLEL_THREADS = 2;
const IN_FLIGHT = 64;

const results = new Map();
const put = (key, value) => results.set(key, Array.isArray(value) ? value.join(',') : String(value));

function write() {
  const lines = ['# Piscina results, written by bench/node/piscina-bench.mjs'];
  for (const [k, v] of results) lines.push(`${k}=${String(v).replace(/\\/g, '\\\\').replace(/\n/g, ' ')}`);
  writeFileSync(out, lines.join('\n') + '\n');
}

function say(text) {
  console.log(`[Piscina] ${text}`);
}

put('mode', modeName);
put('node', process.version);
put('cpus', CPUS);
put('load.start', loadavg()[0].toFixed(2));

// ---------------------------------------------------------------- install

async function loadPiscina() {
  const installed = join(here, 'node_modules', 'piscina', 'package.json');
  if (!existsSync(installed)) {
    say('installing piscina into bench/node/node_modules (npm install) ...');
    try {
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
        cwd: here, stdio: 'inherit', timeout: 300_000,
      });
    } catch (e) {
      return { reason: `npm install failed: ${e.message.split('\n')[0]}` };
    }
  }
  try {
    const version = JSON.parse(readFileSync(installed, 'utf8')).version;
    const module = await import('piscina');
    return { Piscina: module.Piscina ?? module.default, version };
  } catch (e) {
    return { reason: `cannot load piscina: ${e.message.split('\n')[0]}` };
  }
}

const loaded = await loadPiscina();
if (!loaded.Piscina) {
  put('available', false);
  put('reason', loaded.reason);
  write();
  say(`not run: ${loaded.reason}`);
  process.exit(0);
}
const { Piscina } = loaded;
put('available', true);
put('piscina', loaded.version);
say(`Piscina ${loaded.version} on Node ${process.version}, ${modeName} mode`);

const filename = pathToFileURL(join(here, 'tasks.mjs')).href;
const TUNED = 64;
const pool = (threads, concurrentTasksPerWorker = 1) => new Piscina({
  filename, minThreads: threads, maxThreads: threads, idleTimeout: 60_000, concurrentTasksPerWorker,
});
const variant = (tuned) => (tuned ? `, concurrentTasksPerWorker ${TUNED}` : ', defaults');
const noop = { name: 'noop' };

// ---------------------------------------------------------------- statistics

const sorted = (xs) => [...xs].sort((a, b) => a - b);
function percentile(xs, p) {
  const s = sorted(xs);
  if (s.length === 0) return NaN;
  const rank = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[rank];
}
const median = (xs) => {
  const s = sorted(xs);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
const now = () => process.hrtime.bigint();
const elapsedMs = (t0) => Number(now() - t0) / 1e6;

// ---------------------------------------------------------------- shapes

async function pingPong() {
  const p = pool(1);
  try {
    const warm = now();
    while (elapsedMs(warm) < mode.warmupMs) await p.run(null, noop);
    const all = [];
    const perRound = [];
    for (let r = 1; r <= mode.rounds; r++) {
      const samples = [];
      const start = now();
      while (elapsedMs(start) < mode.roundMs) {
        const t0 = now();
        await p.run(null, noop);
        samples.push(Number(now() - t0) / 1e3);
      }
      perRound.push(median(samples));
      all.push(...samples);
      say(`ping-pong round ${r}/${mode.rounds}: p50 ${fmt(median(samples))} µs`);
    }
    put('pingPong.p50', percentile(all, 50));
    put('pingPong.p90', percentile(all, 90));
    put('pingPong.p99', percentile(all, 99));
    put('pingPong.samples', all.length);
    put('pingPong.rounds', perRound);
  } finally {
    await p.destroy();
  }
}

async function pipelined(tuned) {
  const p = pool(1, tuned ? TUNED : 1);
  try {
    const ring = new Array(IN_FLIGHT);
    for (let i = 0; i < IN_FLIGHT; i++) ring[i] = p.run(null, noop);
    let next = 0;
    const pump = async (ms) => {
      let done = 0;
      const start = now();
      while (elapsedMs(start) < ms) {
        for (let k = 0; k < 256; k++) {
          await ring[next];
          ring[next] = p.run(null, noop);
          next = (next + 1) % IN_FLIGHT;
          done++;
        }
      }
      return done / (elapsedMs(start) / 1e3);
    };
    await pump(mode.warmupMs);
    const perRound = [];
    for (let r = 1; r <= mode.rounds; r++) {
      perRound.push(await pump(mode.roundMs));
      say(`pipelined (64 in flight${variant(tuned)}) round ${r}/${mode.rounds}: ${fmt(perRound.at(-1) / 1e6)} M tasks/s`);
    }
    await Promise.all(ring);
    put(tuned ? 'pipelined64.tuned.rounds' : 'pipelined64.rounds', perRound);
  } finally {
    await p.destroy();
  }
}

async function parallel(tuned) {
  const p = pool(PARALLEL_THREADS, tuned ? TUNED : 1);
  try {
    const batch = async () => {
      const start = now();
      const all = new Array(PARALLEL_TASKS);
      for (let i = 0; i < PARALLEL_TASKS; i++) all[i] = p.run(null, noop);
      await Promise.all(all);
      return PARALLEL_TASKS / (elapsedMs(start) / 1e3);
    };
    const warm = now();
    do await batch(); while (elapsedMs(warm) < mode.warmupMs);
    const perRound = [];
    for (let r = 1; r <= mode.parallelBatches; r++) {
      perRound.push(await batch());
      say(`parallel (2 threads, 100,000 tasks${variant(tuned)}) batch ${r}/${mode.parallelBatches}: ${fmt(perRound.at(-1) / 1e6)} M tasks/s`);
    }
    put(tuned ? 'parallel.tuned.rounds' : 'parallel.rounds', perRound);
  } finally {
    await p.destroy();
  }
}

async function cpu() {
  const tasks = 2 * CPUS;
  const p = pool(CPUS);
  try {
    const sequential = () => {
      const start = now();
      let primes = 0;
      for (let i = 0; i < tasks; i++) primes += isPrime(PRIME) ? 1 : 0;
      if (primes !== tasks) throw new Error('isPrime is wrong');
      return elapsedMs(start);
    };
    const onPool = async () => {
      const start = now();
      const all = await Promise.all(Array.from({ length: tasks }, () => p.run(PRIME, { name: 'isPrime' })));
      if (all.some((x) => x !== true)) throw new Error('isPrime is wrong');
      return elapsedMs(start);
    };
    sequential();
    await onPool();
    const seq = [];
    const par = [];
    for (let r = 1; r <= mode.cpuRounds; r++) {
      seq.push(sequential());
      par.push(await onPool());
      say(`CPU-bound isPrime x ${tasks} round ${r}/${mode.cpuRounds}: sequential ${fmt(seq.at(-1))} ms, pool ${fmt(par.at(-1))} ms`);
    }
    put('cpu.tasks', tasks);
    put('cpu.threads', CPUS);
    put('cpu.sequential.rounds', seq);
    put('cpu.pool.rounds', par);
  } finally {
    await p.destroy();
  }
}

const started = now();
await pingPong();
await pipelined(false);
await pipelined(true);
await parallel(false);
await parallel(true);
await cpu();
put('tuned.concurrentTasksPerWorker', TUNED);
put('load.end', loadavg()[0].toFixed(2));
put('seconds', (elapsedMs(started) / 1e3).toFixed(1));
write();
say(`done in ${(elapsedMs(started) / 1e3).toFixed(0)} s; written ${out}`);
