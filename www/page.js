// The lesson page around the component: share links. The page's settings live in the URL hash
// (#interval=5s&crash-at=10:02:10&cursor=10:00:58); on load they become the element's attributes, and every
// change the student makes is written back.
import { toAttributes } from "../pkg/checkpoint-lab.js";
import { SETTINGS } from "../pkg/settings.js";

const lab = document.querySelector("checkpoint-lab");
// Every setting's attribute (from the settings table), and the view's sink and scenario.
const SHARED = [...SETTINGS.map((s) => s.attribute), "sink", "scenario", "cursor"];

const params = new URLSearchParams(location.hash.slice(1));
for (const [name, value] of params) if (SHARED.includes(name)) lab.setAttribute(name, value);

// Every value is written the way the attribute reads it ("7s", "2GB", "10:00:45"), by the same
// settings table the engine validates with, so a shared link runs exactly what the student saw.
// The scenario time the student looks at is part of the link too ("cursor=10:00:58").
let settings = new URLSearchParams([...params].filter(([name]) => SHARED.includes(name) && name !== "cursor"));
let cursor = params.get("cursor");
const writeHash = () => {
  const out = new URLSearchParams(settings);
  if (cursor) out.set("cursor", cursor);
  history.replaceState(null, "", `#${out}`);
};
lab.addEventListener("checkpointlab-change", async (event) => {
  const text = await toAttributes(event.detail.settings);
  settings = new URLSearchParams();
  for (const [name, value] of Object.entries(text)) {
    if (!(name === "mode" && value === "barrier")) settings.set(name, value);
  }
  writeHash();
});
let cursorTimer;
lab.addEventListener("checkpointlab-cursor", (event) => {
  cursor = event.detail.at;
  clearTimeout(cursorTimer);
  cursorTimer = setTimeout(writeHash, 200);
});

lab.addEventListener("checkpointlab-ready", () => { document.body.dataset.ready = "true"; });
if (lab.dataset.ready) document.body.dataset.ready = "true";
