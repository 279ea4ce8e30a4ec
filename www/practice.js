// The practice page: the component with every exercise, and a note of progress for the student.
import "../pkg/checkpoint-lab.js";

const lab = document.querySelector("checkpoint-lab");
lab.addEventListener("checkpointlab-ready", () => { document.body.dataset.ready = "true"; });
if (lab.dataset.ready) document.body.dataset.ready = "true";
