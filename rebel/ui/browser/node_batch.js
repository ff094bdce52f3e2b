/* Runs rebel_engine.js under Node on a batch of problems: reads a JSON list of {problem, points} from stdin and
 * writes a JSON list of {model, staged, seconds, logs} (staged: the class after every round at each point,
 * (T + 1) * M, row-major by round; seconds: the fit's wall time; logs: [argument, result] of every log the fit
 * took, when the job asks for them with trace: true). Used by the equality test and the timings
 * (rebel.ui.browser.engine.run_node). */
"use strict";
const libm = require("./libm.js");

let traced = null;
const log = libm.log;
globalThis.RebelLibm = { ...libm, log: (x) => {
  const y = log(x);
  if (traced) traced.push(x, y);
  return y;
} };
const engine = require("./rebel_engine.js");

const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const jobs = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const out = jobs.map(({ problem, points, trace }) => {
    traced = trace ? [] : null;
    const start = process.hrtime.bigint();
    const model = engine.fit(problem);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const logs = traced;
    traced = null;
    const M = points.length / problem.d;
    const staged = engine.stagedClasses(model, points, M);
    const plain = {};
    for (const [key, value] of Object.entries(model)) plain[key] = ArrayBuffer.isView(value) ? Array.from(value) : value;
    return { model: plain, staged: Array.from(staged), seconds, logs };
  });
  process.stdout.write(JSON.stringify(out));
});
