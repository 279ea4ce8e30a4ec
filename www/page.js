// The lesson page around the component: share links. The page's settings live in the URL hash
// (#interval=5s&crash-at=10:02:10); on load they become the element's attributes, and every
// change the student makes is written back.
import "../pkg/checkpoint-lab.js";

const lab = document.querySelector("checkpoint-lab");
const SHARED = ["mode", "interval", "state-size", "crash-at", "alignment", "snapshots", "rate", "capacity", "detection", "backpressure", "store-write", "sla", "sink", "scenario"];

const params = new URLSearchParams(location.hash.slice(1));
for (const [name, value] of params) if (SHARED.includes(name)) lab.setAttribute(name, value);

const seconds = (ms) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);
function clock(ms) {
  const p = (n) => String(n).padStart(2, "0");
  const s = Math.floor(ms / 1000);
  return `${p(Math.floor(s / 3600))}:${p(Math.floor(s / 60) % 60)}:${p(s % 60)}`;
}

lab.addEventListener("checkpointlab-change", (event) => {
  const s = event.detail.settings;
  const out = new URLSearchParams();
  if (s.mode !== "barrier") out.set("mode", s.mode);
  out.set("interval", seconds(s.interval_ms));
  out.set("state-size", `${s.state_bytes / 1e6}MB`);
  out.set("crash-at", s.crash_at_ms == null ? "none" : clock(s.crash_at_ms));
  out.set("alignment", s.alignment);
  out.set("snapshots", s.snapshots);
  out.set("backpressure", seconds(s.backpressure_ms));
  out.set("rate", String(s.rate_per_s));
  out.set("capacity", String(s.capacity_per_s));
  out.set("detection", seconds(s.detection_ms));
  out.set("store-write", `${s.store_write_bytes_per_s / 1e6}MB/s`);
  out.set("sla", seconds(s.latency_sla_ms));
  history.replaceState(null, "", `#${out}`);
});

lab.addEventListener("checkpointlab-ready", () => { document.body.dataset.ready = "true"; });
if (lab.dataset.ready) document.body.dataset.ready = "true";
