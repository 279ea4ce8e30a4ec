// "Use these settings in Flink or Spark": the run's settings as a Flink configuration and as a
// Spark Structured Streaming query in Scala and Python (written by the engine's
// lesson::export), each with a copy button, and the warnings where a setting does not carry over.
import { el } from "./shared.js";

export class ExportPanel {
  /// The panel, closed; `opened` is called when the student opens it.
  constructor(shadow, opened) {
    this.shadow = shadow;
    const block = (name, title) => {
      const pre = el("pre", { class: "export-text", "data-export": name, tabindex: "0" });
      const copy = el("button", { type: "button", "data-copy": name }, `Copy the ${title} settings`);
      const status = el("span", { class: "copy-status", role: "status" });
      copy.addEventListener("click", () => this.copy(pre, status));
      return { pre, section: el("div", { class: "export-block" }, el("h4", {}, title), pre, el("div", { class: "buttons" }, copy, status)) };
    };
    this.flink = block("flink", "Flink");
    this.spark = block("spark", "Spark (Scala)");
    this.pyspark = block("pyspark", "Spark (Python)");
    this.warnings = el("ul", { class: "export-warnings", "data-export-warnings": "" });
    this.panel = el("details", { class: "export", "data-panel": "export" },
      el("summary", {}, "Use these settings in Flink or Spark"),
      el("p", {}, "The settings above as a Flink configuration and as a Spark Structured Streaming query."),
      this.warnings, this.flink.section, this.spark.section, this.pyspark.section);
    this.panel.addEventListener("toggle", () => this.panel.open && opened());
  }

  /// Shows the engine's export of a run: `{ flink, spark, pyspark, warnings }`.
  show(text) {
    this.flink.pre.textContent = text.flink;
    this.spark.pre.textContent = text.spark;
    this.pyspark.pre.textContent = text.pyspark;
    this.warnings.replaceChildren(...text.warnings.map((w) => el("li", {}, w)));
  }

  async copy(pre, status) {
    const text = pre.textContent;
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = "Copied.";
    } catch {
      // No clipboard permission: select the text so Ctrl+C copies it.
      const range = document.createRange();
      range.selectNodeContents(pre);
      const selection = this.shadow.getSelection?.() || document.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      status.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
    }
  }
}
