// docs/embedding.md's embedding example: a lesson page's own module, listening to the component.
document.addEventListener("checkpointlab-change", (event) => {
  const { interval_replay_events } = event.detail;
  document.getElementById("progress").textContent =
    `Replay per interval: ${interval_replay_events.toLocaleString("en-US")} events`;
});
